package tui_test

import (
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/tui/tuitest"
)

// A start-up notice (the resumed session's model could not be restored)
// reads as a notice, not as an error, also with a quiet start-up.
func TestStartupNoticeIsNotAnError(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen = true
	o.QuietStartup = true
	o.StartupNotices = []string{"Could not restore model openai/gpt-5.5. Using anthropic/claude-opus-4-8"}
	d := start(t, f, o, 100, 12)
	fr := d.Frame()
	if !strings.Contains(fr, "Could not restore model openai/gpt-5.5") {
		t.Fatalf("notice not shown:\n%s", fr)
	}
	if strings.Contains(fr, "Error") {
		t.Errorf("shown as an error:\n%s", fr)
	}
}
