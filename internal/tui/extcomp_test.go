package tui_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/tui"
	"github.com/relay-agent/relay/internal/tui/tuitest"
)

func customAsync(a *tui.Approver, ctx context.Context, c hooks.Component, o hooks.CustomOptions) chan error {
	ch := make(chan error, 1)
	go func() { ch <- a.Custom(ctx, c, o) }()
	return ch
}

func waitErr(t *testing.T, d *tuitest.Driver, ch chan error) error {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		select {
		case err := <-ch:
			return err
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("Custom did not return")
		}
		d.Settle()
	}
}

// An inline custom component takes the editor's place and the keys until
// its caller ends it (the extension's done()); then the editor is back and
// the component is disposed.
func TestExtCustomInline(t *testing.T) {
	for _, fullscreen := range []bool{false, true} {
		t.Run(fmt.Sprintf("fullscreen=%v", fullscreen), func(t *testing.T) {
			f, d, a := startUI(t, fullscreen)
			comp := newFakeComp("picker")
			ctx, done := context.WithCancel(context.Background())
			go func() { <-comp.done; done() }() // the component calls done on Enter
			ch := customAsync(a, ctx, comp, hooks.CustomOptions{})
			eventually(t, d, "component shown", contains("[picker]"))
			if fr := d.Frame(); strings.Count(fr, "────") != 0 {
				t.Errorf("editor rules still drawn under an inline component:\n%s", fr)
			}
			d.Type("ab")
			d.Press("up", "ctrl+c", "escape")
			eventually(t, d, "keys rendered", contains(`keys:"a","b","\x1b[A","\x03","\x1b"`))
			if keys, focused, _ := comp.state(); !focused || len(keys) != 5 {
				t.Fatalf("focused=%v keys=%v", focused, keys)
			}
			if slices.ContainsFunc(f.CallLog(), func(c string) bool { return strings.HasPrefix(c, "Abort") }) {
				t.Errorf("escape reached the app while the component had the keys: %v", f.CallLog())
			}
			d.Press("enter")
			if err := waitErr(t, d, ch); err != nil {
				t.Fatalf("Custom = %v", err)
			}
			eventually(t, d, "editor back", lacks("[picker]"))
			if _, _, disposed := comp.state(); !disposed {
				// Dispose runs off the loop: wait for it.
				deadline := time.Now().Add(5 * time.Second)
				for !disposed && time.Now().Before(deadline) {
					d.Settle()
					_, _, disposed = comp.state()
				}
				if !disposed {
					t.Error("component not disposed")
				}
			}
			d.Type("hi")
			d.Press("enter")
			if !hasCall(f, "Prompt hi") {
				t.Errorf("editor did not get the keys back: %v", f.CallLog())
			}
		})
	}
}

// An overlay draws over the screen at its anchor; it has the keys unless
// it is non-capturing or unfocused through its handle; hidden overlays are
// not drawn and do not take keys.
func TestExtCustomOverlay(t *testing.T) {
	for _, fullscreen := range []bool{false, true} {
		t.Run(fmt.Sprintf("fullscreen=%v", fullscreen), func(t *testing.T) { testOverlay(t, fullscreen) })
	}
}

func testOverlay(t *testing.T, fullscreen bool) {
	_, d, a := startUI(t, fullscreen)
	comp := newFakeComp("overlay")
	ctx, done := context.WithCancel(context.Background())
	defer done()
	handles := make(chan hooks.OverlayHandle, 1)
	ch := customAsync(a, ctx, comp, hooks.CustomOptions{Overlay: true,
		OverlayOptions: hooks.OverlayOptions{Anchor: hooks.AnchorTopRight, Width: hooks.Size{Value: 20}, Margin: hooks.Margin{Top: 1}},
		OnHandle:       func(h hooks.OverlayHandle) { handles <- h }})
	fr := eventually(t, d, "overlay drawn", contains("[overlay]"))
	lines := strings.Split(fr, "\n")
	if !strings.HasPrefix(lines[1][strings.Index(lines[1], "[overlay]"):], "[overlay]") || strings.Index(lines[1], "[overlay]") < 40 {
		t.Errorf("overlay not at the top right (row 1, col 50):\n%s", fr)
	}
	if !strings.Contains(fr, "────") {
		t.Errorf("the screen under the overlay is gone:\n%s", fr)
	}
	comp.mu.Lock()
	widths := slices.Clone(comp.widths)
	comp.mu.Unlock()
	if len(widths) == 0 || widths[0] != 20 {
		t.Errorf("rendered at widths %v, want 20", widths)
	}
	d.Type("x")
	eventually(t, d, "overlay got the key", contains(`keys:"x"`))
	h := <-handles
	h.Unfocus()
	eventually(t, d, "unfocused", func(string) bool { return !h.Focused() })
	d.Type("typed")
	eventually(t, d, "editor has the keys", contains("typed"))
	if keys, focused, _ := comp.state(); len(keys) != 1 || focused {
		t.Errorf("unfocused overlay: keys=%v focused=%v", keys, focused)
	}
	h.Focus()
	h.SetHidden(true)
	eventually(t, d, "hidden", lacks("[overlay]"))
	d.Type("z")
	if keys, _, _ := comp.state(); len(keys) != 1 {
		t.Errorf("hidden overlay took keys: %v", keys)
	}
	h.SetHidden(false)
	eventually(t, d, "shown again", contains("[overlay]"))
	done()
	if err := waitErr(t, d, ch); err != nil {
		t.Fatalf("Custom = %v", err)
	}
	eventually(t, d, "overlay gone", lacks("[overlay]"))
}

func TestExtCustomNonCapturingAndTooSmall(t *testing.T) {
	_, d, a := startUI(t, true)
	ctx, done := context.WithCancel(context.Background())
	defer done()
	// A capturing overlay has the keys; a non-capturing one shown over it
	// leaves them there.
	main := newFakeComp("main")
	chMain := customAsync(a, ctx, main, hooks.CustomOptions{Overlay: true, OverlayOptions: hooks.OverlayOptions{Anchor: hooks.AnchorTopLeft, Width: hooks.Size{Value: 20}}})
	eventually(t, d, "main drawn", contains("[main]"))
	tip := newFakeComp("tip")
	ch := customAsync(a, ctx, tip, hooks.CustomOptions{Overlay: true,
		OverlayOptions: hooks.OverlayOptions{NonCapturing: true, Anchor: hooks.AnchorBottomLeft, Width: hooks.Size{Value: 50, Percent: true}}})
	eventually(t, d, "tip drawn", contains("[tip]"))
	d.Type("q")
	eventually(t, d, "main got the key", contains(`keys:"q"`))
	if keys, focused, _ := tip.state(); len(keys) != 0 || focused {
		t.Errorf("non-capturing overlay: keys %v, focused %v", keys, focused)
	}
	if _, focused, _ := main.state(); !focused {
		t.Error("the capturing overlay lost focus to a non-capturing one")
	}
	big := newFakeComp("needs-room")
	ch2 := customAsync(a, ctx, big, hooks.CustomOptions{Overlay: true, OverlayOptions: hooks.OverlayOptions{MinTermWidth: 200}})
	d.Settle()
	d.Settle()
	if strings.Contains(d.Frame(), "[needs-room]") {
		t.Error("overlay drawn on a screen narrower than MinTermWidth")
	}
	done()
	for _, c := range []chan error{chMain, ch, ch2} {
		if err := waitErr(t, d, c); err != nil {
			t.Error(err)
		}
	}
}

// Widgets, status entries, footer, header, title and the working row.
func TestExtChrome(t *testing.T) {
	f, d, a := startUI(t, true)
	a.SetWidget("w1", &hooks.Widget{Lines: []string{"ABOVE-ONE", "ABOVE-TWO"}})
	a.SetWidget("w2", &hooks.Widget{Lines: []string{"BELOW"}, Placement: hooks.PlaceBelowEditor})
	a.SetStatus("b-ext", "status-b")
	a.SetStatus("a-ext", "status-a")
	fr := eventually(t, d, "widgets", contains("BELOW"))
	above, rule, below := strings.Index(fr, "ABOVE-TWO"), strings.Index(fr, "────"), strings.Index(fr, "BELOW")
	if above < 0 || above > rule || below < rule {
		t.Errorf("widget placement wrong:\n%s", fr)
	}
	if i, j := strings.Index(fr, "status-a"), strings.Index(fr, "status-b"); i < 0 || j < i {
		t.Errorf("status entries not shown in key order:\n%s", fr)
	}
	a.SetStatus("a-ext", "")
	a.SetWidget("w1", nil)
	eventually(t, d, "cleared", func(fr string) bool { return !strings.Contains(fr, "status-a") && !strings.Contains(fr, "ABOVE-ONE") })

	wc := newFakeComp("live-widget")
	a.SetWidget("w3", &hooks.Widget{Component: wc})
	eventually(t, d, "component widget", contains("[live-widget]"))
	a.SetWidget("w3", nil)
	eventually(t, d, "component widget gone", lacks("[live-widget]"))

	foot := newFakeComp("my-footer")
	a.SetFooter(foot)
	fr = eventually(t, d, "footer", contains("[my-footer]"))
	if strings.Contains(fr, "/work/project") || strings.Contains(fr, "status-b") {
		t.Errorf("built-in footer still drawn:\n%s", fr)
	}
	a.SetFooter(nil)
	eventually(t, d, "footer restored", contains("/work/project"))

	head := newFakeComp("my-header")
	a.SetHeader(head)
	fr = eventually(t, d, "header", contains("[my-header]"))
	if strings.Index(fr, "[my-header]") > strings.Index(fr, "relay test") {
		t.Errorf("header not above the conversation:\n%s", fr)
	}

	a.SetTitle("relay - my project")
	eventually(t, d, "title", func(string) bool { return d.M.View().WindowTitle == "relay - my project" })

	// The working row while a prompt runs.
	f.Block = make(chan struct{})
	a.SetWorkingMessage("Crunching")
	a.SetWorkingIndicator(&hooks.WorkingIndicator{Frames: []string{"●"}})
	d.Type("go")
	d.Press("enter")
	eventually(t, d, "custom working row", contains("● Crunching"))
	a.SetWorkingIndicator(&hooks.WorkingIndicator{})
	eventually(t, d, "indicator hidden", func(fr string) bool {
		return strings.Contains(fr, "Crunching") && !strings.Contains(fr, "● Crunching")
	})
	a.SetWorkingVisible(false)
	eventually(t, d, "working row hidden", lacks("Crunching"))
	a.SetWorkingVisible(true)
	a.SetWorkingMessage("")
	a.SetWorkingIndicator(nil)
	eventually(t, d, "default working row", contains("Working…"))
	close(f.Block)
}

// A replacement editor gets the keys and draws itself; Submit sends a
// prompt, AppKey runs relay's keybinding, SetEditorText and EditorText
// reach it.
func TestExtEditorComponent(t *testing.T) {
	f, d, a := startUI(t, false)
	d.Type("draft")
	eventually(t, d, "mirror", func(string) bool { return a.EditorText() == "draft" })
	ed := newFakeComp("vim")
	a.SetEditorComponent(ed)
	fr := eventually(t, d, "editor drawn", contains("[vim]"))
	if !strings.Contains(fr, "text:draft") {
		t.Errorf("replacement editor did not get the draft:\n%s", fr)
	}
	if a.EditorText() != "draft" {
		t.Errorf("EditorText = %q", a.EditorText())
	}
	d.Type("i")
	d.Press("escape")
	eventually(t, d, "keys forwarded", contains(`keys:"i","\x1b"`))
	a.SetEditorText("replaced")
	eventually(t, d, "text set", contains("text:replaced"))
	ed.mu.Lock()
	surf := ed.surf.(hooks.EditorSurface)
	ed.mu.Unlock()
	surf.Submit("from vim")
	eventually(t, d, "submitted", func(string) bool { return hasCall(f, "Prompt from vim") })
	handled := make(chan bool, 1)
	go func() { handled <- surf.AppKey("\x0f") }() // ctrl+o: expand tools
	var ok bool
	eventually(t, d, "app key", func(string) bool {
		select {
		case ok = <-handled:
			return true
		default:
			return false
		}
	})
	if !ok || !a.ToolsExpanded() {
		t.Errorf("AppKey(ctrl+o) = %v, tools expanded %v", ok, a.ToolsExpanded())
	}
	go func() { handled <- surf.AppKey("q") }()
	eventually(t, d, "unbound key", func(string) bool {
		select {
		case ok = <-handled:
			return true
		default:
			return false
		}
	})
	if ok {
		t.Error("AppKey(q) reported handled")
	}
	a.SetEditorComponent(nil)
	eventually(t, d, "built-in editor back", lacks("[vim]"))
	d.Type("x")
	// The replacement's draft came back with the built-in editor.
	eventually(t, d, "typing reaches the editor", func(string) bool { return a.EditorText() == "replacedx" })
}

func TestExtTerminalInputAndEditorAccess(t *testing.T) {
	_, d, a := startUI(t, false)
	unsub := a.OnTerminalInput(func(data string) (string, bool) {
		switch data {
		case "x":
			return data, true
		case "a":
			return "b", false
		}
		return data, false
	})
	d.Type("xaxc")
	eventually(t, d, "listener applied", func(string) bool { return a.EditorText() == "bc" })
	unsub()
	d.Type("x")
	eventually(t, d, "listener gone", func(string) bool { return a.EditorText() == "bcx" })
	a.SetEditorText("set")
	eventually(t, d, "set", func(string) bool { return a.EditorText() == "set" })
	a.PasteToEditor(" pasted")
	eventually(t, d, "pasted", func(string) bool { return a.EditorText() == "set pasted" })
}

func TestExtThemeAndTools(t *testing.T) {
	_, d, a := startUI(t, true)
	th := a.Theme()
	if th.Name != "dark" || th.Fg["accent"] == "" || th.FgEnd["accent"] == "" || th.Bg["selectedBg"] == "" {
		t.Fatalf("theme not published: %+v", th.Name)
	}
	if refs := a.Themes(); !slices.ContainsFunc(refs, func(r hooks.ThemeRef) bool { return r.Name == "light" }) {
		t.Errorf("themes = %v", refs)
	}
	errc := make(chan error, 1)
	go func() { errc <- a.SetTheme("light") }()
	var err error
	eventually(t, d, "theme switched", func(string) bool {
		select {
		case err = <-errc:
			return true
		default:
			return false
		}
	})
	if err != nil || a.Theme().Name != "light" {
		t.Fatalf("SetTheme(light) = %v, theme %q", err, a.Theme().Name)
	}
	go func() { errc <- a.SetTheme("no-such-theme") }()
	eventually(t, d, "bad theme", func(string) bool {
		select {
		case err = <-errc:
			return true
		default:
			return false
		}
	})
	if err == nil || !strings.Contains(err.Error(), "no-such-theme") {
		t.Errorf("SetTheme(no-such-theme) = %v", err)
	}
	a.SetToolsExpanded(true)
	eventually(t, d, "expanded", func(string) bool { return a.ToolsExpanded() })
	a.Notify(hooks.LevelError, "it broke")
	a.Notify(hooks.LevelWarning, "careful")
	a.Notify("", "fyi")
	eventually(t, d, "notices", func(fr string) bool {
		return strings.Contains(fr, "it broke") && strings.Contains(fr, "Warning: careful") && strings.Contains(fr, "fyi")
	})
}

// A component whose render fails shows the error instead of hanging the
// screen; one that is done before it shows is never drawn.
func TestExtCustomRenderErrorAndEarlyDone(t *testing.T) {
	_, d, a := startUI(t, false)
	ctx, done := context.WithCancel(context.Background())
	ch := customAsync(a, ctx, failing{}, hooks.CustomOptions{})
	eventually(t, d, "error shown", contains("component error: host gone"))
	done()
	if err := waitErr(t, d, ch); err != nil {
		t.Fatal(err)
	}
	eventually(t, d, "editor back", contains("────"))
	if err := a.Custom(ctx, newFakeComp("late"), hooks.CustomOptions{}); err != nil {
		t.Fatalf("Custom with a done ctx = %v", err)
	}
}

type failing struct{}

func (failing) Attach(hooks.Surface) {}
func (failing) Render(context.Context, int) ([]string, error) {
	return nil, errors.New("host gone")
}
func (failing) HandleInput(string) {}
func (failing) SetFocused(bool)    {}
func (failing) Dispose()           {}
