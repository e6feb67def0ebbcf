package tui_test

import (
	"context"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/tui"
	"github.com/relay-agent/relay/internal/tui/tuitest"
)

func TestHarnessNoticesAreTransient(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen = true
	m := tui.New(context.Background(), f, o)
	d := tuitest.NewDriver(m, 90, 16)
	m.Notify("Harness: refused `rm -rf build` (recursive delete)")
	d.Settle()
	if fr := d.Frame(); !strings.Contains(fr, "Harness: refused `rm -rf build`") {
		t.Fatalf("notice not shown:\n%s", fr)
	}
	d.Send(tui.NoticeExpireMsg(m))
	if fr := d.Frame(); strings.Contains(fr, "Harness: refused") {
		t.Fatalf("notice did not expire:\n%s", fr)
	}
	// A completion warning also stays in the transcript.
	m.Notify("Harness: completion reported without evidence (unverified).")
	d.Settle()
	d.Send(tui.NoticeExpireMsg(m))
	if fr := d.Frame(); !strings.Contains(fr, "completion reported without evidence") {
		t.Fatalf("completion warning not kept:\n%s", fr)
	}
}

// The "press ctrl+c again" hint leaves when the double-press window ends.
func TestExitHintExpires(t *testing.T) {
	f := tuitest.NewFake()
	m := tui.New(context.Background(), f, opts())
	d := tuitest.NewDriver(m, 60, 12)
	d.Press("ctrl+c")
	if fr := d.Frame(); !strings.Contains(fr, "again to exit") {
		t.Fatalf("hint not shown:\n%s", fr)
	}
	d.Send(tui.NoticeExpireMsg(m))
	if fr := d.Frame(); strings.Contains(fr, "again to exit") {
		t.Fatalf("hint stayed:\n%s", fr)
	}
}
