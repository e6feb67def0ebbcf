package tmuxe2e_test

import (
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// Issue 17 item 10: at 80 columns /hotkeys wraps a long description under
// its column, not at column 1.
func TestE2EHotkeysWrapAt80(t *testing.T) {
	e := newTmux(t, &llmtest.Script{}, nil)
	e.cols = 80
	e.start()
	e.text("/hotkeys")
	e.keys("Enter")
	s := e.waitFor("Move the selected model down", 5*time.Second)
	found := false
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, "previous segment start"); i >= 0 {
			found = true
			if strings.TrimSpace(l[:i]) != "" || i < 20 {
				t.Errorf("continuation not under its column: %q", l)
			}
		}
	}
	if !found {
		t.Errorf("no wrapped description on screen:\n%s", s)
	}
}
