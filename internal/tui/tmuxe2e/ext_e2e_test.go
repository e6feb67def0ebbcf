package tmuxe2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/ext"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// Extensions drawn by the real TUI: pi's published example extensions
// (the original's API under the @mariozechner/pi-* names), unchanged, from
// the package .ci/run extracts.

var (
	jitiOnce sync.Once
	jitiHome string // holds node_modules/jiti
	jitiErr  error
)

// piExample is the path of one of pi's example extensions; the test skips
// without node, npm or the package.
func piExample(t *testing.T, name string) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (extensions need it; CI installs it)", tool)
		}
	}
	if out, err := exec.Command("node", "--version").Output(); err == nil {
		var major int
		if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "v%d.", &major); err == nil && major < ext.MinNode {
			t.Skipf("node is %s; extensions need Node.js >= %d", strings.TrimSpace(string(out)), ext.MinNode)
		}
	}
	pkg := os.Getenv("RELAY_PI_PACKAGE")
	if pkg == "" {
		home, _ := os.UserHomeDir()
		pkg = filepath.Join(home, ".cache", "relay-pi", "package")
	}
	p := filepath.Join(pkg, "examples", "extensions", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("pi's example %s not found (set RELAY_PI_PACKAGE, or see .ci/run): %v", name, err)
	}
	jitiOnce.Do(func() {
		dir, err := os.MkdirTemp("", "relay-tmux-jiti")
		if err != nil {
			jitiErr = err
			return
		}
		out, err := exec.Command("npm", "install", "--prefix", dir, "--no-save", "--no-audit", "--no-fund", "--loglevel=error",
			"jiti@"+ext.JitiVersion).CombinedOutput()
		if err != nil {
			jitiErr = fmt.Errorf("npm install jiti: %v\n%s", err, out)
			return
		}
		jitiHome = dir
	})
	if jitiErr != nil {
		t.Skipf("cannot install jiti: %v", jitiErr)
	}
	return p
}

// withJiti puts the shared jiti where relay looks first, instead of a
// first-use install.
func (e *tmuxEnv) withJiti() {
	e.t.Helper()
	nm := filepath.Join(e.agentDir, "ext-host", "node_modules")
	if err := os.MkdirAll(nm, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(jitiHome, "node_modules", "jiti"), filepath.Join(nm, "jiti")); err != nil {
		e.t.Fatal(err)
	}
}

// waitGone waits until text is no longer on screen.
func (e *tmuxEnv) waitGone(text string, d time.Duration) string {
	e.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := e.screen()
		if !strings.Contains(s, text) {
			return s
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %q to go; screen:\n%s", text, s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// overlay-test.ts: /overlay-test opens ctx.ui.custom(..., {overlay: true});
// the component lives in the extension host and the TUI draws its lines
// over the screen, sends it the keys, and closes it on done().
func TestE2EExtensionOverlay(t *testing.T) {
	for _, mode := range []string{"fullscreen", "regular"} {
		t.Run(mode, func(t *testing.T) {
			overlay := piExample(t, "overlay-test.ts")
			e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "unused"}}}, map[string]any{"tuiMode": mode})
			e.withJiti()
			e.start("-e", overlay)
			e.text("/overlay-test")
			e.keys("Enter")
			s := e.waitFor("Overlay Test", 60*time.Second)
			for _, want := range []string{"╭", "Edge Cases (borders should align)", "▶ Search", "Cancel", "────"} {
				if !strings.Contains(s, want) {
					t.Errorf("overlay lacks %q:\n%s", want, s)
				}
			}
			// Typed keys reach the component: its inline input shows them.
			e.text("abc")
			e.waitFor("abc", 20*time.Second)
			e.keys("Down")
			s = e.waitFor("▶ Run", 20*time.Second)
			if strings.Contains(s, "▶ Search") {
				t.Errorf("selection did not move:\n%s", s)
			}
			e.keys("Up", "Enter")
			// done({action: "Search", query: "abc"}): the overlay goes and
			// the extension notifies the result.
			e.waitGone("Overlay Test", 20*time.Second)
			e.waitFor(`Search: "abc"`, 20*time.Second)
			// The editor has the keys again.
			e.text("back")
			e.waitFor("back", 10*time.Second)
		})
	}
}

// message-renderer.ts: /status sends a custom message its renderer draws
// ([WARN] ...), instead of relay's own "[status-update]" box.
func TestE2EExtensionMessageRenderer(t *testing.T) {
	for _, mode := range []string{"fullscreen", "regular"} {
		t.Run(mode, func(t *testing.T) {
			renderer := piExample(t, "message-renderer.ts")
			e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "unused"}}}, map[string]any{"tuiMode": mode})
			e.withJiti()
			e.start("-e", renderer)
			e.text("/status warn disk almost full")
			e.keys("Enter")
			s := e.waitFor("[WARN] disk almost full", 60*time.Second)
			if strings.Contains(s, "[status-update]") {
				t.Errorf("relay's own rendering drawn:\n%s", s)
			}
		})
	}
}

// modal-editor.ts: setEditorComponent with a CustomEditor subclass (vim
// modes) on session_start; the TUI draws it in place of its editor, sends
// it the keys, and its Enter submits the prompt.
func TestE2EExtensionModalEditor(t *testing.T) {
	modal := piExample(t, "modal-editor.ts")
	e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "answer from the fake"}}}, map[string]any{"tuiMode": "fullscreen"})
	e.withJiti()
	e.start("-e", modal)
	e.waitFor("─ INSERT", 60*time.Second)
	e.text("helo")
	e.waitFor("helo", 20*time.Second)
	// Normal mode: h moves left, x deletes under the cursor, i inserts
	// again there.
	e.keys("Escape")
	e.waitFor("─ NORMAL", 20*time.Second)
	e.text("hhx")
	e.waitFor("heo", 20*time.Second)
	e.text("i")
	e.waitFor("─ INSERT", 20*time.Second)
	e.text("ll")
	e.waitFor("hello", 20*time.Second)
	e.keys("Enter")
	s := e.waitFor("answer from the fake", 30*time.Second)
	if !strings.Contains(s, "─ INSERT") {
		t.Errorf("the extension's editor is gone after submitting:\n%s", s)
	}
	reqs := e.fake.Requests()
	if len(reqs) == 0 || !strings.Contains(string(reqs[len(reqs)-1].Raw), "hello") {
		t.Errorf("the prompt did not reach the model")
	}
}

// todo.ts: the tool's renderCall and renderResult draw its block (in
// place of relay's "todo action=..." title and raw result text).
func TestE2EExtensionToolRenderers(t *testing.T) {
	for _, mode := range []string{"fullscreen", "regular"} {
		t.Run(mode, func(t *testing.T) {
			todo := piExample(t, "todo.ts")
			call := llmtest.Response{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "t1", Name: "todo",
				Args: json.RawMessage(`{"action":"add","text":"buy milk"}`)}}}
			e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{call, {Text: "noted it"}}}, map[string]any{"tuiMode": mode})
			e.withJiti()
			e.start("-e", todo)
			e.text("remember milk")
			e.keys("Enter")
			e.waitFor("noted it", 60*time.Second)
			s := e.waitFor("✓ Added #1 buy milk", 30*time.Second)
			for _, want := range []string{`todo add "buy milk"`, "✓ Added #1 buy milk"} {
				if !strings.Contains(s, want) {
					t.Errorf("screen lacks %q:\n%s", want, s)
				}
			}
			if strings.Contains(s, "action=") || strings.Contains(s, "Added todo #1: buy milk") {
				t.Errorf("relay's own tool rendering drawn:\n%s", s)
			}
		})
	}
}
