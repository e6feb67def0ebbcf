package responses

import (
	"encoding/json"
	"flag"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

const reasoningItem = `{"id":"rs_68af","type":"reasoning","summary":[{"type":"summary_text","text":"**Listing**"}],"encrypted_content":"gAAAAABo"}`

func conversation(model *llm.Model) []llm.Message {
	return []llm.Message{
		&llm.UserMessage{Content: llm.StringContent("List the files.")},
		&llm.AssistantMessage{Provider: model.Provider, API: model.API, Model: model.ID, StopReason: llm.StopToolUse,
			Content: llm.Blocks{
				&llm.ThinkingContent{Thinking: "**Listing**", ThinkingSignature: reasoningItem},
				&llm.TextContent{Text: "Running ls.", TextSignature: `{"v":1,"id":"msg_68af1","phase":"commentary"}`},
				&llm.ToolCall{ID: "call_1|fc_68af2", Name: "ls", Arguments: json.RawMessage(`{"path":"."}`)},
				&llm.ToolCall{ID: "call_2|fc_68af3", Name: "read", Arguments: json.RawMessage(`{"path":"a.png"}`)},
			}},
		&llm.ToolResultMessage{ToolCallID: "call_1|fc_68af2", ToolName: "ls", Content: llm.Blocks{&llm.TextContent{Text: "a.png\nb.go"}}},
		&llm.ToolResultMessage{ToolCallID: "call_2|fc_68af3", ToolName: "read", Content: llm.Blocks{&llm.ImageContent{Data: "iVBORw0K", MimeType: "image/png"}}},
		&llm.UserMessage{Content: llm.BlockContent(&llm.TextContent{Text: "What is in this one?"}, &llm.ImageContent{Data: "/9j/4AAQ", MimeType: "image/jpeg"})},
		&llm.AssistantMessage{Provider: "anthropic", API: llm.APIAnthropicMessages, Model: "claude-sonnet-4-5", StopReason: llm.StopToolUse,
			Content: llm.Blocks{
				&llm.ThinkingContent{Thinking: "A cat, probably.", ThinkingSignature: "EqQBCkYIBxgCKkD"},
				&llm.TextContent{Text: "A cat."},
				&llm.ToolCall{ID: "toolu_01A09q90qw90lq917835lq9", Name: "bash", Arguments: json.RawMessage(`{"command":"file a.png"}`)},
			}},
		&llm.ToolResultMessage{ToolCallID: "toolu_01A09q90qw90lq917835lq9", ToolName: "bash", Content: llm.Blocks{&llm.TextContent{Text: "a.png: PNG image"}}},
		&llm.AssistantMessage{Provider: model.Provider, API: model.API, Model: "gpt-5-mini", StopReason: llm.StopToolUse,
			Content: llm.Blocks{
				&llm.ThinkingContent{Thinking: ""},
				&llm.ToolCall{ID: "call_9|fc_68af9", Name: "ls", Arguments: json.RawMessage(`{}`)}}},
		&llm.ToolResultMessage{ToolCallID: "call_9|fc_68af9", ToolName: "ls", Content: llm.Blocks{&llm.TextContent{Text: "ok"}}},
		&llm.UserMessage{Content: llm.StringContent("Thanks.")},
	}
}

var tools = []llm.ToolSpec{
	{Name: "ls", Description: "List a directory", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
}

func TestRequestBodies(t *testing.T) {
	gpt5 := &llm.Model{ID: "gpt-5", Provider: "openai", API: llm.APIOpenAIResponses, BaseURL: "https://api.openai.com/v1",
		Reasoning: true, Input: []string{"text", "image"}, MaxTokens: 128000}
	xhigh := "xhigh"
	gpt5x := *gpt5
	gpt5x.ThinkingLevelMap = map[string]*string{"xhigh": &xhigh}
	gpt41 := &llm.Model{ID: "gpt-4.1", Provider: "openai", API: llm.APIOpenAIResponses, BaseURL: "https://api.openai.com/v1",
		Input: []string{"text"}, MaxTokens: 32768}
	temp := 0.5
	cases := []struct {
		name string
		req  llm.Request
	}{
		{"gpt5_high_short.json", llm.Request{Model: gpt5, SystemPrompt: "You are relay.", Tools: tools, ThinkingLevel: llm.ThinkingHigh,
			CacheRetention: llm.CacheShort, SessionID: "sess-123"}},
		{"gpt5_off_long.json", llm.Request{Model: gpt5, SystemPrompt: "You are relay.", ThinkingLevel: llm.ThinkingOff,
			CacheRetention: llm.CacheLong, SessionID: "sess-123", MaxTokens: 4096}},
		{"gpt5_xhigh_nocache.json", llm.Request{Model: &gpt5x, ThinkingLevel: llm.ThinkingXHigh, CacheRetention: llm.CacheNone, SessionID: "s"}},
		{"gpt41_text_only.json", llm.Request{Model: gpt41, SystemPrompt: "You are relay.", Tools: tools, Temperature: &temp,
			CacheRetention: llm.CacheShort, SessionID: "sess-123"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Messages = conversation(req.Model)
			llmtest.GoldenJSON(t, *update, tc.name, buildBody(&req))
		})
	}
}

func TestNormalizeToolCallID(t *testing.T) {
	for in, want := range map[string]string{
		"toolu_1":       "toolu_1",
		"call_1|fc_2":   "call_1|fc_2",
		"call+1|item/2": "call_1|fc_item_2",
		"call_|fc_x==":  "call|fc_x",
	} {
		if got := normalizeToolCallID(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTextSignature(t *testing.T) {
	sig := encodeTextSignature("msg_1", "final_answer")
	if sig != `{"v":1,"id":"msg_1","phase":"final_answer"}` {
		t.Errorf("sig = %s", sig)
	}
	if id, ph := parseTextSignature(sig); id != "msg_1" || ph != "final_answer" {
		t.Errorf("parse = %s %s", id, ph)
	}
	if id, ph := parseTextSignature("msg_legacy"); id != "msg_legacy" || ph != "" {
		t.Errorf("legacy = %s %s", id, ph)
	}
}
