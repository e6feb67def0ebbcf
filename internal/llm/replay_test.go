package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPrepareReplay(t *testing.T) {
	target := &Model{ID: "gpt-5", Provider: "openai", API: APIOpenAIResponses, Input: []string{"text"}}
	same := &AssistantMessage{Provider: "openai", API: APIOpenAIResponses, Model: "gpt-5", StopReason: StopToolUse,
		Content: Blocks{
			&ThinkingContent{Thinking: "", ThinkingSignature: "{\"id\":\"rs_1\"}"},
			&ToolCall{ID: "call_1|fc_1", Name: "read", Arguments: json.RawMessage(`{}`)},
		}}
	foreign := &AssistantMessage{Provider: "anthropic", API: APIAnthropicMessages, Model: "claude", StopReason: StopToolUse,
		Content: Blocks{
			&ThinkingContent{Thinking: "let me think", ThinkingSignature: "sig"},
			&ThinkingContent{Thinking: "x", ThinkingSignature: "opaque", Redacted: true},
			&ThinkingContent{Thinking: "  "},
			&TextContent{Text: "hi", TextSignature: "ts"},
			&ToolCall{ID: "toolu_1", Name: "bash", Arguments: json.RawMessage(`{"a":1}`), ThoughtSignature: "s"},
			&ToolCall{ID: "toolu_2", Name: "ls"},
		}}
	msgs := []Message{
		&UserMessage{Content: BlockContent(&TextContent{Text: "look"}, &ImageContent{Data: "AA", MimeType: "image/png"}, &ImageContent{Data: "BB", MimeType: "image/png"})},
		same,
		&ToolResultMessage{ToolCallID: "call_1|fc_1", ToolName: "read", Content: Blocks{&ImageContent{Data: "CC"}}},
		foreign,
		&ToolResultMessage{ToolCallID: "toolu_1", ToolName: "bash", Content: Blocks{&TextContent{Text: "ok"}}},
		&AssistantMessage{Provider: "openai", API: APIOpenAIResponses, Model: "gpt-5", StopReason: StopAborted, Content: Blocks{&TextContent{Text: "partial"}}},
		&UserMessage{Content: StringContent("next")},
	}
	norm := func(id string, src *AssistantMessage) string { return "n_" + id }
	out := PrepareReplay(msgs, target, norm)

	var roles []string
	for _, m := range out {
		roles = append(roles, m.MessageRole())
	}
	if got, want := strings.Join(roles, ","), "user,assistant,toolResult,assistant,toolResult,toolResult,user"; got != want {
		t.Fatalf("roles = %s, want %s", got, want)
	}
	u := out[0].(*UserMessage)
	if n := len(u.Content.Blocks); n != 2 || u.Content.Blocks[1].(*TextContent).Text != ImageOmittedUser {
		t.Errorf("user images not downgraded: %#v", u.Content.Blocks)
	}
	if out[1] != same {
		t.Errorf("same-model message should pass through untouched")
	}
	if tr := out[2].(*ToolResultMessage); tr.Content[0].(*TextContent).Text != ImageOmittedTool {
		t.Errorf("tool image not downgraded")
	}
	f := out[3].(*AssistantMessage)
	if len(f.Content) != 4 {
		t.Fatalf("foreign content = %d blocks", len(f.Content))
	}
	if tx := f.Content[0].(*TextContent); tx.Text != "let me think" {
		t.Errorf("thinking not converted to text: %#v", tx)
	}
	if tx := f.Content[1].(*TextContent); tx.TextSignature != "" {
		t.Errorf("text signature kept")
	}
	tc := f.Content[2].(*ToolCall)
	if tc.ID != "n_toolu_1" || tc.ThoughtSignature != "" {
		t.Errorf("tool call not normalized: %#v", tc)
	}
	if tr := out[4].(*ToolResultMessage); tr.ToolCallID != "n_toolu_1" {
		t.Errorf("tool result id = %q", tr.ToolCallID)
	}
	if tr := out[5].(*ToolResultMessage); tr.ToolCallID != "n_toolu_2" || !tr.IsError || tr.Content.PlainText() != NoToolResult {
		t.Errorf("synthetic result = %#v", tr)
	}
	// Inputs untouched.
	if foreign.Content[4].(*ToolCall).ID != "toolu_1" || len(msgs[0].(*UserMessage).Content.Blocks) != 3 {
		t.Errorf("input modified")
	}
}

func TestSafeIDMax64(t *testing.T) {
	long := strings.Repeat("a", 70)
	for in, want := range map[string]string{
		"call_1|fc_2":   "call_1_fc_2",
		"toolu_01AbC-x": "toolu_01AbC-x",
		"é.id/ü":        "__id__",
		long:            long[:64],
	} {
		if got := SafeIDMax64(in, nil); got != want {
			t.Errorf("SafeIDMax64(%q) = %q, want %q", in, got, want)
		}
	}
}
