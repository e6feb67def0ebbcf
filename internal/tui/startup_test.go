package tui_test

import (
	"context"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/tui"
	"github.com/relay-agent/relay/internal/tui/tuitest"
)

// The changelog is shown at start after an update, in full or (with
// collapseChangelog) as one line; a newer release is announced.
func TestStartupChangelogAndUpdate(t *testing.T) {
	for _, collapse := range []bool{false, true} {
		f := tuitest.NewFake()
		o := opts()
		o.Changelog = "## 0.2.0\n\n- **Mermaid** diagrams are drawn"
		o.CollapseChangelog = collapse
		o.Fullscreen = true
		o.UpdateCheck = func(context.Context) string { return "relay 0.3.0 is available" }
		m := tui.New(context.Background(), f, o)
		d := tuitest.NewDriver(m, 80, 24)
		d.Settle()
		fr := d.Frame()
		if collapse {
			if !strings.Contains(fr, "Updated to v0.2.0. Use /changelog to view the full changelog.") || strings.Contains(fr, "Mermaid") {
				t.Errorf("collapsed:\n%s", fr)
			}
		} else if !strings.Contains(fr, "What's new") || !strings.Contains(fr, "Mermaid diagrams are drawn") || strings.Contains(fr, "**") {
			t.Errorf("full:\n%s", fr)
		}
		if !strings.Contains(fr, "relay 0.3.0 is available") {
			t.Errorf("no update notice:\n%s", fr)
		}
	}
}

// warnings.anthropicExtraUsage: an Anthropic model signed in with a
// subscription gets the extra-usage warning, once; an API key gets none.
func TestExtraUsageWarning(t *testing.T) {
	for _, oauth := range []bool{true, false} {
		f := tuitest.NewFake()
		o := opts()
		o.Fullscreen = true
		calls := 0
		o.SubscriptionAuth = func(p string) bool { calls++; return oauth && p == "anthropic" }
		m := tui.New(context.Background(), f, o)
		t.Cleanup(f.Subscribe(m.Deliver))
		d := tuitest.NewDriver(m, 100, 30)
		d.Type("hello")
		d.Press("enter")
		d.Settle()
		fr := d.Frame()
		if got := strings.Count(fr, "paid extra usage"); got != map[bool]int{true: 1, false: 0}[oauth] {
			t.Errorf("oauth=%v: warning shown %d times:\n%s", oauth, got, fr)
		}
		if calls != 1 {
			t.Errorf("oauth=%v: credential looked up %d times, want once", oauth, calls)
		}
	}
}
