package compaction

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

func userItem(id, text string) Item {
	return Item{EntryID: id, Type: "message", Messages: []llm.Message{&llm.UserMessage{Content: llm.StringContent(text)}}}
}

func asstItem(id, text string) Item {
	return Item{EntryID: id, Type: "message", Messages: []llm.Message{&llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: text}}, StopReason: llm.StopStop}}}
}

func toolItem(id, text string) Item {
	return Item{EntryID: id, Type: "message", Messages: []llm.Message{&llm.ToolResultMessage{Content: llm.Blocks{&llm.TextContent{Text: text}}}}}
}

func TestEstimateMessage(t *testing.T) {
	tests := []struct {
		m    llm.Message
		want int
	}{
		{&llm.UserMessage{Content: llm.StringContent("abcde")}, 2},
		{&llm.UserMessage{Content: llm.BlockContent(&llm.ImageContent{})}, 1200},
		{&llm.AssistantMessage{Content: llm.Blocks{&llm.ToolCall{Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)}}}, 4},
		{&llm.BashExecutionMessage{Command: "ls", Output: "ab"}, 1},
		{&llm.CompactionSummaryMessage{Summary: strings.Repeat("x", 8)}, 2},
	}
	for i, tc := range tests {
		if got := EstimateMessage(tc.m); got != tc.want {
			t.Errorf("%d: got %d want %d", i, got, tc.want)
		}
	}
}

func TestContextTokens(t *testing.T) {
	msgs := []llm.Message{
		&llm.UserMessage{Content: llm.StringContent(strings.Repeat("x", 400))},
		&llm.AssistantMessage{Usage: llm.Usage{TotalTokens: 1000}, StopReason: llm.StopStop},
		&llm.UserMessage{Content: llm.StringContent(strings.Repeat("x", 40))},
		&llm.AssistantMessage{Usage: llm.Usage{TotalTokens: 5}, StopReason: llm.StopError},
	}
	if got := ContextTokens(msgs, false); got != 1000+10+0 {
		t.Errorf("with usage: %d", got)
	}
	if got := ContextTokens(msgs, true); got != 100+0+10+0 {
		t.Errorf("stale usage: %d", got)
	}
}

func TestShouldCompact(t *testing.T) {
	s := Settings{Enabled: true, ReserveTokens: 16384}
	if !ShouldCompact(s, 200000-16384+1, 200000) || ShouldCompact(s, 200000-16384, 200000) {
		t.Error("threshold wrong")
	}
	s.Enabled = false
	if ShouldCompact(s, 1e9, 200000) {
		t.Error("disabled compacts")
	}
}

func TestFindCut(t *testing.T) {
	big := strings.Repeat("x", 4000) // 1000 tokens
	tests := []struct {
		name       string
		region     []Item
		keep       int
		ok         bool
		firstKept  string
		turnStart  string
		summarized int
	}{
		{"budget never reached", []Item{userItem("u1", "hi"), asstItem("a1", "yo")}, 20000, false, "", "", 0},
		{"cut at user turn", []Item{userItem("u1", big), asstItem("a1", big), userItem("u2", big), asstItem("a2", big)}, 1500, true, "u2", "", 2},
		{"never cut at tool result; split turn", []Item{userItem("u1", big), asstItem("a1", big), toolItem("t1", big), asstItem("a2", big), toolItem("t2", big)}, 1500, true, "a2", "u1", 0},
		{"metadata pulled back", []Item{userItem("u1", big), asstItem("a1", big), {EntryID: "l1", Type: "label"}, userItem("u2", big), asstItem("a2", big)}, 1500, true, "l1", "", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := FindCut(tc.region, tc.keep)
			if ok != tc.ok {
				t.Fatalf("ok=%v want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if got := tc.region[c.FirstKept].EntryID; got != tc.firstKept {
				t.Errorf("first kept %s want %s", got, tc.firstKept)
			}
			ts := ""
			if c.TurnStart >= 0 {
				ts = tc.region[c.TurnStart].EntryID
			}
			if ts != tc.turnStart {
				t.Errorf("turn start %q want %q", ts, tc.turnStart)
			}
			if len(c.Summarize) != tc.summarized {
				t.Errorf("summarize %d msgs want %d", len(c.Summarize), tc.summarized)
			}
		})
	}
}

func TestSerialize(t *testing.T) {
	msgs := []llm.Message{
		&llm.UserMessage{Content: llm.StringContent("fix it")},
		&llm.AssistantMessage{Content: llm.Blocks{&llm.ThinkingContent{Thinking: "hmm"}, &llm.TextContent{Text: "ok"},
			&llm.ToolCall{Name: "read", Arguments: json.RawMessage(`{"path":"a.go","limit":5}`)}}},
		&llm.ToolResultMessage{Content: llm.Blocks{&llm.TextContent{Text: strings.Repeat("y", 2010)}}},
	}
	got := Serialize(msgs)
	want := "[User]: fix it\n\n[Assistant thinking]: hmm\n\n[Assistant]: ok\n\n[Assistant tool calls]: read(path=\"a.go\", limit=5)\n\n[Tool result]: " +
		strings.Repeat("y", 2000) + "\n[... 10 more characters truncated]"
	if got != want {
		t.Errorf("got:\n%s", got)
	}
}

func TestSummarizeSplitTurnAndFailures(t *testing.T) {
	model := &llm.Model{ID: "m", MaxTokens: 100000}
	var reqs []*llm.Request
	call := func(ctx context.Context, r *llm.Request) *llm.AssistantMessage {
		reqs = append(reqs, r)
		return &llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "S" + string(rune('0'+len(reqs)))}}, StopReason: llm.StopStop, Usage: llm.Usage{Output: 10}}
	}
	cut := Cut{TurnPrefix: []llm.Message{&llm.UserMessage{Content: llm.StringContent("q")}}}
	text, usage, err := Summarize(context.Background(), call, Request{Model: model, ReserveTokens: 16384}, cut, 1)
	if err != nil {
		t.Fatal(err)
	}
	if text != "No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nS1" || usage.Output != 10 {
		t.Errorf("text %q usage %+v", text, usage)
	}
	if reqs[0].MaxTokens != 8192 || reqs[0].CacheRetention != llm.CacheNone {
		t.Errorf("prefix request max=%d cache=%s", reqs[0].MaxTokens, reqs[0].CacheRetention)
	}
	failures := []*llm.AssistantMessage{
		{StopReason: llm.StopError, ErrorMessage: "boom"},
		{StopReason: llm.StopLength, Content: llm.Blocks{&llm.TextContent{Text: "partial"}}},
		{StopReason: llm.StopToolUse, Content: llm.Blocks{&llm.ToolCall{Name: "x"}}},
	}
	for _, f := range failures {
		f := f
		_, _, err := Summarize(context.Background(), func(context.Context, *llm.Request) *llm.AssistantMessage { return f },
			Request{Model: model, ReserveTokens: 16384}, Cut{Summarize: []llm.Message{&llm.UserMessage{Content: llm.StringContent("q")}}}, 1)
		if err == nil {
			t.Errorf("stop %s accepted", f.StopReason)
		}
	}
}

func TestFileTracking(t *testing.T) {
	tr := NewFileTracker(&FileDetails{ReadFiles: []string{"old.go"}})
	tr.Add([]llm.Message{&llm.AssistantMessage{Content: llm.Blocks{
		&llm.ToolCall{Name: "read", Arguments: json.RawMessage(`{"path":"b.go"}`)},
		&llm.ToolCall{Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)},
		&llm.ToolCall{Name: "edit", Arguments: json.RawMessage(`{"path":"a.go"}`)},
		&llm.ToolCall{Name: "write", Arguments: json.RawMessage(`{"path":"c.go"}`)},
	}}})
	d := tr.Details()
	if strings.Join(d.ReadFiles, ",") != "b.go,old.go" || strings.Join(d.ModifiedFiles, ",") != "a.go,c.go" {
		t.Errorf("%+v", d)
	}
	got := AppendFileLists("S", d)
	if got != "S\n\n<read-files>\nb.go\nold.go\n</read-files>\n\n<modified-files>\na.go\nc.go\n</modified-files>" {
		t.Errorf("%q", got)
	}
}

func TestSelectBranchMessages(t *testing.T) {
	big := strings.Repeat("x", 400) // 100 tokens
	items := []Item{userItem("u1", big), asstItem("a1", big), toolItem("t1", big), userItem("u2", big), asstItem("a2", big)}
	got := SelectBranchMessages(items, 250)
	if len(got) != 2 {
		t.Fatalf("picked %d, want 2 newest", len(got))
	}
	if _, ok := got[0].(*llm.UserMessage); !ok {
		t.Errorf("order not chronological")
	}
}

// CutAll is a retain-none cut over the whole region: every message is
// summarized (system messages dropped), nothing is kept.
func TestCutAll(t *testing.T) {
	meta := Item{EntryID: "m0", Type: "model_change"}
	sys := Item{EntryID: "s0", Type: "message", Messages: []llm.Message{&llm.SystemMessage{}}}
	c, ok := CutAll([]Item{meta, sys, userItem("u1", "hi"), asstItem("a1", "yo")})
	if !ok || c.FirstKept != 4 || c.TurnStart != -1 || len(c.Summarize) != 2 || len(c.TurnPrefix) != 0 {
		t.Fatalf("cut %+v ok %v", c, ok)
	}
	if _, ok := CutAll([]Item{meta, sys}); ok {
		t.Error("a region without messages to summarize is cut")
	}
}

func TestNothingToDo(t *testing.T) {
	for msg, want := range map[string]bool{
		NothingToCompact + " (session is empty)": true,
		AlreadyCompacted:                         true,
		"Summarization failed: 500":              false,
		"":                                       false,
	} {
		if got := NothingToDo(msg); got != want {
			t.Errorf("NothingToDo(%q) = %v", msg, got)
		}
	}
}
