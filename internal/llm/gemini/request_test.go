package gemini

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func conversation(model *llm.Model) []llm.Message {
	return []llm.Message{
		&llm.UserMessage{Content: llm.StringContent("List the files.")},
		&llm.AssistantMessage{Provider: model.Provider, API: model.API, Model: model.ID, StopReason: llm.StopToolUse,
			Content: llm.Blocks{
				&llm.ThinkingContent{Thinking: "**Listing files**", ThinkingSignature: "CikBcsjafFK168Ib"},
				&llm.TextContent{Text: "Running ls."},
				&llm.ToolCall{ID: "ls_1732000000000_1", Name: "ls", Arguments: json.RawMessage(`{"path":"."}`), ThoughtSignature: "CiQBcsjafJ1x"},
				&llm.ToolCall{ID: "read_1732000000000_2", Name: "read", Arguments: json.RawMessage(`{"path":"a.png"}`)},
			}},
		&llm.ToolResultMessage{ToolCallID: "ls_1732000000000_1", ToolName: "ls", Content: llm.Blocks{&llm.TextContent{Text: "a.png\nb.go"}}},
		&llm.ToolResultMessage{ToolCallID: "read_1732000000000_2", ToolName: "read", Content: llm.Blocks{&llm.ImageContent{Data: "iVBORw0K", MimeType: "image/png"}}},
		&llm.UserMessage{Content: llm.BlockContent(&llm.TextContent{Text: "What is in this one?"}, &llm.ImageContent{Data: "/9j/4AAQ", MimeType: "image/jpeg"})},
		&llm.AssistantMessage{Provider: "anthropic", API: llm.APIAnthropicMessages, Model: "claude-sonnet-4-5", StopReason: llm.StopToolUse,
			Content: llm.Blocks{
				&llm.ThinkingContent{Thinking: "A cat, probably.", ThinkingSignature: "EqQBCkYIBxgCKkD"},
				&llm.TextContent{Text: "A cat."},
				&llm.ToolCall{ID: "toolu_01A09q90qw90lq917835lq9", Name: "bash", Arguments: json.RawMessage(`{"command":"file a.png"}`)},
			}},
		&llm.ToolResultMessage{ToolCallID: "toolu_01A09q90qw90lq917835lq9", ToolName: "bash", IsError: true, Content: llm.Blocks{&llm.TextContent{Text: "file: not found"}}},
		&llm.UserMessage{Content: llm.StringContent("Thanks.")},
	}
}

var tools = []llm.ToolSpec{
	{Name: "ls", Description: "List a directory", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
}

func TestRequestBodies(t *testing.T) {
	flash25 := &llm.Model{ID: "gemini-2.5-flash", Provider: "google", API: llm.APIGoogleGenerativeAI, Reasoning: true,
		Input: []string{"text", "image"}, MaxTokens: 65536}
	pro3 := &llm.Model{ID: "gemini-3-pro-preview", Provider: "google", API: llm.APIGoogleGenerativeAI, Reasoning: true,
		Input: []string{"text", "image"}, MaxTokens: 65536}
	text := &llm.Model{ID: "gemma-3-27b-it", Provider: "google", API: llm.APIGoogleGenerativeAI, Input: []string{"text"}, MaxTokens: 8192}
	temp := 0.2
	cases := []struct {
		name string
		req  llm.Request
	}{
		{"flash25_medium.json", llm.Request{Model: flash25, SystemPrompt: "You are relay.", Tools: tools, ThinkingLevel: llm.ThinkingMedium}},
		{"flash25_off.json", llm.Request{Model: flash25, SystemPrompt: "You are relay.", ThinkingLevel: llm.ThinkingOff, MaxTokens: 2048}},
		{"pro3_minimal.json", llm.Request{Model: pro3, SystemPrompt: "You are relay.", Tools: tools, ThinkingLevel: llm.ThinkingMinimal}},
		{"gemma_text.json", llm.Request{Model: text, Temperature: &temp}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Messages = conversation(req.Model)
			llmtest.GoldenJSON(t, *update, tc.name, buildBody(&req, Options{}))
		})
	}
}

func TestThinkingConfig(t *testing.T) {
	cases := []struct {
		id    string
		level llm.ThinkingLevel
		want  string
	}{
		{"gemini-2.5-pro", llm.ThinkingMinimal, `{"includeThoughts":true,"thinkingBudget":128}`},
		{"gemini-2.5-pro", llm.ThinkingHigh, `{"includeThoughts":true,"thinkingBudget":32768}`},
		{"gemini-2.5-flash-lite", llm.ThinkingMinimal, `{"includeThoughts":true,"thinkingBudget":512}`},
		{"gemini-2.5-flash", llm.ThinkingHigh, `{"includeThoughts":true,"thinkingBudget":24576}`},
		{"gemini-2.0-flash-thinking", llm.ThinkingLow, `{"includeThoughts":true,"thinkingBudget":-1}`},
		{"gemini-2.5-flash", llm.ThinkingOff, `{"thinkingBudget":0}`},
		{"gemini-3-pro-preview", llm.ThinkingMedium, `{"includeThoughts":true,"thinkingLevel":"HIGH"}`},
		{"gemini-3-pro-preview", llm.ThinkingOff, `{"thinkingLevel":"LOW"}`},
		{"gemini-3-flash-preview", llm.ThinkingMedium, `{"includeThoughts":true,"thinkingLevel":"MEDIUM"}`},
		{"gemini-3.1-flash", llm.ThinkingOff, `{"thinkingLevel":"MINIMAL"}`},
	}
	for _, tc := range cases {
		req := &llm.Request{Model: &llm.Model{ID: tc.id, Reasoning: true}, ThinkingLevel: tc.level}
		got, _ := llm.Marshal(thinkingConfig(req, false))
		if string(got) != tc.want {
			t.Errorf("%s/%s = %s, want %s", tc.id, tc.level, got, tc.want)
		}
	}
	req := &llm.Request{Model: &llm.Model{ID: "gemini-2.5-pro", Reasoning: true}, ThinkingLevel: llm.ThinkingLow,
		ThinkingBudgets: map[llm.ThinkingLevel]int{llm.ThinkingLow: 999}}
	if got, _ := llm.Marshal(thinkingConfig(req, false)); string(got) != `{"includeThoughts":true,"thinkingBudget":999}` {
		t.Errorf("override: %s", got)
	}
}

func TestOpenAPISchema(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"$schema":"x","type":"object","properties":{"a":{"anyOf":[{"$id":"i","type":"string"},{"$ref":"#/$defs/b"}]}},"$defs":{"b":{}},"definitions":{}}`,
			`{"properties":{"a":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/b"}]}},"type":"object"}`},
		{`not json`, `not json`},
	} {
		got := openAPISchema(json.RawMessage(tc.in))
		b, ok := got.(json.RawMessage)
		if !ok {
			b, _ = llm.Marshal(got)
		}
		if string(b) != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, b, tc.want)
		}
	}
}

// TestRequestOptions: the Cloud Code Assist shaping of the same request.
func TestRequestOptions(t *testing.T) {
	req := &llm.Request{Model: &llm.Model{ID: "gemini-2.5-pro", Reasoning: true}, SystemPrompt: "sys", ThinkingLevel: llm.ThinkingMinimal,
		Tools: []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{"$schema":"s","type":"object"}`)}}}
	got, _ := llm.Marshal(RequestBody(req, Options{ToolParameters: true, SystemRole: "user", FlatBudgets: true}))
	for _, want := range []string{`"systemInstruction":{"parts":[{"text":"sys"}],"role":"user"}`, `"parameters":{"type":"object"}`,
		`"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("body lacks %s: %s", want, got)
		}
	}
	plain, _ := llm.Marshal(RequestBody(req, Options{}))
	for _, want := range []string{`"systemInstruction":{"parts":[{"text":"sys"}]}`, `"parametersJsonSchema":{"$schema":"s","type":"object"}`,
		`"thinkingBudget":128`} {
		if !strings.Contains(string(plain), want) {
			t.Errorf("plain body lacks %s: %s", want, plain)
		}
	}
}
