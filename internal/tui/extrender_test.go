package tui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui"
	"github.com/relay-agent/relay/internal/tui/transcript"
	"github.com/relay-agent/relay/internal/tui/tuitest"
)

// renderSeam is a hooks.Set with Go renderers standing in for an
// extension's: "status" messages, "note" entries, the "todo" tool; "slow"
// messages wait for release; "quiet" declines.
type renderSeam struct {
	*hooks.Set
	release chan struct{}
	mu      sync.Mutex
	reqs    []hooks.RenderRequest
}

func newRenderSeam() *renderSeam {
	s := &renderSeam{Set: hooks.New(), release: make(chan struct{})}
	rec := func(req hooks.RenderRequest) {
		s.mu.Lock()
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()
	}
	s.RegisterRenderer(hooks.RenderMessage, "status", "test", func(_ context.Context, req hooks.RenderRequest) ([]string, bool, error) {
		rec(req)
		var m struct {
			Content string `json:"content"`
		}
		_ = json.Unmarshal(req.Data, &m)
		lines := []string{fmt.Sprintf("STATUS %s (w=%d)", m.Content, req.Width)}
		if req.Expanded {
			lines = append(lines, "STATUS details")
		}
		return lines, true, nil
	})
	s.RegisterRenderer(hooks.RenderMessage, "slow", "test", func(ctx context.Context, req hooks.RenderRequest) ([]string, bool, error) {
		rec(req)
		select {
		case <-s.release:
			return []string{"SLOW drawn"}, true, nil
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	})
	s.RegisterRenderer(hooks.RenderMessage, "quiet", "test", func(context.Context, hooks.RenderRequest) ([]string, bool, error) {
		return nil, false, nil
	})
	s.RegisterRenderer(hooks.RenderEntry, "note", "test", func(_ context.Context, req hooks.RenderRequest) ([]string, bool, error) {
		var e struct {
			ID   string `json:"id"`
			Data struct {
				Text string `json:"text"`
			} `json:"data"`
		}
		_ = json.Unmarshal(req.Data, &e)
		return []string{"NOTE " + e.ID + " " + e.Data.Text}, true, nil
	})
	s.RegisterRenderer(hooks.RenderToolCall, "todo", "test", func(_ context.Context, req hooks.RenderRequest) ([]string, bool, error) {
		var d hooks.RenderTool
		_ = json.Unmarshal(req.Data, &d)
		return []string{"TODO CALL " + string(d.Args)}, true, nil
	})
	s.RegisterRenderer(hooks.RenderToolResult, "todo", "test", func(_ context.Context, req hooks.RenderRequest) ([]string, bool, error) {
		var d hooks.RenderTool
		_ = json.Unmarshal(req.Data, &d)
		if d.IsPartial {
			return []string{"TODO working"}, true, nil
		}
		var r struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			Details json.RawMessage `json:"details"`
		}
		_ = json.Unmarshal(d.Result, &r)
		return []string{fmt.Sprintf("TODO result %s %s expanded=%v", r.Content[0].Text, r.Details, req.Expanded)}, true, nil
	})
	return s
}

func startRendered(t *testing.T, fullscreen bool, s *renderSeam) (*tuitest.Fake, *tuitest.Driver, *tui.Model) {
	t.Helper()
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen = fullscreen
	o.Renderers = s
	m := tui.New(context.Background(), f, o)
	t.Cleanup(f.Subscribe(m.Deliver))
	return f, tuitest.NewDriver(m, 70, 24), m
}

func customMsg(customType, content string) *llm.CustomMessage {
	return &llm.CustomMessage{CustomType: customType, Content: llm.StringContent(content), Display: true}
}

// screen is what the person sees: the scrollback printed so far (regular
// mode) and the frame.
func screen(d *tuitest.Driver) string { return strings.Join(d.Printed, "\n") + "\n" + d.Frame() }

func TestExtMessageRenderers(t *testing.T) {
	for _, fullscreen := range []bool{false, true} {
		t.Run(fmt.Sprintf("fullscreen=%v", fullscreen), func(t *testing.T) {
			s := newRenderSeam()
			f, d, m := startRendered(t, fullscreen, s)
			// A custom message of a run and one sent while idle.
			f.Emit(agent.Event{Type: agent.MessageStart, Message: customMsg("status", "build ok")})
			m.Show(hooks.Shown{Message: customMsg("status", "idle note")})
			m.Show(hooks.Shown{Message: customMsg("quiet", "plain text")})
			m.Show(hooks.Shown{Message: customMsg("other", "no renderer")})
			fr := eventuallyScreen(t, d, "rendered", "STATUS build ok (w=", "STATUS idle note", "[quiet] plain text", "[other] no renderer")
			if strings.Contains(fr, "[status]") {
				t.Errorf("relay's own box drawn for a rendered message:\n%s", fr)
			}
			// ctrl+o expands renderers too.
			d.Press("ctrl+o")
			if fullscreen {
				eventuallyScreen(t, d, "expanded", "STATUS details")
			}
		})
	}
}

func eventuallyScreen(t *testing.T, d *tuitest.Driver, what string, want ...string) string {
	t.Helper()
	return eventually(t, d, what, func(string) bool {
		sc := screen(d)
		for _, w := range want {
			if !strings.Contains(sc, w) {
				return false
			}
		}
		return true
	})
}

// A slow renderer never blocks the UI: keys are handled meanwhile, the
// message shows nothing until the answer (no flash of relay's own box);
// regular mode holds it (and what follows) out of the scrollback until
// the renderer answered, then prints its lines.
func TestExtRendererSlowDoesNotBlock(t *testing.T) {
	for _, fullscreen := range []bool{false, true} {
		t.Run(fmt.Sprintf("fullscreen=%v", fullscreen), func(t *testing.T) {
			s := newRenderSeam()
			_, d, m := startRendered(t, fullscreen, s)
			m.Show(hooks.Shown{Message: customMsg("slow", "later")})
			m.Show(hooks.Shown{Message: customMsg("other", "after it")})
			d.Type("typing works")
			fr := eventually(t, d, "keys handled while the renderer works", contains("typing works"))
			if !fullscreen && strings.Contains(strings.Join(d.Printed, "\n"), "after it") {
				t.Errorf("printed past a block waiting for its renderer:\n%s", strings.Join(d.Printed, "\n"))
			}
			if strings.Contains(screen(d), "[slow] later") {
				t.Errorf("relay's own box drawn while the renderer works:\n%s", fr)
			}
			close(s.release)
			fr = eventuallyScreen(t, d, "renderer answered", "SLOW drawn", "[other] after it")
			if strings.Contains(fr, "[slow] later") {
				t.Errorf("fallback still drawn after the answer:\n%s", fr)
			}
		})
	}
}

func TestExtEntryRenderer(t *testing.T) {
	for _, fullscreen := range []bool{false, true} {
		t.Run(fmt.Sprintf("fullscreen=%v", fullscreen), func(t *testing.T) {
			s := newRenderSeam()
			_, d, m := startRendered(t, fullscreen, s)
			m.Show(hooks.Shown{EntryID: "e1", CustomType: "note", Data: json.RawMessage(`{"text":"remember"}`)})
			m.Show(hooks.Shown{EntryID: "e2", CustomType: "state", Data: json.RawMessage(`{"x":1}`)})
			m.Show(hooks.Shown{Message: customMsg("other", "marker")})
			sc := eventuallyScreen(t, d, "entry drawn", "NOTE e1 remember", "[other] marker")
			if strings.Contains(sc, "state") {
				t.Errorf("an entry without a renderer was drawn:\n%s", sc)
			}
		})
	}
}

// A tool's renderCall draws its header, renderResult its output: partial
// while it runs, final once done.
func TestExtToolRenderers(t *testing.T) {
	s := newRenderSeam()
	f, d, _ := startRendered(t, true, s)
	args := json.RawMessage(`{"action":"list"}`)
	f.Emit(agent.Event{Type: agent.ToolExecutionStart, ToolCallID: "t1", ToolName: "todo", Args: args})
	f.Emit(agent.Event{Type: agent.ToolExecutionUpdate, ToolCallID: "t1", ToolName: "todo",
		Output: &agent.ToolOutput{Content: llm.Blocks{&llm.TextContent{Text: "half"}}}})
	fr := eventually(t, d, "partial", func(fr string) bool {
		return strings.Contains(fr, `TODO CALL {"action":"list"}`) && strings.Contains(fr, "TODO working")
	})
	if strings.Contains(fr, "todo action=") {
		t.Errorf("relay's own title drawn:\n%s", fr)
	}
	f.Emit(agent.Event{Type: agent.ToolExecutionEnd, ToolCallID: "t1", ToolName: "todo",
		Output: &agent.ToolOutput{Content: llm.Blocks{&llm.TextContent{Text: "done"}}, Details: json.RawMessage(`{"n":2}`)}})
	fr = eventually(t, d, "final", contains(`TODO result done {"n":2} expanded=false`))
	if strings.Contains(fr, "TODO working") {
		t.Errorf("partial result left:\n%s", fr)
	}
	golden(t, "ext_tool_render", fr)
	// Another tool keeps relay's rendering.
	f.Emit(agent.Event{Type: agent.ToolExecutionStart, ToolCallID: "t2", ToolName: "bash", Args: json.RawMessage(`{"command":"ls"}`)})
	eventually(t, d, "bash", contains("$ ls"))
}

// A resumed session's custom entries are drawn by their renderer at their
// place; those without one take no room.
func TestExtEntryRendererOnResume(t *testing.T) {
	for _, fullscreen := range []bool{false, true} {
		t.Run(fmt.Sprintf("fullscreen=%v", fullscreen), func(t *testing.T) {
			f := tuitest.NewFake()
			f.Messages = []llm.Message{
				&llm.UserMessage{Content: llm.StringContent("before the note")},
				&transcript.EntryMessage{ID: "e9", CustomType: "note", Data: json.RawMessage(`{"text":"from disk"}`)},
				&transcript.EntryMessage{ID: "e10", CustomType: "state", Data: json.RawMessage(`{"x":1}`)},
				&llm.UserMessage{Content: llm.StringContent("after the note")},
			}
			o := opts()
			o.Fullscreen = fullscreen
			o.Renderers = newRenderSeam()
			m := tui.New(context.Background(), f, o)
			t.Cleanup(f.Subscribe(m.Deliver))
			d := tuitest.NewDriver(m, 70, 24)
			sc := eventuallyScreen(t, d, "entry drawn", "before the note", "NOTE e9 from disk", "after the note")
			if i, j := strings.Index(sc, "NOTE e9"), strings.Index(sc, "after the note"); i > j {
				t.Errorf("entry out of place:\n%s", sc)
			}
		})
	}
}

// A renderer that never answers is given up after its timeout: the
// message gets relay's own box, and regular mode prints it.
func TestExtRendererTimeoutFallsBack(t *testing.T) {
	s := newRenderSeam()
	s.RegisterRenderer(hooks.RenderMessage, "stuck", "test", func(ctx context.Context, _ hooks.RenderRequest) ([]string, bool, error) {
		<-ctx.Done()
		return nil, false, ctx.Err()
	})
	_, d, m := startRendered(t, false, s)
	m.Show(hooks.Shown{Message: customMsg("stuck", "given up")})
	// tui's render timeout is 3s; eventually waits up to 5s.
	eventually(t, d, "fallback printed", func(string) bool { return strings.Contains(strings.Join(d.Printed, "\n"), "[stuck] given up") })
}
