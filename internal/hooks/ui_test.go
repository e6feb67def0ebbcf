package hooks

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWithDialogTimeout(t *testing.T) {
	ctx, cancel := WithDialogTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if got := DialogTimeout(ctx); got != 5*time.Second {
		t.Fatalf("DialogTimeout = %v, want 5s", got)
	}
	if _, ok := ctx.Deadline(); !ok {
		t.Fatal("no deadline set")
	}
	plain, cancel2 := WithDialogTimeout(context.Background(), 0)
	defer cancel2()
	if DialogTimeout(plain) != 0 {
		t.Fatal("zero timeout recorded")
	}
	if _, ok := plain.Deadline(); ok {
		t.Fatal("zero timeout set a deadline")
	}
	// An expired timeout ends the context with DeadlineExceeded, which the
	// dialogs return and callers turn into the default answer.
	short, cancel3 := WithDialogTimeout(context.Background(), time.Nanosecond)
	defer cancel3()
	<-short.Done()
	if !errors.Is(short.Err(), context.DeadlineExceeded) {
		t.Fatalf("err = %v", short.Err())
	}
}

func TestHeadlessDefaults(t *testing.T) {
	var u UI = Headless{}
	ctx := context.Background()
	if ok, err := u.Confirm(ctx, "t", "m"); ok || err != nil {
		t.Errorf("Confirm = %v, %v", ok, err)
	}
	if v, ok, err := u.Select(ctx, "t", []string{"a"}); v != "" || ok || err != nil {
		t.Errorf("Select = %q, %v, %v", v, ok, err)
	}
	if v, ok, err := u.Input(ctx, "t", "p"); v != "" || ok || err != nil {
		t.Errorf("Input = %q, %v, %v", v, ok, err)
	}
	if v, ok, err := u.Editor(ctx, "t", "x"); v != "" || ok || err != nil {
		t.Errorf("Editor = %q, %v, %v", v, ok, err)
	}
	if err := u.Custom(ctx, nil, CustomOptions{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Custom = %v", err)
	}
	if u.EditorText() != "" || u.ToolsExpanded() {
		t.Error("editor text or tools expanded not empty")
	}
	if u.SetTheme("dark") == nil {
		t.Error("SetTheme succeeded headless")
	}
}

func TestSizeCells(t *testing.T) {
	tests := []struct {
		s    Size
		ref  int
		want int
		ok   bool
	}{
		{Size{}, 80, 0, false},
		{Size{Value: 30}, 80, 30, true},
		{Size{Value: 50, Percent: true}, 81, 40, true},
	}
	for _, tt := range tests {
		got, ok := tt.s.Cells(tt.ref)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%+v.Cells(%d) = %d, %v; want %d, %v", tt.s, tt.ref, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBindUI(t *testing.T) {
	s := New()
	if s.UI() != nil {
		t.Fatal("UI bound at start")
	}
	unbind := s.BindUI(Headless{})
	if s.UI() == nil {
		t.Fatal("UI not bound")
	}
	inner := s.BindUI(Headless{})
	unbind() // a stale unbind leaves the newer UI
	if s.UI() == nil {
		t.Fatal("stale unbind removed the newer UI")
	}
	inner()
	if s.UI() != nil {
		t.Fatal("UI still bound")
	}
}
