package rpcmode

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/jsonl"
)

var update = flag.Bool("update", false, "rewrite golden files")

// uiConn is a Server with only its extension-UI side wired: records the UI
// writes arrive on lines, client answers go in through handle.
type uiConn struct {
	s     *Server
	ui    hooks.UI
	lines chan string
}

func newUIConn(t *testing.T) *uiConn {
	t.Helper()
	pr, pw := io.Pipe()
	c := &uiConn{lines: make(chan string, 64)}
	c.s = &Server{out: jsonl.NewWriter(pw), pending: map[string]chan uiResponse{}}
	c.ui = rpcUI{s: c.s}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { pw.Close() })
	return c
}

// next returns the next record written.
func (c *uiConn) next(t *testing.T) string {
	t.Helper()
	select {
	case l := <-c.lines:
		return l
	case <-time.After(5 * time.Second):
		t.Fatal("no extension_ui_request written")
	}
	return ""
}

// none checks that nothing more was written once a probe record (a
// setTitle) arrives: writes are in order, so anything the call under test
// wrote would come first.
func (c *uiConn) none(t *testing.T) {
	t.Helper()
	c.ui.SetTitle("probe")
	if l := c.next(t); !strings.Contains(l, `"probe"`) {
		t.Fatalf("unexpected record %s", l)
	}
}

func goldenLines(t *testing.T, name string, got []string) {
	t.Helper()
	p := filepath.Join("testdata", "extui", name+".jsonl")
	text := strings.Join(got, "\n") + "\n"
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("missing golden (run with -update): %v", err)
	}
	if string(want) != text {
		t.Errorf("%s differs:\n--- got\n%s--- want\n%s", p, text, want)
	}
}

type dialogResult struct {
	value string
	ok    bool
	err   error
}

func TestExtensionUIDialogs(t *testing.T) {
	confirm := func(ctx context.Context, u hooks.UI) dialogResult {
		ok, err := u.Confirm(ctx, "Clear session?", "All messages will be lost.")
		return dialogResult{ok: ok, err: err}
	}
	sel := func(ctx context.Context, u hooks.UI) dialogResult {
		v, ok, err := u.Select(ctx, "Allow dangerous command?", []string{"Allow", "Block"})
		return dialogResult{v, ok, err}
	}
	input := func(ctx context.Context, u hooks.UI) dialogResult {
		v, ok, err := u.Input(ctx, "Enter a value", "type something...")
		return dialogResult{v, ok, err}
	}
	editor := func(ctx context.Context, u hooks.UI) dialogResult {
		v, ok, err := u.Editor(ctx, "Edit some text", "Line 1\nLine 2\nLine 3")
		return dialogResult{v, ok, err}
	}
	tests := []struct {
		name    string
		call    func(context.Context, hooks.UI) dialogResult
		timeout time.Duration
		answer  string // the response line, %ID% replaced by the request's id
		want    dialogResult
	}{
		{"confirm_yes", confirm, 5 * time.Second, `{"type":"extension_ui_response","id":"%ID%","confirmed":true}`, dialogResult{ok: true}},
		{"confirm_no", confirm, 0, `{"type":"extension_ui_response","id":"%ID%","confirmed":false}`, dialogResult{}},
		{"confirm_cancelled", confirm, 0, `{"type":"extension_ui_response","id":"%ID%","cancelled":true}`, dialogResult{}},
		{"confirm_value", confirm, 0, `{"type":"extension_ui_response","id":"%ID%","value":true}`, dialogResult{ok: true}},
		{"select_value", sel, 10 * time.Second, `{"type":"extension_ui_response","id":"%ID%","value":"Allow"}`, dialogResult{value: "Allow", ok: true}},
		{"select_cancelled", sel, 0, `{"type":"extension_ui_response","id":"%ID%","cancelled":true}`, dialogResult{}},
		{"select_null", sel, 0, `{"type":"extension_ui_response","id":"%ID%","value":null}`, dialogResult{}},
		{"input_value", input, 0, `{"type":"extension_ui_response","id":"%ID%","value":"typed"}`, dialogResult{value: "typed", ok: true}},
		{"input_empty", input, 0, `{"type":"extension_ui_response","id":"%ID%","value":""}`, dialogResult{value: "", ok: true}},
		{"input_cancelled", input, 0, `{"type":"extension_ui_response","id":"%ID%","cancelled":true}`, dialogResult{}},
		{"editor_value", editor, 0, `{"type":"extension_ui_response","id":"%ID%","value":"Line 1\nchanged"}`, dialogResult{value: "Line 1\nchanged", ok: true}},
		{"editor_cancelled", editor, 0, `{"type":"extension_ui_response","id":"%ID%","cancelled":true}`, dialogResult{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newUIConn(t)
			ctx, cancel := hooks.WithDialogTimeout(context.Background(), tt.timeout)
			defer cancel()
			done := make(chan dialogResult, 1)
			go func() { done <- tt.call(ctx, c.ui) }()
			req := c.next(t)
			goldenLines(t, tt.name, []string{req})
			// An answer to another id is ignored and produces nothing.
			c.s.handle([]byte(`{"type":"extension_ui_response","id":"not-pending","confirmed":true}`))
			c.s.handle([]byte(strings.ReplaceAll(tt.answer, "%ID%", "ui-1")))
			var got dialogResult
			select {
			case got = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("dialog did not return")
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			// A second answer to the same id is ignored too.
			c.s.handle([]byte(strings.ReplaceAll(tt.answer, "%ID%", "ui-1")))
			c.none(t)
		})
	}
}

// A dialog whose timeout expires resolves by itself with ctx's error (the
// caller's default); the client's late answer is ignored.
func TestExtensionUIDialogTimeout(t *testing.T) {
	calls := map[string]func(context.Context, hooks.UI) error{
		"select": func(ctx context.Context, u hooks.UI) error {
			_, _, err := u.Select(ctx, "t", []string{"a"})
			return err
		},
		"confirm": func(ctx context.Context, u hooks.UI) error { _, err := u.Confirm(ctx, "t", "m"); return err },
		"input":   func(ctx context.Context, u hooks.UI) error { _, _, err := u.Input(ctx, "t", ""); return err },
		"editor":  func(ctx context.Context, u hooks.UI) error { _, _, err := u.Editor(ctx, "t", ""); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			c := newUIConn(t)
			ctx, cancel := hooks.WithDialogTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- call(ctx, c.ui) }()
			if req := c.next(t); !strings.Contains(req, `"timeout":50`) {
				t.Errorf("request without its timeout: %s", req)
			}
			select {
			case err := <-done:
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("err = %v, want DeadlineExceeded", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("timed-out dialog did not return")
			}
			c.s.handle([]byte(`{"type":"extension_ui_response","id":"ui-1","value":"late"}`))
			c.s.mu.Lock()
			n := len(c.s.pending)
			c.s.mu.Unlock()
			if n != 0 {
				t.Errorf("%d dialogs still pending", n)
			}
			c.none(t)
		})
	}
}

// An aborted dialog (the extension's AbortSignal) returns at once with the
// cancellation, and an already cancelled one is not even asked.
func TestExtensionUIDialogAbort(t *testing.T) {
	c := newUIConn(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, _, err := c.ui.Select(ctx, "t", []string{"a"}); done <- err }()
	c.next(t)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want Canceled", err)
	}
	if _, _, err := c.ui.Input(ctx, "t", ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want Canceled", err)
	}
	c.none(t)
}

// Closing stdin resolves open dialogs as cancelled, and later ones at once.
func TestExtensionUIDialogStdinClosed(t *testing.T) {
	c := newUIConn(t)
	done := make(chan dialogResult, 1)
	go func() {
		v, ok, err := c.ui.Select(context.Background(), "t", []string{"a"})
		done <- dialogResult{v, ok, err}
	}()
	c.next(t)
	c.s.shutdownDialogs()
	if got := <-done; got != (dialogResult{}) {
		t.Fatalf("open dialog: got %+v, want cancelled", got)
	}
	if ok, err := c.ui.Confirm(context.Background(), "t", "m"); ok || err != nil {
		t.Fatalf("confirm after close: %v, %v", ok, err)
	}
	c.none(t)
}

func TestExtensionUIFireAndForget(t *testing.T) {
	tests := []struct {
		name string
		call func(hooks.UI)
	}{
		{"notify_default", func(u hooks.UI) { u.Notify("", "Command blocked by user") }},
		{"notify_warning", func(u hooks.UI) { u.Notify(hooks.LevelWarning, "Command blocked by user") }},
		{"status_set", func(u hooks.UI) { u.SetStatus("my-ext", "Turn 3 running...") }},
		{"status_clear", func(u hooks.UI) { u.SetStatus("my-ext", "") }},
		{"widget_above", func(u hooks.UI) {
			u.SetWidget("my-ext", &hooks.Widget{Lines: []string{"--- My Widget ---", "Line 1", "Line 2"}, Placement: hooks.PlaceAboveEditor})
		}},
		{"widget_below", func(u hooks.UI) {
			u.SetWidget("my-ext", &hooks.Widget{Lines: []string{"x"}, Placement: hooks.PlaceBelowEditor})
		}},
		{"widget_default_placement", func(u hooks.UI) { u.SetWidget("my-ext", &hooks.Widget{Lines: []string{"x"}}) }},
		{"widget_empty", func(u hooks.UI) { u.SetWidget("my-ext", &hooks.Widget{Lines: []string{}}) }},
		{"widget_clear", func(u hooks.UI) { u.SetWidget("my-ext", nil) }},
		{"title", func(u hooks.UI) { u.SetTitle("relay - my project") }},
		{"editor_text", func(u hooks.UI) { u.SetEditorText("prefilled text for the user") }},
		{"paste_to_editor", func(u hooks.UI) { u.PasteToEditor("pasted") }},
		{"many", func(u hooks.UI) {
			u.Notify(hooks.LevelError, "one")
			u.SetStatus("a", "two")
			u.SetTitle("three")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newUIConn(t)
			tt.call(c.ui)
			c.ui.SetTitle("end")
			var got []string
			for {
				l := c.next(t)
				if strings.Contains(l, `"title":"end"`) {
					break
				}
				got = append(got, l)
			}
			goldenLines(t, tt.name, got)
		})
	}
}

// What needs a terminal has the documented RPC defaults and writes
// nothing.
func TestExtensionUIRPCDefaults(t *testing.T) {
	c := newUIConn(t)
	u := c.ui
	if err := u.Custom(context.Background(), nil, hooks.CustomOptions{}); !errors.Is(err, hooks.ErrUnsupported) {
		t.Errorf("Custom = %v, want ErrUnsupported", err)
	}
	if err := u.SetTheme("dark"); err == nil || err.Error() != "Theme switching not supported in RPC mode" {
		t.Errorf("SetTheme = %v", err)
	}
	if u.EditorText() != "" || u.ToolsExpanded() || len(u.Themes()) != 0 {
		t.Error("editor text, tools expanded or themes not empty")
	}
	u.SetWidget("comp", &hooks.Widget{Component: nil}) // a component-only widget: ignored
	u.SetFooter(nil)
	u.SetHeader(nil)
	u.SetWorkingMessage("x")
	u.SetWorkingVisible(false)
	u.SetWorkingIndicator(&hooks.WorkingIndicator{})
	u.SetHiddenThinkingLabel("x")
	u.SetEditorComponent(nil)
	u.OnTerminalInput(func(d string) (string, bool) { return d, false })()
	c.none(t)
}
