package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// A manual compaction of a conversation shorter than keepRecentTokens
// compacts what there is (the original's rpc test expects success): the
// whole conversation is summarized and a retain-none compaction stores its
// own id as firstKeptEntryId. An automatic one still has nothing to do.
func TestManualCompactionOfShortSession(t *testing.T) {
	rt, fc := newRuntime(t, say("hello"), say("## Goal\nsay hello"))
	if err := rt.Prompt(context.Background(), "Say hello", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.compact(context.Background(), "threshold", "", false); err == nil || !compaction.NothingToDo(err.Error()) {
		t.Fatalf("automatic compaction of a short session: %v", err)
	}
	res, err := rt.Compact(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Summary, "## Goal\nsay hello") || res.TokensBefore <= 0 {
		t.Errorf("result %+v", res)
	}
	req := fc.Reqs[len(fc.Reqs)-1].Messages[0].(*llm.UserMessage).Content.PlainText()
	if !strings.Contains(req, "[User]: Say hello") || !strings.Contains(req, "[Assistant]: hello") {
		t.Errorf("the summary request lacks the conversation:\n%s", req)
	}
	leaf := rt.Session().LeafEntry()
	if leaf.Type != session.TypeCompaction || leaf.Compaction().FirstKeptEntryID != leaf.ID || res.FirstKeptEntryID != leaf.ID {
		t.Errorf("not a retain-none compaction: leaf %s %+v, result first kept %s", leaf.Type, leaf.Compaction(), res.FirstKeptEntryID)
	}
	msgs := rt.ContextMessages()
	if len(msgs) != 2 {
		t.Fatalf("context after compaction has %d messages, want system + summary", len(msgs))
	}
	if _, ok := msgs[1].(*llm.CompactionSummaryMessage); !ok {
		t.Errorf("second message %T", msgs[1])
	}
	// Compacting again right away has nothing to do, and says so.
	if _, err := rt.Compact(context.Background(), ""); err == nil || !compaction.NothingToDo(err.Error()) {
		t.Errorf("second compaction: %v", err)
	}
	// An empty session has nothing to do either, nor one with only
	// metadata (a new session records its model).
	empty, _ := newRuntime(t)
	if _, err := empty.Compact(context.Background(), ""); err == nil || !compaction.NothingToDo(err.Error()) || errors.Is(err, ErrNoModel) {
		t.Errorf("empty session: %v", err)
	}
	empty.Session().AppendModelChange("fake", "m1")
	if _, err := empty.Compact(context.Background(), ""); err == nil || err.Error() != "Nothing to compact (no messages yet)" {
		t.Errorf("session without messages: %v", err)
	}
}

// Right after a compaction that kept recent entries there is nothing new
// to compact: the branch ends with the compaction.
func TestCompactRightAfterCompaction(t *testing.T) {
	big := strings.Repeat("word ", 20000)
	rt, _ := newRuntime(t, say(big), say(big), say("## Goal\nsummary"), say("prefix"))
	rt.cfg.Compaction.KeepRecentTokens = 1000
	rt.Prompt(context.Background(), "first "+big, nil)
	rt.Prompt(context.Background(), "second", nil)
	if _, err := rt.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Compact(context.Background(), ""); err == nil || err.Error() != compaction.AlreadyCompacted {
		t.Errorf("second compaction: %v", err)
	}
}
