package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/hooks"
)

// project_trust handlers in the TUI ask on the terminal before the TUI
// starts: numbered choices, y/N, one line of input.
func TestLineUI(t *testing.T) {
	var out bytes.Buffer
	u := &lineUI{in: strings.NewReader("2\nyes\n\nmy answer\n7\n"), out: &out}
	ctx := context.Background()
	if c, ok, err := u.Select(ctx, "Trust?", []string{"a", "b"}); err != nil || !ok || c != "b" {
		t.Errorf("select = %q %v %v", c, ok, err)
	}
	if ok, err := u.Confirm(ctx, "Sure?", "really"); err != nil || !ok {
		t.Errorf("confirm yes = %v %v", ok, err)
	}
	if ok, _ := u.Confirm(ctx, "Sure?", ""); ok {
		t.Errorf("an empty answer confirmed")
	}
	if s, ok, err := u.Input(ctx, "Name", "hint"); err != nil || !ok || s != "my answer" {
		t.Errorf("input = %q %v %v", s, ok, err)
	}
	if c, ok, _ := u.Select(ctx, "Pick", []string{"x"}); ok || c != "" {
		t.Errorf("out-of-range choice accepted: %q", c)
	}
	// At the end of input dialogs answer their defaults.
	if s, ok, _ := u.Input(ctx, "More", ""); ok && s != "" {
		t.Errorf("input at EOF = %q", s)
	}
	u.Notify(hooks.LevelWarning, "careful")
	for _, want := range []string{"Trust?\n  1. a\n  2. b\n", "Sure?\nreally\n[y/N]: ", "Name (hint): ", "Not a choice: \"7\"", "warning: careful\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestAddedTo(t *testing.T) {
	for _, tc := range []struct {
		pre, final, extra []string
		ok                bool
	}{
		{pre: nil, final: []string{"/a"}, extra: []string{"/a"}, ok: true},
		{pre: []string{"/u"}, final: []string{"/p", "/u", "/q"}, extra: []string{"/p", "/q"}, ok: true},
		{pre: []string{"/u/"}, final: []string{"/u"}, ok: true},
		{pre: []string{"/u", "/v"}, final: []string{"/u"}, ok: false},
	} {
		extra, ok := addedTo(tc.pre, tc.final)
		if ok != tc.ok || strings.Join(extra, ",") != strings.Join(tc.extra, ",") {
			t.Errorf("addedTo(%v, %v) = %v %v, want %v %v", tc.pre, tc.final, extra, ok, tc.extra, tc.ok)
		}
	}
}
