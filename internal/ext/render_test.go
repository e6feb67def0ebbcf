package ext

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// Renderers registered by an extension draw through the real host: what
// each returns, declining (undefined) and throwing.
func TestRenderers(t *testing.T) {
	f := start(t, "render.ts")
	msg := func(customType, content string, details string) json.RawMessage {
		cm := &llm.CustomMessage{CustomType: customType, Content: llm.StringContent(content), Display: true}
		if details != "" {
			cm.Details = json.RawMessage(details)
		}
		b, err := llm.Marshal(cm)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tool := func(d hooks.RenderTool) json.RawMessage { b, _ := json.Marshal(d); return b }
	for _, tc := range []struct {
		name    string
		req     hooks.RenderRequest
		want    []string
		decline bool
		err     string
	}{
		{name: "message", req: hooks.RenderRequest{Target: hooks.RenderMessage, Name: "status", Width: 40, Data: msg("status", "build ok", `{"n":1}`)},
			want: []string{"<status> build ok"}},
		{name: "message expanded", req: hooks.RenderRequest{Target: hooks.RenderMessage, Name: "status", Width: 40, Expanded: true, Data: msg("status", "build ok", `{"n":1}`)},
			want: []string{"<status> build ok", `{"n":1}`}},
		{name: "message wraps at width", req: hooks.RenderRequest{Target: hooks.RenderMessage, Name: "status", Width: 12, Data: msg("status", "one two three", "")},
			want: []string{"<status> one", "two three"}},
		{name: "declined", req: hooks.RenderRequest{Target: hooks.RenderMessage, Name: "quiet", Width: 40, Data: msg("quiet", "x", "")}, decline: true},
		{name: "unknown type", req: hooks.RenderRequest{Target: hooks.RenderMessage, Name: "nobody", Width: 40, Data: msg("nobody", "x", "")}, decline: true},
		{name: "throws", req: hooks.RenderRequest{Target: hooks.RenderMessage, Name: "broken", Width: 40, Data: msg("broken", "x", "")}, err: "renderer broke"},
		{name: "entry", req: hooks.RenderRequest{Target: hooks.RenderEntry, Name: "note", Width: 40, Expanded: true,
			Data: json.RawMessage(`{"type":"custom","id":"e1","customType":"note","data":{"text":"hi"}}`)},
			want: []string{"note e1: hi (expanded)"}},
		{name: "tool call", req: hooks.RenderRequest{Target: hooks.RenderToolCall, Name: "todo", Width: 40,
			Data: tool(hooks.RenderTool{ToolCallID: "c1", Args: json.RawMessage(`{"action":"list"}`), ArgsComplete: true})},
			want: []string{"TODO list #1"}},
		{name: "tool call keeps row state", req: hooks.RenderRequest{Target: hooks.RenderToolCall, Name: "todo", Width: 40,
			Data: tool(hooks.RenderTool{ToolCallID: "c1", Args: json.RawMessage(`{"action":"list"}`), ArgsComplete: true})},
			want: []string{"TODO list #2"}},
		{name: "partial result", req: hooks.RenderRequest{Target: hooks.RenderToolResult, Name: "todo", Width: 40,
			Data: tool(hooks.RenderTool{ToolCallID: "c1", Args: json.RawMessage(`{"action":"list"}`), IsPartial: true,
				Result: json.RawMessage(`{"content":[{"type":"text","text":"working"}]}`)})},
			want: []string{"Processing..."}},
		{name: "result expanded", req: hooks.RenderRequest{Target: hooks.RenderToolResult, Name: "todo", Width: 40, Expanded: true,
			Data: tool(hooks.RenderTool{ToolCallID: "c1", Args: json.RawMessage(`{"action":"list"}`),
				Result: json.RawMessage(`{"content":[{"type":"text","text":"done"}],"details":{"items":["a","b"]}}`)})},
			want: []string{"✓ done for list", "- a", "- b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fn := f.seam.Renderer(tc.req.Target, tc.req.Name)
			if fn == nil {
				if tc.decline && tc.req.Name == "nobody" {
					return
				}
				t.Fatalf("no renderer for %s %s", tc.req.Target, tc.req.Name)
			}
			lines, ok, err := fn(context.Background(), tc.req)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ok == tc.decline {
				t.Fatalf("ok = %v, lines %q", ok, lines)
			}
			if !tc.decline && !slices.Equal(lines, tc.want) {
				t.Errorf("lines %q, want %q", lines, tc.want)
			}
		})
	}
	// The throwing renderer is reported once, naming the extension.
	fn := f.seam.Renderer(hooks.RenderMessage, "broken")
	_, _, _ = fn(context.Background(), hooks.RenderRequest{Target: hooks.RenderMessage, Name: "broken", Width: 10, Data: msg("broken", "x", "")})
	f.mu.Lock()
	defer f.mu.Unlock()
	var reports []string
	for _, e := range f.errs {
		if strings.HasPrefix(e.Event, "render:") {
			reports = append(reports, e.Source+" "+e.Event+" "+e.Err.Error())
		}
	}
	if len(reports) != 1 || !strings.Contains(reports[0], "render.ts render:message:broken renderer broke") {
		t.Errorf("reports %q", reports)
	}
	// A tool without renderers registers none.
	if f.seam.Renderer(hooks.RenderToolCall, "nothing") != nil {
		t.Error("renderer for an unknown tool")
	}
}

// themedUI is a front end with a palette.
type themedUI struct {
	hooks.Headless
	th hooks.Theme
}

func (u *themedUI) Theme() hooks.Theme { return u.th }

// Renderers colour with the front end's palette (theme.fg, theme.bold),
// sent again when it changes.
func TestRendererTheme(t *testing.T) {
	dir := testAgentDir(t)
	seam := hooks.New()
	ui := &themedUI{th: hooks.Theme{Name: "dark", Fg: map[string]string{"accent": "\x1b[31m"}, FgEnd: map[string]string{"accent": "\x1b[39m"},
		Bg: map[string]string{}}}
	defer seam.BindUI(ui)()
	p, _ := filepath.Abs(filepath.Join("testdata", "render.ts"))
	tools, _ := tool.NewRegistry()
	m := Start(context.Background(), Options{Paths: []string{p}, AgentDir: dir, CacheDir: filepath.Join(dir, "cache"), Cwd: t.TempDir(),
		Mode: "tui", HasUI: true, Environ: os.Environ(), Hooks: seam, Commands: commands.New(), Tools: tools})
	t.Cleanup(m.Close)
	if errs := m.Wait(context.Background()); len(errs) > 0 {
		t.Fatalf("load: %v", errs)
	}
	cm, _ := llm.Marshal(&llm.CustomMessage{CustomType: "status", Content: llm.StringContent("ok"), Display: true})
	req := hooks.RenderRequest{Target: hooks.RenderMessage, Name: "status", Width: 40, Data: cm}
	lines, ok, err := seam.Renderer(hooks.RenderMessage, "status")(context.Background(), req)
	if err != nil || !ok || len(lines) != 1 || lines[0] != "\x1b[31m<status> \x1b[39mok" {
		t.Fatalf("lines %q ok %v err %v", lines, ok, err)
	}
	ui.th.Fg["accent"] = "\x1b[32m"
	lines, _, _ = seam.Renderer(hooks.RenderMessage, "status")(context.Background(), req)
	if len(lines) != 1 || lines[0] != "\x1b[32m<status> \x1b[39mok" {
		t.Fatalf("after the theme changed: %q", lines)
	}
	// The tool header's theme.bold.
	d, _ := json.Marshal(hooks.RenderTool{ToolCallID: "b1", Args: json.RawMessage(`{"action":"x"}`)})
	lines, _, _ = seam.Renderer(hooks.RenderToolCall, "todo")(context.Background(),
		hooks.RenderRequest{Target: hooks.RenderToolCall, Name: "todo", Width: 40, Data: d})
	if len(lines) != 1 || lines[0] != "\x1b[1mTODO x\x1b[22m #1" {
		t.Errorf("bold header %q", lines)
	}
}
