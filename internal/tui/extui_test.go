package tui_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/tui"
	"github.com/relay-agent/relay/internal/tui/tuitest"
)

// fakeComp is a hooks.Component living "elsewhere", as the extension host's
// components do: it draws a box naming itself and the keys it received,
// asks for a render after each key, and reports done on Enter.
type fakeComp struct {
	name string
	mu   sync.Mutex
	surf hooks.Surface
	keys []string
	// text is the replacement editor's text.
	text     string
	focused  bool
	disposed bool
	widths   []int
	done     chan struct{} // closed on Enter
	doneOnce sync.Once
	cursor   bool // put hooks.CursorMarker after the keys line
}

func newFakeComp(name string) *fakeComp { return &fakeComp{name: name, done: make(chan struct{})} }

func (f *fakeComp) Attach(s hooks.Surface) { f.mu.Lock(); f.surf = s; f.mu.Unlock() }

func (f *fakeComp) Render(_ context.Context, width int) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.widths = append(f.widths, width)
	keys := "keys:" + strings.Join(f.keys, ",")
	if f.cursor {
		keys += hooks.CursorMarker
	}
	lines := []string{"[" + f.name + "]", keys}
	if f.text != "" {
		lines = append(lines, "text:"+f.text)
	}
	return lines, nil
}

func (f *fakeComp) HandleInput(data string) {
	f.mu.Lock()
	f.keys = append(f.keys, fmt.Sprintf("%q", data))
	s := f.surf
	f.mu.Unlock()
	if data == "\r" {
		f.doneOnce.Do(func() { close(f.done) })
	}
	s.RequestRender()
}

func (f *fakeComp) SetFocused(v bool) { f.mu.Lock(); f.focused = v; f.mu.Unlock() }
func (f *fakeComp) Dispose()          { f.mu.Lock(); f.disposed = true; f.mu.Unlock() }
func (f *fakeComp) SetText(s string) {
	f.mu.Lock()
	f.text = s
	s2 := f.surf
	f.mu.Unlock()
	if s2 != nil {
		s2.RequestRender()
	}
}
func (f *fakeComp) Text() string { f.mu.Lock(); defer f.mu.Unlock(); return f.text }

func (f *fakeComp) state() (keys []string, focused, disposed bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.keys), f.focused, f.disposed
}

// eventually settles the UI until cond holds for its frame.
func eventually(t *testing.T, d *tuitest.Driver, what string, cond func(frame string) bool) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		d.Settle()
		fr := d.Frame()
		if cond(fr) {
			return fr
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached; frame:\n%s", what, fr)
		}
	}
}

func contains(s string) func(string) bool {
	return func(fr string) bool { return strings.Contains(fr, s) }
}
func lacks(s string) func(string) bool {
	return func(fr string) bool { return !strings.Contains(fr, s) }
}

type result struct {
	text string
	ok   bool
	err  error
}

func waitResult(t *testing.T, d *tuitest.Driver, ch chan result) result {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		select {
		case r := <-ch:
			return r
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("dialog did not return")
		}
		d.Settle()
	}
}

func startUI(t *testing.T, fullscreen bool) (*tuitest.Fake, *tuitest.Driver, *tui.Approver) {
	t.Helper()
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen = fullscreen
	o.Approver = tui.NewApprover()
	t.Cleanup(o.Approver.Close)
	d := start(t, f, o, 70, 20)
	return f, d, o.Approver
}

func TestExtDialogs(t *testing.T) {
	sel := func(ctx context.Context, a *tui.Approver) result {
		v, ok, err := a.Select(ctx, "Pick a colour", []string{"red", "green", "blue"})
		return result{v, ok, err}
	}
	input := func(ctx context.Context, a *tui.Approver) result {
		v, ok, err := a.Input(ctx, "Your name", "type it")
		return result{v, ok, err}
	}
	edit := func(ctx context.Context, a *tui.Approver) result {
		v, ok, err := a.Editor(ctx, "Edit the note", "first line")
		return result{v, ok, err}
	}
	confirm := func(ctx context.Context, a *tui.Approver) result {
		ok, err := a.Confirm(ctx, "Proceed?", "It will run.")
		return result{ok: ok, err: err}
	}
	tests := []struct {
		name  string
		call  func(context.Context, *tui.Approver) result
		shown []string
		act   func(d *tuitest.Driver)
		want  result
	}{
		{"select first", sel, []string{"Pick a colour", "red", "blue"}, func(d *tuitest.Driver) { d.Press("enter") }, result{"red", true, nil}},
		{"select moved", sel, []string{"green"}, func(d *tuitest.Driver) { d.Press("down", "down", "enter") }, result{"blue", true, nil}},
		{"select filtered", sel, []string{"red"}, func(d *tuitest.Driver) { d.Type("gre"); d.Press("enter") }, result{"green", true, nil}},
		{"select cancelled", sel, []string{"red"}, func(d *tuitest.Driver) { d.Press("escape") }, result{}},
		{"input typed", input, []string{"Your name", "type it"}, func(d *tuitest.Driver) { d.Type("Ada"); d.Press("enter") }, result{"Ada", true, nil}},
		{"input empty", input, []string{"Your name"}, func(d *tuitest.Driver) { d.Press("enter") }, result{"", true, nil}},
		{"input cancelled", input, []string{"Your name"}, func(d *tuitest.Driver) { d.Type("x"); d.Press("escape") }, result{}},
		{"editor prefilled", edit, []string{"Edit the note", "first line"}, func(d *tuitest.Driver) {
			d.Press("shift+enter")
			d.Type("second")
			d.Press("enter")
		}, result{"first line\nsecond", true, nil}},
		{"editor cancelled", edit, []string{"first line"}, func(d *tuitest.Driver) { d.Press("escape") }, result{}},
		{"confirm yes", confirm, []string{"Proceed?", "It will run."}, func(d *tuitest.Driver) { d.Type("y") }, result{ok: true}},
		{"confirm escape", confirm, []string{"Proceed?"}, func(d *tuitest.Driver) { d.Press("escape") }, result{}},
	}
	for _, fullscreen := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/fullscreen=%v", tt.name, fullscreen), func(t *testing.T) {
				_, d, a := startUI(t, fullscreen)
				ch := make(chan result, 1)
				go func() { ch <- tt.call(context.Background(), a) }()
				for _, s := range tt.shown {
					eventually(t, d, "dialog shows "+s, contains(s))
				}
				tt.act(d)
				if got := waitResult(t, d, ch); got != tt.want {
					t.Errorf("got %+v, want %+v", got, tt.want)
				}
				gone := tt.shown[0]
				if strings.HasPrefix(tt.name, "confirm") {
					gone = "y allow" // the title stays in the status line
				}
				eventually(t, d, "dialog closed", lacks(gone))
			})
		}
	}
}

// A dialog's timeout and its caller's abort close it by themselves; the
// caller gets ctx's error (and answers the default).
func TestExtDialogTimeoutAndAbort(t *testing.T) {
	calls := map[string]func(context.Context, *tui.Approver) error{
		"select": func(ctx context.Context, a *tui.Approver) error {
			_, _, err := a.Select(ctx, "Q title", []string{"a"})
			return err
		},
		"input": func(ctx context.Context, a *tui.Approver) error { _, _, err := a.Input(ctx, "Q title", ""); return err },
		"editor": func(ctx context.Context, a *tui.Approver) error {
			_, _, err := a.Editor(ctx, "Q title", "")
			return err
		},
		"confirm": func(ctx context.Context, a *tui.Approver) error { _, err := a.Confirm(ctx, "Q title", "m"); return err },
	}
	for name, call := range calls {
		t.Run(name+"/timeout", func(t *testing.T) {
			_, d, a := startUI(t, false)
			ctx, cancel := hooks.WithDialogTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ch := make(chan error, 1)
			go func() { ch <- call(ctx, a) }()
			// The time left is shown next to the title.
			eventually(t, d, "countdown", func(fr string) bool { return strings.Contains(fr, "Q title (") && strings.Contains(fr, "s)") })
			cancel() // stands for the deadline passing
			if err := <-ch; !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v", err)
			}
			eventually(t, d, "dialog closed", lacks("Q title"))
		})
		t.Run(name+"/deadline", func(t *testing.T) {
			_, d, a := startUI(t, false)
			ctx, cancel := hooks.WithDialogTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			ch := make(chan error, 1)
			go func() { ch <- call(ctx, a) }()
			var err error
			select {
			case err = <-ch:
			case <-time.After(5 * time.Second):
				t.Fatal("timed-out dialog did not return")
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v", err)
			}
			eventually(t, d, "dialog closed", lacks("Q title"))
		})
	}
}

func TestExtDialogsQueueAndUIClosed(t *testing.T) {
	_, d, a := startUI(t, false)
	first := make(chan result, 1)
	second := make(chan result, 1)
	go func() {
		v, ok, err := a.Select(context.Background(), "First Q", []string{"one"})
		first <- result{v, ok, err}
	}()
	eventually(t, d, "first", contains("First Q"))
	go func() { v, ok, err := a.Input(context.Background(), "Second Q", ""); second <- result{v, ok, err} }()
	d.Settle()
	if fr := d.Frame(); strings.Contains(fr, "Second Q") {
		t.Fatalf("second dialog shown over the first:\n%s", fr)
	}
	d.Press("enter")
	if r := waitResult(t, d, first); r.text != "one" {
		t.Fatalf("first: %+v", r)
	}
	eventually(t, d, "second", contains("Second Q"))
	a.Close()
	if r := waitResult(t, d, second); !errors.Is(r.err, hooks.ErrUIClosed) {
		t.Fatalf("second after close: %+v", r)
	}
	if _, _, err := a.Select(context.Background(), "t", nil); !errors.Is(err, hooks.ErrUIClosed) {
		t.Fatalf("select after close: %v", err)
	}
	if err := a.Custom(context.Background(), newFakeComp("x"), hooks.CustomOptions{}); !errors.Is(err, hooks.ErrUIClosed) {
		t.Fatalf("custom after close: %v", err)
	}
}

// An extension's shortcut runs when its key is pressed (relay's own
// bindings first) and /hotkeys lists it.
func TestExtensionShortcut(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen = true // the notice stays in the frame
	o.Registry = commands.New()
	ran := make(chan struct{}, 1)
	if _, err := o.Registry.RegisterShortcut(commands.Shortcut{Key: "ctrl+shift+y", Description: "yank the plan", Source: commands.Extension,
		Run: func(context.Context) error { ran <- struct{}{}; return nil }}); err != nil {
		t.Fatal(err)
	}
	d := start(t, f, o, 80, 30)
	d.Press("ctrl+shift+y")
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("the shortcut did not run")
	}
	d.Type("/hotkeys")
	d.Press("enter")
	eventually(t, d, "/hotkeys lists the shortcut", func(fr string) bool {
		return strings.Contains(fr, "ctrl+shift+y") && strings.Contains(fr, "yank the plan")
	})
}

// An extension's command typed in the editor runs (off the loop, with its
// arguments) instead of being sent to the model.
func TestExtensionCommandRuns(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen = true
	o.Registry = commands.New()
	got := make(chan string, 1)
	release := make(chan struct{})
	if err := o.Registry.Register(commands.Command{Name: "deploy", Description: "deploy it", Source: commands.Extension,
		Run: func(_ context.Context, args string) (commands.Output, error) {
			got <- args
			<-release // waits for the person, say: the UI stays live
			return commands.Output{}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	d := start(t, f, o, 80, 30)
	d.Type("/deploy prod now")
	d.Press("enter")
	select {
	case args := <-got:
		if args != "prod now" {
			t.Errorf("args %q", args)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the command did not run")
	}
	d.Type("still typing")
	eventually(t, d, "editor live while the command runs", contains("still typing"))
	close(release)
	if hasCall(f, "Prompt") {
		t.Errorf("the command went to the model: %v", f.CallLog())
	}
}
