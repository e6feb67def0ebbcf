package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

func TestInputSemantics(t *testing.T) {
	tests := []struct {
		name     string
		handlers []func(*Input) (InputResult, error)
		want     string
		handled  bool
		errs     int
	}{
		{"none", nil, "hi", false, 0},
		{"continue", []func(*Input) (InputResult, error){
			func(*Input) (InputResult, error) { return InputResult{}, nil },
		}, "hi", false, 0},
		{"transforms chain in order", []func(*Input) (InputResult, error){
			func(e *Input) (InputResult, error) {
				return InputResult{Action: InputTransform, Text: e.Text + " a"}, nil
			},
			func(e *Input) (InputResult, error) {
				return InputResult{Action: InputTransform, Text: e.Text + " b"}, nil
			},
		}, "hi a b", false, 0},
		{"handled stops later handlers", []func(*Input) (InputResult, error){
			func(*Input) (InputResult, error) { return InputResult{Action: InputHandled}, nil },
			func(*Input) (InputResult, error) { panic("must not run") },
		}, "hi", true, 0},
		{"failing handler is reported and skipped", []func(*Input) (InputResult, error){
			func(*Input) (InputResult, error) { return InputResult{}, errors.New("boom") },
			func(e *Input) (InputResult, error) { return InputResult{Action: InputTransform, Text: "x"}, nil },
		}, "x", false, 1},
		{"panicking handler is reported and skipped", []func(*Input) (InputResult, error){
			func(*Input) (InputResult, error) { panic("bad") },
		}, "hi", false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New()
			var errs []*HandlerError
			s.OnError = func(e *HandlerError) { errs = append(errs, e) }
			for _, h := range tt.handlers {
				h := h
				s.Input.On("test", func(_ context.Context, e *Input) (InputResult, error) { return h(e) })
			}
			got, handled := s.RunInput(context.Background(), Input{Text: "hi"})
			if got.Text != tt.want || handled != tt.handled || len(errs) != tt.errs {
				t.Fatalf("got %q handled=%v errs=%d, want %q %v %d", got.Text, handled, len(errs), tt.want, tt.handled, tt.errs)
			}
			for _, e := range errs {
				if e.Event != "input" || e.Source != "test" {
					t.Errorf("error names %s/%s", e.Event, e.Source)
				}
			}
		})
	}
}

func TestToolCallFirstBlockWinsAndErrorBlocks(t *testing.T) {
	s := New()
	var reported int
	s.OnError = func(*HandlerError) { reported++ }
	var order []string
	s.ToolCall.On("a", func(_ context.Context, e *ToolCall) (ToolCallResult, error) {
		order = append(order, "a")
		e.Call.Arguments = json.RawMessage(`{"path":"rewritten"}`)
		return ToolCallResult{}, nil
	})
	off := s.ToolCall.On("b", func(_ context.Context, e *ToolCall) (ToolCallResult, error) {
		order = append(order, "b:"+string(e.Call.Arguments))
		return ToolCallResult{Block: true, Reason: "no"}, nil
	})
	s.ToolCall.On("c", func(context.Context, *ToolCall) (ToolCallResult, error) {
		order = append(order, "c")
		return ToolCallResult{}, errors.New("broken")
	})
	call := &llm.ToolCall{Name: "write", Arguments: json.RawMessage(`{}`)}
	r := s.RunToolCall(context.Background(), ToolCall{Call: call})
	if !r.Block || r.Reason != "no" || strings.Join(order, ",") != `a,b:{"path":"rewritten"}` {
		t.Fatalf("got %+v order %v", r, order)
	}
	off()
	order = nil
	r = s.RunToolCall(context.Background(), ToolCall{Call: call})
	if !r.Block || !strings.Contains(r.Reason, "broken") || !strings.Contains(r.Reason, "c") || reported != 1 {
		t.Fatalf("a failing tool_call handler must block and be reported: %+v reported=%d", r, reported)
	}
}

func TestToolResultComposes(t *testing.T) {
	s := New()
	s.ToolResult.On("a", func(_ context.Context, e *ToolResult) (None, error) {
		e.Result.Content = llm.Blocks{&llm.TextContent{Text: "a"}}
		return None{}, nil
	})
	s.ToolResult.On("b", func(_ context.Context, e *ToolResult) (None, error) {
		e.Result.Content = append(e.Result.Content, &llm.TextContent{Text: "b"})
		e.Result.IsError = true
		return None{}, nil
	})
	res := &llm.ToolResultMessage{}
	s.ToolResult.Notify(context.Background(), &ToolResult{Result: res})
	if len(res.Content) != 2 || !res.IsError {
		t.Fatalf("composed result %+v", res)
	}
}

func TestChainsAndFirstWins(t *testing.T) {
	ctx := context.Background()
	s := New()
	s.ProviderRequest.On("a", func(_ context.Context, e *ProviderRequest) (ProviderRequestResult, error) {
		return ProviderRequestResult{Payload: append(append([]byte{}, e.Payload...), 'a')}, nil
	})
	s.ProviderRequest.On("b", func(_ context.Context, e *ProviderRequest) (ProviderRequestResult, error) {
		return ProviderRequestResult{Payload: append(append([]byte{}, e.Payload...), 'b')}, nil
	})
	if got := string(s.RunProviderRequest(ctx, nil, []byte("x"))); got != "xab" {
		t.Fatalf("payload chain %q", got)
	}
	s.BeforeSwitch.On("keep", func(context.Context, *SessionChange) (CancelResult, error) { return CancelResult{}, nil })
	s.BeforeSwitch.On("stop", func(context.Context, *SessionChange) (CancelResult, error) {
		return CancelResult{Cancel: true, Reason: "busy"}, nil
	})
	if r := RunCancel(ctx, &s.BeforeSwitch, SessionChange{}); !r.Cancel || r.Reason != "busy" {
		t.Fatalf("cancel %+v", r)
	}
	m := &llm.Model{ID: "m"}
	s.Route.On("none", func(context.Context, *Route) (RouteResult, error) { return RouteResult{}, nil })
	s.Route.On("laya", func(context.Context, *Route) (RouteResult, error) {
		return RouteResult{Model: m, ThinkingLevel: "high"}, nil
	})
	if r, ok, err := s.RunRoute(ctx, Route{}); !ok || err != nil || r.Model != m {
		t.Fatalf("route %+v %v %v", r, ok, err)
	}
	s2 := New()
	s2.Route.On("bad", func(context.Context, *Route) (RouteResult, error) { return RouteResult{}, errors.New("down") })
	if _, ok, err := s2.RunRoute(ctx, Route{}); ok || err == nil || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("a failing router must end the request: ok=%v err=%v", ok, err)
	}
	s.Settle.On("evidence", func(context.Context, *Settle) (SettleResult, error) {
		return SettleResult{Continue: true, FollowUp: "verify"}, nil
	})
	if r := s.RunSettle(ctx, Settle{}); !r.Continue || r.FollowUp != "verify" {
		t.Fatalf("settle %+v", r)
	}
	s.ResourcesDiscover.On("a", func(context.Context, *ResourcesDiscover) (ResourcesResult, error) {
		return ResourcesResult{SkillPaths: []string{"a"}}, nil
	})
	s.ResourcesDiscover.On("b", func(context.Context, *ResourcesDiscover) (ResourcesResult, error) {
		return ResourcesResult{SkillPaths: []string{"b"}, ThemePaths: []string{"t"}}, nil
	})
	if r := s.RunResources(ctx, ResourcesDiscover{}); strings.Join(r.SkillPaths, ",") != "a,b" || len(r.ThemePaths) != 1 {
		t.Fatalf("resources %+v", r)
	}
}

func TestUnregisterDuringCallIsSafe(t *testing.T) {
	s := New()
	var off func()
	calls := 0
	off = s.TurnEnd.On("once", func(context.Context, *TurnEnd) (None, error) {
		calls++
		off()
		return None{}, nil
	})
	s.TurnEnd.Notify(context.Background(), &TurnEnd{})
	s.TurnEnd.Notify(context.Background(), &TurnEnd{})
	if calls != 1 || s.TurnEnd.Has() {
		t.Fatalf("calls=%d has=%v", calls, s.TurnEnd.Has())
	}
}

func BenchmarkEmptyPoint(b *testing.B) {
	s := New()
	call := &llm.ToolCall{Name: "bash"}
	ctx := context.Background()
	for b.Loop() {
		_ = s.RunToolCall(ctx, ToolCall{Call: call})
		s.ToolResult.Notify(ctx, &ToolResult{Call: call})
	}
}

// Registered MCP servers are kept (a listener may come later) and every
// change is announced; a second registration of a name replaces the
// first, whose unregister is then a no-op.
func TestRegisterMCPServer(t *testing.T) {
	s := New()
	a := s.RegisterMCPServer(MCPServer{Name: "a", Config: []byte(`{"command":"x"}`), Source: "/e1.js"})
	var seen []string
	s.MCPServersChange.On("test", func(_ context.Context, e *MCPServersChange) (None, error) {
		var names []string
		for _, x := range e.Servers {
			names = append(names, x.Name+"@"+x.Source)
		}
		seen = append(seen, strings.Join(names, ","))
		return None{}, nil
	})
	b := s.RegisterMCPServer(MCPServer{Name: "b", Config: []byte(`{"url":"http://x"}`), Source: "/e2.js"})
	s.RegisterMCPServer(MCPServer{Name: "a", Config: []byte(`{"command":"y"}`), Source: "/e3.js"})
	a() // replaced: nothing to remove
	b()
	want := []string{"a@/e1.js,b@/e2.js", "a@/e3.js,b@/e2.js", "a@/e3.js"}
	if strings.Join(seen, " | ") != strings.Join(want, " | ") {
		t.Errorf("announced %q, want %q", seen, want)
	}
	if got := s.MCPServers(); len(got) != 1 || string(got[0].Config) != `{"command":"y"}` {
		t.Errorf("servers %+v", got)
	}
}

// Sections of the same name from later handlers replace earlier ones;
// guidelines accumulate.
func TestPromptAdditions(t *testing.T) {
	s := New()
	s.SystemPrompt.On("one", func(context.Context, *SystemPrompt) (SystemPromptResult, error) {
		return SystemPromptResult{Guidelines: []string{"g1"}, Sections: []PromptSection{{"x", "first"}, {"y", "why"}}}, nil
	})
	s.SystemPrompt.On("two", func(context.Context, *SystemPrompt) (SystemPromptResult, error) {
		return SystemPromptResult{Guidelines: []string{"g2"}, Sections: []PromptSection{{"x", "second"}}}, nil
	})
	g, secs := s.PromptAdditions(context.Background(), "/")
	if strings.Join(g, ",") != "g1,g2" || len(secs) != 2 || secs[0] != (PromptSection{"x", "second"}) || secs[1].Name != "y" {
		t.Errorf("guidelines %v sections %v", g, secs)
	}
	if got := s.Guidelines(context.Background(), "/"); strings.Join(got, ",") != "g1,g2" {
		t.Errorf("Guidelines %v", got)
	}
}
