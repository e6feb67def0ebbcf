package agent

import (
	"bytes"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// The events that carry whole messages are written as encoding/json wrote
// them from their wire structs.
func TestMessageEventsMatchEncodingJSON(t *testing.T) {
	unknown, err := llm.DecodeMessage([]byte(`{ "role" : "future", "x" : [ 1 ] }`))
	if err != nil {
		t.Fatal(err)
	}
	asst := &llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "a <b> & \u2028 \"q\""},
		&llm.ToolCall{ID: "c1", Name: "bash", Arguments: []byte(`{"command":"ls"}`)}}, StopReason: llm.StopToolUse, Timestamp: 5}
	tr := &llm.ToolResultMessage{ToolCallID: "c1", ToolName: "bash", Content: llm.Blocks{&llm.TextContent{Text: "out"}}}
	user := &llm.UserMessage{Content: llm.StringContent("hi"), Timestamp: 1}
	for _, msgs := range [][]llm.Message{nil, {}, {user, asst, tr, unknown, nil}} {
		e := Event{Type: AgentEnd, Messages: msgs, WillRetry: len(msgs) > 0}
		want, err := llm.Marshal(struct {
			Type      string        `json:"type"`
			Messages  []llm.Message `json:"messages"`
			WillRetry bool          `json:"willRetry"`
		}{e.Type, emptyIfNil(e.Messages), e.WillRetry})
		check(t, e, want, err)
	}
	for _, m := range []llm.Message{nil, asst, unknown, (*llm.AssistantMessage)(nil)} {
		for _, trs := range [][]*llm.ToolResultMessage{nil, {tr, tr}} {
			e := Event{Type: TurnEnd, Message: m, ToolResults: trs}
			if trs == nil {
				trs = []*llm.ToolResultMessage{}
			}
			want, err := llm.Marshal(struct {
				Type        string                   `json:"type"`
				Message     llm.Message              `json:"message"`
				ToolResults []*llm.ToolResultMessage `json:"toolResults"`
			}{e.Type, e.Message, trs})
			check(t, e, want, err)
		}
		for _, typ := range []string{MessageStart, MessageEnd} {
			e := Event{Type: typ, Message: m}
			want, err := llm.Marshal(struct {
				Type    string      `json:"type"`
				Message llm.Message `json:"message"`
			}{e.Type, e.Message})
			check(t, e, want, err)
		}
	}
}

func check(t *testing.T, e Event, want []byte, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s:\n got %s\nwant %s", e.Type, got, want)
	}
}
