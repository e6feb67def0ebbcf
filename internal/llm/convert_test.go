package llm

import "testing"

// The model sees summaries wrapped exactly as the original wraps them: a
// compaction summary closes with "\n</summary>", a branch summary with
// "</summary>" directly after the text.
func TestToModelMessagesSummaryWrapping(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
		want string
	}{
		{"compaction", &CompactionSummaryMessage{Summary: "S"},
			"The conversation history before this point was compacted into the following summary:\n\n<summary>\nS\n</summary>"},
		{"branch", &BranchSummaryMessage{Summary: "S"},
			"The following is a summary of a branch that this conversation came back from:\n\n<summary>\nS</summary>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := ToModelMessages([]Message{tt.msg})
			if len(out) != 1 {
				t.Fatalf("%d messages", len(out))
			}
			u, ok := out[0].(*UserMessage)
			if !ok {
				t.Fatalf("got %T, want a user message", out[0])
			}
			if got := u.Content.PlainText(); got != tt.want {
				t.Errorf("text\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
