package transcript

import (
	"testing"

	"github.com/relay-agent/relay/internal/agent"
)

// A compaction's progress line goes away when it ends; "nothing to
// compact" is a notice, not a failure; the figure after is given only when
// it is below the one before.
func TestCompactionLines(t *testing.T) {
	n := func(v int) *int { return &v }
	for _, tc := range []struct {
		name     string
		end      agent.Event
		want     string
		wantKind Kind
	}{
		{"compacted", agent.Event{Result: &agent.CompactionResult{TokensBefore: 5000, EstimatedTokensAfter: n(1200)}},
			"Compacted context: 5000 tokens summarized, about 1200 after", KindNotice},
		{"summary longer than the conversation", agent.Event{Result: &agent.CompactionResult{TokensBefore: 900, EstimatedTokensAfter: n(1100)}},
			"Compacted context: 900 tokens summarized", KindNotice},
		{"nothing to compact", agent.Event{ErrorMessage: "Nothing to compact (session is empty)"},
			"Nothing to compact (session is empty)", KindNotice},
		{"already compacted", agent.Event{ErrorMessage: "Already compacted"}, "Already compacted", KindNotice},
		{"failed", agent.Event{ErrorMessage: "Summarization failed: 500"}, "Compaction failed: Summarization failed: 500", KindError},
		{"aborted", agent.Event{Aborted: true}, "Compaction aborted", KindNotice},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newT()
			tr.AddNotice("before")
			tr.Apply(agent.Event{Type: agent.CompactionStart, Reason: "manual"})
			tr.View(80, 10) // the progress line is on screen
			end := tc.end
			end.Type, end.Reason = agent.CompactionEnd, "manual"
			tr.Apply(end)
			if len(tr.items) != 2 || tr.items[0].text != "before" {
				t.Fatalf("items %d: the progress line stayed or the history changed", len(tr.items))
			}
			if got := tr.items[1]; got.text != tc.want || got.kind != tc.wantKind {
				t.Errorf("got %q (kind %d), want %q (kind %d)", got.text, got.kind, tc.want, tc.wantKind)
			}
		})
	}
}
