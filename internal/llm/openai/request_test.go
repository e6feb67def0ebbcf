package openai

import (
	"bytes"
	"encoding/json"
	"flag"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func strp(s string) *string { return &s }

// conversation covers every message shape the converter handles: string and
// block user content with an image, a same-model turn with reasoning and two
// tool calls, tool results with text and an image, a foreign (Anthropic)
// turn with signed thinking, an aborted turn and a dangling tool call.
func conversation(model *llm.Model) []llm.Message {
	return []llm.Message{
		&llm.UserMessage{Content: llm.StringContent("List the files.")},
		&llm.AssistantMessage{Provider: model.Provider, API: model.API, Model: model.ID, StopReason: llm.StopToolUse,
			Content: llm.Blocks{
				&llm.ThinkingContent{Thinking: "I should run ls.", ThinkingSignature: "reasoning_content"},
				&llm.TextContent{Text: "Running ls."},
				&llm.ToolCall{ID: "call_1", Name: "ls", Arguments: json.RawMessage(`{"path":"."}`)},
				&llm.ToolCall{ID: "call_2", Name: "read", Arguments: json.RawMessage(`{"path":"a.png"}`)},
			}},
		&llm.ToolResultMessage{ToolCallID: "call_1", ToolName: "ls", Content: llm.Blocks{&llm.TextContent{Text: "a.png\nb.go"}}},
		&llm.ToolResultMessage{ToolCallID: "call_2", ToolName: "read", Content: llm.Blocks{&llm.ImageContent{Data: "iVBORw0K", MimeType: "image/png"}}},
		&llm.UserMessage{Content: llm.BlockContent(&llm.TextContent{Text: "What is in this one?"}, &llm.ImageContent{Data: "/9j/4AAQ", MimeType: "image/jpeg"})},
		&llm.AssistantMessage{Provider: "anthropic", API: llm.APIAnthropicMessages, Model: "claude-sonnet-4-5", StopReason: llm.StopToolUse,
			Content: llm.Blocks{
				&llm.ThinkingContent{Thinking: "A cat, probably.", ThinkingSignature: "EqQBCkYIBxgCKkD"},
				&llm.ThinkingContent{Thinking: "", ThinkingSignature: "opaque", Redacted: true},
				&llm.TextContent{Text: "A cat."},
				&llm.ToolCall{ID: "toolu_01A09q90qw90lq917835lq9", Name: "bash", Arguments: json.RawMessage(`{"command":"file a.png"}`)},
			}},
		&llm.ToolResultMessage{ToolCallID: "toolu_01A09q90qw90lq917835lq9", ToolName: "bash", Content: llm.Blocks{&llm.TextContent{Text: "a.png: PNG image"}}, IsError: false},
		&llm.AssistantMessage{Provider: model.Provider, API: model.API, Model: model.ID, StopReason: llm.StopAborted,
			Content: llm.Blocks{&llm.TextContent{Text: "half an ans"}}},
		&llm.AssistantMessage{Provider: "openai", API: llm.APIOpenAIResponses, Model: "gpt-5", StopReason: llm.StopToolUse,
			Content: llm.Blocks{&llm.ToolCall{ID: "call_abc|fc_0123456789abcdef0123456789abcdef0123456789", Name: "ls", Arguments: json.RawMessage(`{}`)}}},
		&llm.UserMessage{Content: llm.StringContent("Thanks.")},
	}
}

var tools = []llm.ToolSpec{
	{Name: "ls", Description: "List a directory", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	{Name: "bash", Description: "Run a command", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
}

func TestRequestBodies(t *testing.T) {
	openaiModel := &llm.Model{ID: "gpt-5", Provider: "openai", API: llm.APIOpenAICompletions, BaseURL: "https://api.openai.com/v1",
		Reasoning: true, Input: []string{"text", "image"}, MaxTokens: 128000}
	llamacpp := &llm.Model{ID: "qwen3-coder", Provider: "llamacpp", API: llm.APIOpenAICompletions, BaseURL: "http://127.0.0.1:8080/v1",
		Reasoning: true, Input: []string{"text"}, MaxTokens: 16384,
		SamplingParams:                map[string]any{"temperature": 0.7, "top_p": 0.8},
		SamplingParamsByThinkingLevel: map[string]map[string]any{"medium": {"top_k": 20}},
		Compat: &llm.Compat{ThinkingFormat: FormatQwenChatTemplate, MaxTokensField: "max_tokens",
			SupportsDeveloperRole: new(bool), ThinkingTokenBudgetField: "thinking_token_budget"}}
	openrouter := &llm.Model{ID: "anthropic/claude-sonnet-4.5", Provider: "openrouter", API: llm.APIOpenAICompletions,
		BaseURL: "https://openrouter.ai/api/v1", Reasoning: true, Input: []string{"text", "image"}, MaxTokens: 64000,
		Compat: &llm.Compat{OpenRouterRouting: json.RawMessage(`{"only":["anthropic"]}`)}}
	deepseek := &llm.Model{ID: "deepseek-reasoner", Provider: "deepseek", API: llm.APIOpenAICompletions,
		BaseURL: "https://api.deepseek.com", Reasoning: true, Input: []string{"text"}, MaxTokens: 64000}
	mistral := &llm.Model{ID: "devstral-medium", Provider: "mistral", API: llm.APIOpenAICompletions,
		BaseURL: "https://api.mistral.ai/v1", Input: []string{"text"}, MaxTokens: 32000,
		Compat: &llm.Compat{RequiresAssistantAfterToolResult: ptrTrue()}}
	off := "minimal"
	zai := &llm.Model{ID: "glm-4.6", Provider: "zai", API: llm.APIOpenAICompletions, BaseURL: "https://api.z.ai/api/coding/paas/v4",
		Reasoning: true, Input: []string{"text"}, MaxTokens: 131072, ThinkingLevelMap: map[string]*string{"off": &off}}

	temp := 0.3
	cases := []struct {
		name string
		req  llm.Request
	}{
		{"openai_high_long_cache.json", llm.Request{Model: openaiModel, SystemPrompt: "You are relay.", Tools: tools,
			ThinkingLevel: llm.ThinkingHigh, CacheRetention: llm.CacheLong, SessionID: "sess-123"}},
		{"openai_off_no_cache.json", llm.Request{Model: openaiModel, SystemPrompt: "You are relay.",
			ThinkingLevel: llm.ThinkingOff, CacheRetention: llm.CacheNone, SessionID: "sess-123", MaxTokens: 1000, Temperature: &temp}},
		{"llamacpp_qwen_template.json", llm.Request{Model: llamacpp, SystemPrompt: "You are relay.", Tools: tools,
			ThinkingLevel: llm.ThinkingMedium, CacheRetention: llm.CacheShort}},
		{"openrouter_anthropic_cache.json", llm.Request{Model: openrouter, SystemPrompt: "You are relay.", Tools: tools,
			ThinkingLevel: llm.ThinkingOff, CacheRetention: llm.CacheShort, SessionID: "s"}},
		{"deepseek.json", llm.Request{Model: deepseek, SystemPrompt: "You are relay.", ThinkingLevel: llm.ThinkingLow, CacheRetention: llm.CacheShort}},
		{"mistral.json", llm.Request{Model: mistral, SystemPrompt: "You are relay.", Tools: tools, CacheRetention: llm.CacheShort}},
		{"zai_off.json", llm.Request{Model: zai, SystemPrompt: "You are relay.", CacheRetention: llm.CacheShort}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Messages = conversation(req.Model)
			llmtest.GoldenJSON(t, *update, tc.name, buildBody(&req, resolveCompat(req.Model)))
		})
	}
}

func ptrTrue() *bool { b := true; return &b }

func TestThinkingFormats(t *testing.T) {
	base := llm.Model{ID: "m", Provider: "custom", BaseURL: "http://localhost/v1", Reasoning: true, MaxTokens: 8000}
	cases := []struct {
		format string
		level  llm.ThinkingLevel
		want   string
	}{
		{FormatOpenAI, llm.ThinkingHigh, `{"reasoning_effort":"high"}`},
		{FormatOpenAI, llm.ThinkingOff, `{}`},
		{FormatOpenRouter, llm.ThinkingLow, `{"reasoning":{"effort":"low"}}`},
		{FormatOpenRouter, llm.ThinkingOff, `{"reasoning":{"effort":"none"}}`},
		{FormatDeepSeek, llm.ThinkingHigh, `{"reasoning_effort":"high","thinking":{"type":"enabled"}}`},
		{FormatDeepSeek, llm.ThinkingOff, `{"thinking":{"type":"disabled"}}`},
		{FormatTogether, llm.ThinkingMedium, `{"reasoning":{"enabled":true},"reasoning_effort":"medium"}`},
		{FormatBaseten, llm.ThinkingOff, `{"chat_template_args":{"enable_thinking":false}}`},
		{FormatZAI, llm.ThinkingHigh, `{"reasoning_effort":"high","thinking":{"clear_thinking":false,"type":"enabled"}}`},
		{FormatQwen, llm.ThinkingHigh, `{"enable_thinking":true}`},
		{FormatChatTemplate, llm.ThinkingOff, `{"chat_template_kwargs":{"enable_thinking":false}}`},
		{FormatQwenChatTemplate, llm.ThinkingLow, `{"chat_template_kwargs":{"enable_thinking":true,"preserve_thinking":true}}`},
		{FormatStringThinking, llm.ThinkingOff, `{"thinking":"none"}`},
		{FormatStringThinking, llm.ThinkingMinimal, `{"thinking":"minimal"}`},
		{FormatAntLing, llm.ThinkingHigh, `{}`},
	}
	for _, tc := range cases {
		m := base
		m.Compat = &llm.Compat{ThinkingFormat: tc.format}
		b := body{}
		req := &llm.Request{Model: &m, ThinkingLevel: tc.level}
		applyThinking(b, req, resolveCompat(&m), req.EffectiveThinking(), 8000)
		got, _ := llm.Marshal(b)
		if string(got) != tc.want {
			t.Errorf("%s/%s: got %s, want %s", tc.format, tc.level, got, tc.want)
		}
	}
}

func TestChatTemplateKwargs(t *testing.T) {
	m := &llm.Model{ID: "m", Reasoning: true, ThinkingLevelMap: map[string]*string{"high": strp("deep")}}
	c := compat{chatTemplateKwargs: map[string]json.RawMessage{
		"thinking":  json.RawMessage(`{"$var":"thinking.enabled"}`),
		"strength":  json.RawMessage(`{"$var":"thinking.effort","omitWhenOff":true}`),
		"preserved": json.RawMessage(`true`),
	}}
	got, _ := llm.Marshal(chatTemplateKwargs(m, c, llm.ThinkingHigh))
	if string(got) != `{"preserved":true,"strength":"deep","thinking":true}` {
		t.Errorf("on: %s", got)
	}
	got, _ = llm.Marshal(chatTemplateKwargs(m, c, llm.ThinkingOff))
	if string(got) != `{"preserved":true,"thinking":false}` {
		t.Errorf("off: %s", got)
	}
}

func TestNormalizeToolCallID(t *testing.T) {
	long := "call_abc|fc_" + string(bytes.Repeat([]byte("x"), 80))
	cases := []struct {
		id   string
		c    compat
		want string
	}{
		{"call_abc|fc_1", compat{}, "call_abc_fc_1"},
		{long, compat{}, "call_abc_" + shortHash(long)},
		{"toolu_01A09q90qw90lq917835lq9", compat{requiresMistralToolIDs: true}, "toolu01A0"},
		{"ab", compat{requiresMistralToolIDs: true}, "abABCDEFG"},
		{"0123456789012345678901234567890123456789XYZ", compat{toolCallIDMaxLength: 40}, "0123456789012345678901234567890123456789"},
	}
	for _, tc := range cases {
		if got := normalizeToolCallID(tc.id, tc.c); got != tc.want {
			t.Errorf("normalize(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}

func TestDetectCompat(t *testing.T) {
	cases := []struct {
		provider, url string
		check         func(compat) bool
	}{
		{"openai", "https://api.openai.com/v1", func(c compat) bool {
			return c.supportsStore && c.supportsDeveloperRole && c.maxTokensField == "max_completion_tokens" && c.thinkingFormat == FormatOpenAI
		}},
		{"groq", "https://api.groq.com/openai/v1", func(c compat) bool { return c.supportsDeveloperRole && c.supportsReasoningEffort }},
		{"xai", "https://api.x.ai/v1", func(c compat) bool { return !c.supportsStore && !c.supportsReasoningEffort }},
		{"deepseek", "https://api.deepseek.com", func(c compat) bool {
			return c.thinkingFormat == FormatDeepSeek && c.requiresReasoningContent
		}},
		{"openrouter", "https://openrouter.ai/api/v1", func(c compat) bool {
			return c.thinkingFormat == FormatOpenRouter && !c.supportsDeveloperRole
		}},
		{"together", "https://api.together.xyz/v1", func(c compat) bool {
			return c.maxTokensField == "max_tokens" && c.thinkingFormat == FormatTogether && !c.supportsStrictMode
		}},
		{"zai", "https://api.z.ai/api/paas/v4", func(c compat) bool { return c.thinkingFormat == FormatZAI }},
	}
	for _, tc := range cases {
		c := detectCompat(&llm.Model{ID: "x", Provider: tc.provider, BaseURL: tc.url})
		if !tc.check(c) {
			t.Errorf("%s: unexpected compat %+v", tc.provider, c)
		}
	}
}
