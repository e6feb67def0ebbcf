package commands

import (
	"context"
	"strings"
	"testing"
)

func TestShortcuts(t *testing.T) {
	r := New()
	ran := 0
	off, err := r.RegisterShortcut(Shortcut{Key: "Shift+Ctrl+P", Source: Extension, Run: func(context.Context) error { ran++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	s, ok := r.Shortcut("ctrl+shift+p")
	if !ok || s.Key != "ctrl+shift+p" {
		t.Fatalf("lookup: %+v %v", s, ok)
	}
	_ = s.Run(context.Background())
	if ran != 1 {
		t.Errorf("ran %d", ran)
	}
	if _, err := r.RegisterShortcut(Shortcut{Key: "ctrl+shift+p", Source: Extension}); err == nil || !strings.Contains(err.Error(), "already bound") {
		t.Errorf("duplicate: %v", err)
	}
	if _, err := r.RegisterShortcut(Shortcut{Key: " ", Source: Extension}); err == nil {
		t.Error("empty key accepted")
	}
	off()
	if _, ok := r.Shortcut("ctrl+shift+p"); ok || len(r.Shortcuts()) != 0 {
		t.Error("binding not removed")
	}
}
