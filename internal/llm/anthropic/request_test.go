package anthropic

import (
	"bytes"
	"encoding/json"
	"sort"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

var (
	readTool = llm.ToolSpec{Name: "read", Description: "Read a file", Parameters: json.RawMessage(
		`{"type":"object","properties":{"path":{"type":"string","description":"File path"},"limit":{"type":"integer"}},"required":["path"],"additionalProperties":false}`)}
	bashTool = llm.ToolSpec{Name: "bash", Description: "Run a command", Parameters: json.RawMessage(
		`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}
	pngData = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

func ptr[T any](v T) *T { return &v }

func ownAssistant(blocks ...llm.Block) *llm.AssistantMessage {
	return &llm.AssistantMessage{Content: blocks, API: llm.APIAnthropicMessages, Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: llm.StopToolUse, Timestamp: 2}
}

func TestRequestBodies(t *testing.T) {
	history := []llm.Message{
		&llm.UserMessage{Content: llm.BlockContent(&llm.TextContent{Text: "What is in this picture and in main.go?"}, &llm.ImageContent{Data: pngData, MimeType: "image/png"}), Timestamp: 1},
		ownAssistant(
			&llm.ThinkingContent{Thinking: "Look at the file.", ThinkingSignature: "sig-abc"},
			&llm.ThinkingContent{Thinking: "[Reasoning redacted]", ThinkingSignature: "opaque-redacted", Redacted: true},
			&llm.ThinkingContent{Thinking: "unsigned thoughts from an aborted stream"},
			&llm.ThinkingContent{Thinking: "  "},
			&llm.TextContent{Text: "Reading it."},
			&llm.TextContent{Text: "   "},
			&llm.ToolCall{ID: "toolu_1", Name: "read", Arguments: json.RawMessage(`{"path":"main.go"}`)},
			&llm.ToolCall{ID: "toolu_2", Name: "bash", Arguments: json.RawMessage(`{"command":"screenshot"}`)},
		),
		&llm.ToolResultMessage{ToolCallID: "toolu_1", ToolName: "read", Content: llm.Blocks{&llm.TextContent{Text: "package main"}, &llm.TextContent{Text: "func main() {}"}}, Timestamp: 3},
		&llm.ToolResultMessage{ToolCallID: "toolu_2", ToolName: "bash", Content: llm.Blocks{&llm.ImageContent{Data: pngData, MimeType: "image/png"}}, IsError: false, Timestamp: 4},
	}
	foreign := []llm.Message{
		userText("hi"),
		&llm.AssistantMessage{API: llm.APIOpenAIResponses, Provider: "openai", Model: "gpt-5", StopReason: llm.StopToolUse, Content: llm.Blocks{
			&llm.ThinkingContent{Thinking: "reasoning from gpt", ThinkingSignature: `{"type":"reasoning","encrypted_content":"xyz"}`},
			&llm.TextContent{Text: "Calling.", TextSignature: "msg_1"},
			&llm.ToolCall{ID: "call_abc|fc_0123", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)},
		}},
		&llm.ToolResultMessage{ToolCallID: "call_abc|fc_0123", ToolName: "bash", Content: llm.Blocks{&llm.TextContent{Text: "a.go"}}},
		&llm.AssistantMessage{API: llm.APIAnthropicMessages, Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: llm.StopError, ErrorMessage: "overloaded",
			Content: llm.Blocks{&llm.TextContent{Text: "half an answ"}}},
		userText("continue"),
	}

	tests := []struct {
		name string
		req  llm.Request
	}{
		{"basic", llm.Request{SystemPrompt: "You are relay.", Tools: []llm.ToolSpec{readTool, bashTool},
			Messages: []llm.Message{userText("List the files.")}}},
		{"images_thinking_toolresults", llm.Request{SystemPrompt: "You are relay.", Tools: []llm.ToolSpec{readTool, bashTool},
			ThinkingLevel: llm.ThinkingMedium, Temperature: ptr(0.5), Messages: history}},
		{"cross_provider_replay", llm.Request{ThinkingLevel: llm.ThinkingHigh, MaxTokens: 4096, Messages: foreign}},
		{"oauth", llm.Request{APIKey: "sk-ant-oat01-secret", SystemPrompt: "You are relay.", Tools: []llm.ToolSpec{readTool, bashTool},
			Messages: []llm.Message{userText("hi")}}},
		{"adaptive_long_cache", llm.Request{Model: func() *llm.Model {
			m := sonnet("")
			m.ID = "claude-opus-4-6"
			m.Compat = &llm.Compat{ForceAdaptiveThinking: ptr(true)}
			return m
		}(), SystemPrompt: "sys", CacheRetention: llm.CacheLong, ThinkingLevel: llm.ThinkingXHigh, Tools: []llm.ToolSpec{readTool},
			Messages: []llm.Message{userText("hi")}}},
		{"no_cache_no_reasoning", llm.Request{Model: func() *llm.Model {
			m := sonnet("")
			m.ID = "claude-3-5-haiku"
			m.Reasoning = false
			m.MaxTokens = 8192
			return m
		}(), SystemPrompt: "sys", CacheRetention: llm.CacheNone, Temperature: ptr(0.2), ThinkingLevel: llm.ThinkingHigh,
			Headers: map[string]string{"X-Custom": "1"}, Messages: []llm.Message{userText("hi")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}})
			defer srv.Close()
			req := tt.req
			if req.Model == nil {
				req.Model = sonnet(srv.URL)
			}
			req.Model.BaseURL = srv.URL
			msg, _ := run(t, srv, &req)
			if msg.StopReason != llm.StopStop {
				t.Fatalf("stream failed: %s", msg.ErrorMessage)
			}
			rec := srv.Requests()[0]
			var out bytes.Buffer
			names := []string{"Accept", "Anthropic-Beta", "Anthropic-Version", "Authorization", "Content-Type", "User-Agent", "X-Api-Key", "X-App", "X-Custom"}
			sort.Strings(names)
			for _, h := range names {
				if v := rec.Header.Get(h); v != "" {
					out.WriteString(h + ": " + v + "\n")
				}
			}
			out.WriteString(rec.Method + " " + rec.Path + "\n\n")
			out.Write(pretty(t, rec.Raw))
			golden(t, "requests/"+tt.name+".txt", out.Bytes())
		})
	}
}

func TestMissingKey(t *testing.T) {
	m := sonnet("http://127.0.0.1:1")
	msg := New().Stream(t.Context(), &llm.Request{Model: m, Messages: []llm.Message{userText("hi")}}, nil)
	if msg.StopReason != llm.StopError || msg.ErrorMessage != "No API key for provider: anthropic" || msg.Err.Kind != llm.ErrAuth {
		t.Fatalf("%s %q", msg.StopReason, msg.ErrorMessage)
	}
	// An Authorization header (ANTHROPIC_AUTH_TOKEN) is enough.
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}})
	defer srv.Close()
	msg = New().Stream(t.Context(), &llm.Request{Model: sonnet(srv.URL), Headers: map[string]string{"Authorization": "Bearer tok"},
		Messages: []llm.Message{userText("hi")}}, nil)
	if msg.StopReason != llm.StopStop {
		t.Fatalf("%s %q", msg.StopReason, msg.ErrorMessage)
	}
	h := srv.Requests()[0].Header
	if h.Get("Authorization") != "Bearer tok" || h.Get("X-Api-Key") != "" {
		t.Fatalf("headers %v", h)
	}
}

func TestOAuthToolNamesMapBack(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{ToolCalls: []llmtest.Block{{Name: "Read", Args: json.RawMessage(`{"path":"a"}`)}}}}})
	defer srv.Close()
	msg, _ := run(t, srv, &llm.Request{APIKey: "sk-ant-oat01-x", Tools: []llm.ToolSpec{readTool}, Messages: []llm.Message{userText("hi")}})
	if tc := msg.ToolCalls(); len(tc) != 1 || tc[0].Name != "read" {
		t.Fatalf("%+v", msg.Content)
	}
}
