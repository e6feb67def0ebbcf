package ext

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// The Go side of the protocol against the real host (node and npm
// needed: the tests install jiti once into a shared agent dir).

var (
	agentOnce sync.Once
	agentDir  string
	agentErr  error
)

func testAgentDir(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		tb.Skip("node is not installed (CI installs it)")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		tb.Skip("npm is not installed (CI installs it)")
	}
	if checkNodeVersion("node") != nil {
		tb.Skipf("node is older than %d", MinNode)
	}
	agentOnce.Do(func() {
		agentDir, agentErr = os.MkdirTemp("", "relay-ext-test")
		if agentErr == nil {
			_, agentErr = ensureJiti(context.Background(), agentDir, nil)
		}
	})
	if agentErr != nil {
		tb.Skipf("cannot install jiti: %v", agentErr)
	}
	return agentDir
}

type fixture struct {
	m     *Manager
	seam  *hooks.Set
	cmds  *commands.Registry
	tools *tool.Registry
	errs  []*hooks.HandlerError
	mu    sync.Mutex
}

func start(tb testing.TB, exts ...string) *fixture {
	tb.Helper()
	dir := testAgentDir(tb)
	f := &fixture{seam: hooks.New(), cmds: commands.New()}
	f.tools, _ = tool.NewRegistry()
	f.seam.OnError = func(e *hooks.HandlerError) { f.mu.Lock(); f.errs = append(f.errs, e); f.mu.Unlock() }
	var paths []string
	for _, e := range exts {
		p, _ := filepath.Abs(filepath.Join("testdata", e))
		paths = append(paths, p)
	}
	f.m = Start(context.Background(), Options{Paths: paths, AgentDir: dir, CacheDir: filepath.Join(dir, "cache"), Cwd: tb.TempDir(),
		Mode: "print", Environ: os.Environ(), Hooks: f.seam, Commands: f.cmds, Tools: f.tools})
	tb.Cleanup(f.m.Close)
	if errs := f.m.Wait(context.Background()); len(errs) > 0 {
		tb.Fatalf("load: %v", errs)
	}
	return f
}

func TestToolCallRoundTrip(t *testing.T) {
	f := start(t, "noop.ts")
	ctx := context.Background()
	for _, tc := range []struct {
		tool, args string
		block      bool
		wantArgs   string
	}{
		{"read", `{"path":"x"}`, false, `{"path":"x"}`},
		{"blockme", `{}`, true, `{}`},
		{"rewrite", `{"value":"old"}`, false, `{"value":"rewritten"}`},
	} {
		call := &llm.ToolCall{ID: "c", Name: tc.tool, Arguments: json.RawMessage(tc.args)}
		r := f.seam.RunToolCall(ctx, hooks.ToolCall{Call: call})
		if r.Block != tc.block || (tc.block && r.Reason != "blocked by noop.ts") {
			t.Errorf("%s: %+v", tc.tool, r)
		}
		if !jsonEqual(call.Arguments, json.RawMessage(tc.wantArgs)) {
			t.Errorf("%s: arguments %s, want %s", tc.tool, call.Arguments, tc.wantArgs)
		}
	}
}

func TestToolUpdatesAndAbort(t *testing.T) {
	f := start(t, "noop.ts")
	noop, ok := f.tools.Get("noop")
	if !ok {
		t.Fatal("noop not registered")
	}
	if got := string(noop.Spec().Parameters); !strings.Contains(got, `"n":{"type":"number"}`) || strings.Contains(got, "required") {
		t.Errorf("schema %s", got)
	}
	var updates []string
	r := noop.Execute(context.Background(), json.RawMessage(`{"n":3}`), func(p tool.Result) { updates = append(updates, p.Content.PlainText()) })
	if r.IsError || r.Content.PlainText() != "ok" || strings.Join(updates, ",") != "u0,u1,u2" {
		t.Errorf("result %+v updates %v", r, updates)
	}
	if r := noop.Execute(context.Background(), json.RawMessage(`[1]`), nil); !r.IsError {
		t.Errorf("non-object arguments accepted: %+v", r)
	}
	slow, _ := f.tools.Get("slow")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tool.Result, 1)
	go func() { done <- slow.Execute(ctx, json.RawMessage(`{}`), nil) }()
	cancel()
	select {
	case r := <-done:
		if !r.IsError || !strings.Contains(r.Content.PlainText(), "aborted") {
			t.Errorf("aborted tool: %+v", r)
		}
	case <-time.After(time.Minute):
		t.Fatal("abort did not end the tool")
	}
}

func TestReadLineBound(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
		err  bool
	}{
		{"abc\n", 10, "abc\n", false},
		{"abcdefghijkl\n", 5, "", true},
		{"tail", 10, "tail", false},
	} {
		got, err := readLine(bufioReader(tc.in), tc.max)
		if (err != nil) != tc.err || string(got) != tc.want {
			t.Errorf("readLine(%q, %d) = %q, %v", tc.in, tc.max, got, err)
		}
	}
}

func BenchmarkToolCallHook(b *testing.B) {
	f := start(b, "noop.ts")
	ctx := context.Background()
	call := &llm.ToolCall{ID: "c", Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.seam.RunToolCall(ctx, hooks.ToolCall{Call: call})
	}
}

func BenchmarkExtensionToolCall(b *testing.B) {
	f := start(b, "noop.ts")
	noop, _ := f.tools.Get("noop")
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		noop.Execute(ctx, json.RawMessage(`{}`), nil)
	}
}
func bufioReader(s string) *bufio.Reader { return bufio.NewReaderSize(strings.NewReader(s), 16) }

// fakeUI shows a component the way a front end does: attach, render,
// forward keys, render again on request, until the component is done.
type fakeUI struct {
	hooks.Headless
	t        *testing.T
	mu       sync.Mutex
	renders  []string
	notes    []string
	status   map[string]string
	rendered chan struct{}
}

func (u *fakeUI) Custom(ctx context.Context, c hooks.Component, _ hooks.CustomOptions) error {
	c.Attach(u)
	render := func() {
		lines, err := c.Render(ctx, 20)
		if err != nil {
			u.t.Errorf("render: %v", err)
		}
		u.mu.Lock()
		u.renders = append(u.renders, strings.Join(lines, "|"))
		u.mu.Unlock()
	}
	render()
	for _, key := range []string{"a", "b"} {
		c.HandleInput(key)
		select {
		case <-u.rendered:
		case <-time.After(time.Minute):
			u.t.Fatal("no render request after a key")
		}
		render()
	}
	c.HandleInput("q")
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		u.t.Fatal("done() did not end the component")
	}
	c.Dispose()
	return nil
}

func (u *fakeUI) RequestRender() { u.rendered <- struct{}{} }

func (u *fakeUI) Notify(_ hooks.Level, msg string) {
	u.mu.Lock()
	u.notes = append(u.notes, msg)
	u.mu.Unlock()
}

func (u *fakeUI) Confirm(context.Context, string, string) (bool, error) { return true, nil }

func (u *fakeUI) SetStatus(key, text string) {
	u.mu.Lock()
	u.status[key] = text
	u.mu.Unlock()
}

func TestCustomComponentAndDialogs(t *testing.T) {
	dir := testAgentDir(t)
	seam := hooks.New()
	ui := &fakeUI{t: t, status: map[string]string{}, rendered: make(chan struct{}, 8)}
	seam.BindUI(ui)
	cmds := commands.New()
	p, _ := filepath.Abs("testdata/counter.ts")
	m := Start(context.Background(), Options{Paths: []string{p}, AgentDir: dir, CacheDir: filepath.Join(dir, "cache"), Cwd: t.TempDir(),
		Mode: "tui", HasUI: true, Environ: os.Environ(), Hooks: seam, Commands: cmds})
	t.Cleanup(m.Close)
	if errs := m.Wait(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	c, ok := cmds.Get("count")
	if !ok || c.Source != commands.Extension {
		t.Fatalf("count command: %+v", c)
	}
	if _, err := c.Run(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	ui.mu.Lock()
	defer ui.mu.Unlock()
	if got := strings.Join(ui.renders, ","); got != "count: 0,count: 1,count: 2" {
		t.Errorf("renders %q", got)
	}
	if strings.Join(ui.notes, ",") != "counted 2" || ui.status["counter"] != "kept" {
		t.Errorf("notes %v status %v", ui.notes, ui.status)
	}
}

func TestDecodeResult(t *testing.T) {
	r, err := decodeResult(json.RawMessage(`{"content":[{"type":"text","text":"a"}],"details":{"k":1},"structuredContent":{"v":2},"terminate":true,"isError":true}`))
	if err != nil || r.Content.PlainText() != "a" || string(r.Details.(json.RawMessage)) != `{"k":1}` || string(r.Structured) != `{"v":2}` || !r.Terminate || !r.IsError {
		t.Errorf("%+v %v", r, err)
	}
	if _, err := decodeResult(json.RawMessage(`{"content":"nope"}`)); err == nil {
		t.Error("string content accepted")
	}
}

// registerMcpServer reaches the seam (the MCP feature connects it) under
// the extension's path, and cache_warming_decision answers override
// relay's decision.
func TestMCPServerAndCacheWarmingDecision(t *testing.T) {
	f := start(t, "mcpreg.ts")
	servers := f.seam.MCPServers()
	if len(servers) != 1 || servers[0].Name != "docs" || !strings.HasSuffix(servers[0].Source, "mcpreg.ts") ||
		!strings.Contains(string(servers[0].Config), `"docs-server"`) {
		t.Fatalf("servers %+v", servers)
	}
	if got := f.seam.RunCacheWarming(context.Background(), hooks.CacheWarmingDecision{MissCost: 0.3, Action: "warm"}); got != "stop" {
		t.Errorf("decision with a small miss cost: %q, want the extension's stop", got)
	}
	if got := f.seam.RunCacheWarming(context.Background(), hooks.CacheWarmingDecision{MissCost: 3, Action: "warm"}); got != "warm" {
		t.Errorf("decision with a large miss cost: %q, want relay's warm", got)
	}
	f.m.Close()
	if n := len(f.seam.MCPServers()); n != 0 {
		t.Logf("%d servers still registered after Close (handlers stay on the seam by design)", n)
	}
}

// registerShortcut binds the key on the command registry; running it runs
// the extension's handler (here one that fails, so its run is visible).
func TestShortcutRunsTheHandler(t *testing.T) {
	f := start(t, "shortcut.ts")
	s, ok := f.cmds.Shortcut("ctrl+shift+y")
	if !ok || s.Description != "yank the plan" {
		t.Fatalf("shortcut %+v %v", s, ok)
	}
	err := s.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "yanked with model") {
		t.Fatalf("handler result %v", err)
	}
}
