package ext

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/tool"
)

// editorUI is a front end that records what extensions set.
type editorUI struct {
	hooks.Headless
	mu     sync.Mutex
	editor hooks.EditorComponent
	sets   int
	inputs []hooks.TerminalInputFunc
	offs   int
}

func (u *editorUI) SetEditorComponent(e hooks.EditorComponent) {
	u.mu.Lock()
	u.editor, u.sets = e, u.sets+1
	u.mu.Unlock()
}

func (u *editorUI) OnTerminalInput(fn hooks.TerminalInputFunc) func() {
	u.mu.Lock()
	u.inputs = append(u.inputs, fn)
	u.mu.Unlock()
	return func() { u.mu.Lock(); u.offs++; u.mu.Unlock() }
}

// editorSurface is the front end's side of the replacement editor.
type editorSurface struct {
	mu      sync.Mutex
	submits []string
	appKeys []string
}

func (s *editorSurface) RequestRender() {}
func (s *editorSurface) Submit(text string) {
	s.mu.Lock()
	s.submits = append(s.submits, text)
	s.mu.Unlock()
}
func (s *editorSurface) AppKey(data string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appKeys = append(s.appKeys, data)
	return data == "\x1b" // relay aborts on escape; other keys are the editor's
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestEditorComponentAndTerminalInput(t *testing.T) {
	dir := testAgentDir(t)
	seam := hooks.New()
	ui := &editorUI{}
	defer seam.BindUI(ui)()
	cmds := commands.New()
	tools, _ := tool.NewRegistry()
	p, _ := filepath.Abs(filepath.Join("testdata", "editor.ts"))
	m := Start(context.Background(), Options{Paths: []string{p}, AgentDir: dir, CacheDir: filepath.Join(dir, "cache"), Cwd: t.TempDir(),
		Mode: "tui", HasUI: true, Environ: os.Environ(), Hooks: seam, Commands: cmds, Tools: tools})
	t.Cleanup(m.Close)
	if errs := m.Wait(context.Background()); len(errs) > 0 {
		t.Fatalf("load: %v", errs)
	}
	run := func(name string) {
		t.Helper()
		c, ok := cmds.Get(name)
		if !ok {
			t.Fatalf("/%s not registered", name)
		}
		if _, err := c.Run(context.Background(), ""); err != nil {
			t.Fatalf("/%s: %v", name, err)
		}
	}
	run("shout")
	waitUntil(t, "editor set", func() bool { ui.mu.Lock(); defer ui.mu.Unlock(); return ui.editor != nil })
	ui.mu.Lock()
	e := ui.editor
	ui.mu.Unlock()
	surf := &editorSurface{}
	e.Attach(surf)
	e.SetFocused(true)
	render := func() []string {
		t.Helper()
		lines, err := e.Render(context.Background(), 10)
		if err != nil {
			t.Fatal(err)
		}
		return lines
	}
	if got := render(); !slices.Equal(got, []string{"──────────", hooks.CursorMarker, "[normal]"}) {
		t.Errorf("first render %q", got)
	}
	for _, k := range []string{"h", "i", "!", "a", "\x7f", "b"} {
		e.HandleInput(k)
	}
	waitUntil(t, "typed text mirrored", func() bool { return e.Text() == "hiB" })
	if got := render(); !slices.Equal(got, []string{"──────────", "hiB" + hooks.CursorMarker, "[shout]"}) {
		t.Errorf("render %q", got)
	}
	// Keys the editor does not edit with go to relay's keybindings; one
	// relay has none for comes back to the editor.
	e.HandleInput("\x1b")
	e.HandleInput("\x0f")
	waitUntil(t, "app keys asked", func() bool { surf.mu.Lock(); defer surf.mu.Unlock(); return len(surf.appKeys) == 2 })
	e.HandleInput("\r")
	waitUntil(t, "submitted", func() bool { surf.mu.Lock(); defer surf.mu.Unlock(); return len(surf.submits) == 1 })
	if surf.submits[0] != "hiB" || e.Text() != "" {
		t.Errorf("submits %q, text after %q", surf.submits, e.Text())
	}
	e.SetText("preset")
	waitUntil(t, "SetText reached the host", func() bool { return strings.Contains(strings.Join(render(), "|"), "preset") })
	// A long line wraps at the width, the cursor marker on its row.
	e.SetText("abcdefghijklmno")
	waitUntil(t, "wrapped", func() bool {
		return slices.Equal(render(), []string{"──────────", "abcdefghij", "klmno" + hooks.CursorMarker, "[shout]"})
	})
	run("plain")
	waitUntil(t, "editor restored", func() bool { ui.mu.Lock(); defer ui.mu.Unlock(); return ui.sets == 2 && ui.editor == nil })

	run("listen")
	waitUntil(t, "listener subscribed", func() bool { ui.mu.Lock(); defer ui.mu.Unlock(); return len(ui.inputs) == 1 })
	fn := ui.inputs[0]
	for _, tc := range []struct {
		in, out string
		consume bool
	}{{"x", "x", true}, {"y", "z", false}, {"a", "a", false}} {
		if out, consume := fn(tc.in); out != tc.out || consume != tc.consume {
			t.Errorf("listener(%q) = %q, %v; want %q, %v", tc.in, out, consume, tc.out, tc.consume)
		}
	}
	fn("q") // the listener unsubscribes itself
	waitUntil(t, "listener unsubscribed", func() bool { ui.mu.Lock(); defer ui.mu.Unlock(); return ui.offs == 1 })
}

// statusUI records SetStatus.
type statusUI struct {
	hooks.Headless
	mu  sync.Mutex
	got []string
}

func (u *statusUI) SetStatus(key, text string) {
	u.mu.Lock()
	u.got = append(u.got, key+"="+text)
	u.mu.Unlock()
}

// Display calls made before the front end attaches its UI (an
// extension's session_start handler runs first) are applied once it is
// attached; dialogs do not wait.
func TestUICallsWaitForTheUI(t *testing.T) {
	seam := hooks.New()
	m := &Manager{opts: Options{HasUI: true, Hooks: seam}}
	raw := func(v string) json.RawMessage { return json.RawMessage(`"` + v + `"`) }
	if _, err := m.uiCall("ext.ts", "setStatus", []json.RawMessage{raw("mode"), raw("vim")}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := m.uiCall("ext.ts", "confirm", []json.RawMessage{raw("sure?"), raw("")}); ok != false {
		t.Errorf("confirm without a UI = %v, want the default false", ok)
	}
	ui := &statusUI{}
	defer seam.BindUI(ui)()
	waitUntil(t, "status applied", func() bool { ui.mu.Lock(); defer ui.mu.Unlock(); return slices.Equal(ui.got, []string{"mode=vim"}) })
}
