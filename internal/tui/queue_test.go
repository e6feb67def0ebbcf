package tui_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/tui"
	"github.com/relay-agent/relay/internal/tui/tuitest"
)

// Escape during a run with messages queued gives them back to the editor,
// ahead of the draft, as alt+up does, and aborts: left queued under an
// idle editor they would go out behind the next unrelated prompt.
func TestEscapeRestoresQueuedMessages(t *testing.T) {
	f := tuitest.NewFake()
	f.Block = make(chan struct{})
	o := opts()
	o.Fullscreen = true
	m := tui.New(context.Background(), f, o)
	t.Cleanup(f.Subscribe(m.Deliver))
	d := tuitest.NewDriver(m, 60, 16)
	d.Type("long task")
	d.Press("enter")
	d.Type("also this")
	d.Press("enter")
	d.Type("later")
	d.Press("alt+enter")
	if !strings.Contains(d.Frame(), "steering: also this") {
		t.Fatalf("queue not shown:\n%s", d.Frame())
	}
	d.Type("draft")
	d.Press("escape")
	d.Settle()
	log := f.CallLog()
	dq, ab := slices.Index(log, "Dequeue"), slices.Index(log, "Abort")
	if dq < 0 || ab < 0 || dq > ab {
		t.Fatalf("want Dequeue before Abort, calls %v", log)
	}
	if got, want := tui.EditorValue(m), "also this\n\nlater\n\ndraft"; got != want {
		t.Errorf("editor = %q, want %q", got, want)
	}
	if strings.Contains(d.Frame(), "steering: also this") {
		t.Errorf("queue still shown:\n%s", d.Frame())
	}
}

// In fullscreen, home and end move the cursor while there is text in the
// editor, instead of scrolling the transcript.
func TestHomeEndMoveCursorWhileTyping(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen = true
	m := tui.New(context.Background(), f, o)
	t.Cleanup(f.Subscribe(m.Deliver))
	d := tuitest.NewDriver(m, 60, 16)
	d.Type("middle")
	d.Press("home")
	d.Type("<")
	d.Press("end")
	d.Type(">")
	if got := tui.EditorValue(m); got != "<middle>" {
		t.Errorf("editor = %q, want <middle>", got)
	}
}

// ctrl+c with the slash-command list open clears the editor (and closes
// the list), as it does without the list.
func TestCtrlCWithCompletionOpenClears(t *testing.T) {
	f := tuitest.NewFake()
	m := tui.New(context.Background(), f, opts())
	t.Cleanup(f.Subscribe(m.Deliver))
	d := tuitest.NewDriver(m, 80, 24)
	d.Type("/mo")
	if !strings.Contains(d.Frame(), "/model") {
		t.Fatalf("no completion list:\n%s", d.Frame())
	}
	d.Press("ctrl+c")
	if got := tui.EditorValue(m); got != "" {
		t.Errorf("editor = %q after ctrl+c, want empty", got)
	}
	if strings.Contains(d.Frame(), "/model") {
		t.Errorf("list still open:\n%s", d.Frame())
	}
}

// A steer that reaches the runtime after its run looked at the queue for
// the last time must not stay queued under an idle editor: the UI sends it
// as the next prompt once the run is over.
func TestSteerAfterRunEndIsSent(t *testing.T) {
	f := tuitest.NewFake()
	f.Block = make(chan struct{})
	o := opts()
	o.Fullscreen = true
	m := tui.New(context.Background(), f, o)
	t.Cleanup(f.Subscribe(m.Deliver))
	d := tuitest.NewDriver(m, 60, 16)
	d.Type("first")
	d.Press("enter")
	d.Type("late steer")
	d.Press("enter") // busy: a steer, which this run will never read
	if !hasCall(f, "Steer late steer") {
		t.Fatalf("calls %v", f.CallLog())
	}
	close(f.Block)
	d.Settle()
	if !hasCall(f, "Prompt late steer") {
		t.Errorf("the stuck steer was not sent: %v\n%s", f.CallLog(), d.Frame())
	}
	if strings.Contains(d.Frame(), "steering: late steer") {
		t.Errorf("still shown as queued:\n%s", d.Frame())
	}
}
