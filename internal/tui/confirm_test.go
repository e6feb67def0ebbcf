package tui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/tui"
	"github.com/relay-agent/relay/internal/tui/tuitest"
)

type answer struct {
	ok  bool
	err error
}

func ask(ctx context.Context, ap *tui.Approver, title, msg string) chan answer {
	ch := make(chan answer, 1)
	go func() {
		ok, err := ap.Confirm(ctx, title, msg)
		ch <- answer{ok, err}
	}()
	return ch
}

func waitAnswer(t *testing.T, ch chan answer) answer {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(3 * time.Second):
		t.Fatal("Confirm did not return")
	}
	return answer{}
}

func TestApproverDialog(t *testing.T) {
	for _, mode := range []bool{false, true} {
		for _, tc := range []struct {
			key  string
			want bool
		}{{"y", true}, {"enter", true}, {"n", false}, {"escape", false}} {
			f := tuitest.NewFake()
			o := opts()
			o.Fullscreen = mode
			o.Approver = tui.NewApprover()
			d := start(t, f, o, 70, 16)
			ch := ask(context.Background(), o.Approver, "Destructive command", "bash: rm -rf build")
			time.Sleep(20 * time.Millisecond)
			d.Settle()
			fr := d.Frame()
			if !strings.Contains(fr, "Destructive command") || !strings.Contains(fr, "rm -rf build") || !strings.Contains(fr, "y allow · n refuse") {
				t.Fatalf("fullscreen=%v: dialog not shown:\n%s", mode, fr)
			}
			d.Press(tc.key)
			a := waitAnswer(t, ch)
			if a.err != nil || a.ok != tc.want {
				t.Errorf("fullscreen=%v key %s: got %v %v, want %v", mode, tc.key, a.ok, a.err, tc.want)
			}
			if strings.Contains(d.Frame(), "y allow · n refuse") {
				t.Errorf("dialog still open after %s", tc.key)
			}
		}
	}
}

func TestApproverQueuesAndDropsAborted(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Approver = tui.NewApprover()
	d := start(t, f, o, 70, 16)
	ctx, cancel := context.WithCancel(context.Background())
	first := ask(ctx, o.Approver, "First question", "one")
	time.Sleep(20 * time.Millisecond)
	d.Settle()
	second := ask(context.Background(), o.Approver, "Second question", "two")
	time.Sleep(20 * time.Millisecond)
	d.Settle()
	if fr := d.Frame(); !strings.Contains(fr, "First question") || strings.Contains(fr, "Second question") {
		t.Fatalf("want the first question only:\n%s", fr)
	}
	// The run asking the first question is aborted: its dialog goes away
	// and the second one shows.
	cancel()
	if a := waitAnswer(t, first); a.err == nil {
		t.Fatalf("aborted Confirm returned %v", a.ok)
	}
	d.Press("shift+tab") // any message runs Update
	if fr := d.Frame(); !strings.Contains(fr, "Second question") {
		t.Fatalf("second question not shown:\n%s", fr)
	}
	d.Type("y")
	if a := waitAnswer(t, second); !a.ok || a.err != nil {
		t.Fatalf("second: %v %v", a.ok, a.err)
	}
}

func TestApproverAfterUIExit(t *testing.T) {
	ap := tui.NewApprover()
	ap.Close()
	if ok, err := ap.Confirm(context.Background(), "t", "m"); ok || err == nil {
		t.Fatalf("got %v %v", ok, err)
	}
}
