package responses

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func codexJWT(account string) string {
	b, _ := json.Marshal(map[string]any{codexJWTClaim: map[string]string{"chatgpt_account_id": account}, "exp": 1})
	return "eyJhbGciOiJSUzI1NiJ9." + base64.RawURLEncoding.EncodeToString(b) + ".c2ln"
}

func codexModel(baseURL string) *llm.Model {
	return &llm.Model{ID: "gpt-6-luna", Name: "GPT Luna", API: "openai-codex-responses", Provider: "openai-codex",
		BaseURL: baseURL, Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 272000, MaxTokens: 128000}
}

var codexTarget = llmtest.Target{Client: NewCodex(), Model: codexModel}

func TestCodexRequestOnTheWire(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}})
	defer srv.Close()
	msg, _ := codexTarget.Run(t, srv, &llm.Request{APIKey: codexJWT("acct-7"), SystemPrompt: "Be brief.", SessionID: "sess-9",
		ThinkingLevel: llm.ThinkingHigh, Tools: []llm.ToolSpec{{Name: "read", Description: "Read", Parameters: json.RawMessage(`{"type":"object"}`)}}})
	if msg.StopReason != llm.StopStop || msg.Text() != "ok" {
		t.Fatalf("stop %s %q %s", msg.StopReason, msg.Text(), msg.ErrorMessage)
	}
	rq := srv.Requests()[0]
	h := rq.Header
	if rq.Path != "/codex/responses" || h.Get("Authorization") != "Bearer "+codexJWT("acct-7") || h.Get("Chatgpt-Account-Id") != "acct-7" ||
		h.Get("Originator") != "pi" || h.Get("Openai-Beta") != "responses=experimental" || h.Get("Session-Id") != "sess-9" ||
		h.Get("X-Client-Request-Id") != "sess-9" || h.Get("Accept") != "text/event-stream" {
		t.Fatalf("request %s headers %v", rq.Path, h)
	}
	b := rq.Body
	if b["instructions"] != "Be brief." || b["store"] != false || b["stream"] != true || b["prompt_cache_key"] != "sess-9" ||
		b["tool_choice"] != "auto" || b["parallel_tool_calls"] != true || b["max_output_tokens"] != nil {
		t.Fatalf("body %v", b)
	}
	if v, _ := json.Marshal(b["text"]); string(v) != `{"verbosity":"low"}` {
		t.Fatalf("text %s", v)
	}
	if v, _ := json.Marshal(b["reasoning"]); string(v) != `{"effort":"high","summary":"auto"}` {
		t.Fatalf("reasoning %s", v)
	}
	if v, _ := json.Marshal(b["include"]); string(v) != `["reasoning.encrypted_content"]` {
		t.Fatalf("include %s", v)
	}
	in := b["input"].([]any)
	if len(in) != 1 || in[0].(map[string]any)["role"] != "user" {
		t.Fatalf("the system prompt is an input item: %v", in)
	}
}

func TestCodexDefaults(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}})
	defer srv.Close()
	codexTarget.Run(t, srv, &llm.Request{APIKey: codexJWT("a"), CacheRetention: llm.CacheNone, SessionID: "s"})
	rq := srv.Requests()[0]
	if rq.Body["instructions"] != codexInstruction || rq.Body["prompt_cache_key"] != nil || rq.Header.Get("Session-Id") != "" {
		t.Fatalf("body %v headers %v", rq.Body, rq.Header)
	}
	// Reasoning off is said explicitly, as the original does.
	if v, _ := json.Marshal(rq.Body["reasoning"]); string(v) != `{"effort":"none"}` {
		t.Fatalf("reasoning %s", v)
	}
}

func TestCodexErrors(t *testing.T) {
	// A key that is not a ChatGPT token never reaches the server.
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}})
	defer srv.Close()
	msg, _ := codexTarget.Run(t, srv, &llm.Request{APIKey: "sk-proj-123"})
	if msg.StopReason != llm.StopError || !strings.Contains(msg.ErrorMessage, "no ChatGPT account id") ||
		!strings.Contains(msg.ErrorMessage, "/login openai-codex") || len(srv.Requests()) != 0 {
		t.Fatalf("%s %q (%d requests)", msg.StopReason, msg.ErrorMessage, len(srv.Requests()))
	}
	limit := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 429,
		Body: `{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1900000000}}`}}}})
	defer limit.Close()
	msg, _ = codexTarget.Run(t, limit, &llm.Request{APIKey: codexJWT("a")})
	if msg.StopReason != llm.StopError || !strings.HasPrefix(msg.ErrorMessage, "You have hit your ChatGPT usage limit") {
		t.Fatalf("%s %q", msg.StopReason, msg.ErrorMessage)
	}
}

func TestCodexURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "https://chatgpt.com/backend-api/codex/responses",
		"https://chatgpt.com/backend-api/": "https://chatgpt.com/backend-api/codex/responses",
		"https://proxy.example/codex":      "https://proxy.example/codex/responses",
		"https://proxy.example/x/codex/responses/": "https://proxy.example/x/codex/responses",
	} {
		if got := CodexURL(in); got != want {
			t.Errorf("CodexURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// The SSE request to the Codex backend goes out zstd-compressed, as the
// original sends it: the fake decodes the body (a corrupt one would be
// refused), the payload hook still sees the JSON, and a long conversation
// travels in a fraction of its size.
func TestCodexSendsZstdBody(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}})
	defer srv.Close()
	long := strings.Repeat("the same line of a long conversation, again and again\n", 2000)
	var hookSaw []byte
	req := &llm.Request{Model: codexModel(srv.URL), APIKey: codexJWT("acct-z"), SystemPrompt: "Be brief.", Transport: "sse",
		Messages:  []llm.Message{&llm.UserMessage{Content: llm.StringContent(long)}},
		OnPayload: func(b []byte) ([]byte, error) { hookSaw = append([]byte(nil), b...); return b, nil }}
	msg := NewCodex().Stream(context.Background(), req, nil)
	if msg.StopReason != llm.StopStop || msg.Text() != "ok" {
		t.Fatalf("%s %q %s", msg.StopReason, msg.Text(), msg.ErrorMessage)
	}
	r := srv.Requests()[0]
	if r.Method != "POST" || r.Header.Get("Content-Encoding") != "zstd" {
		t.Fatalf("%s with Content-Encoding %q", r.Method, r.Header.Get("Content-Encoding"))
	}
	if !json.Valid(hookSaw) || !strings.Contains(string(hookSaw), "again and again") {
		t.Errorf("the payload hook saw %d bytes that are not the JSON body", len(hookSaw))
	}
	if string(r.Raw) != string(hookSaw) {
		t.Error("the decoded body differs from what the hook saw")
	}
	if r.WireBytes*10 > len(r.Raw) {
		t.Errorf("%d bytes on the wire for a %d-byte body: not compressed", r.WireBytes, len(r.Raw))
	}
	in, _ := r.Body["input"].([]any)
	if len(in) != 1 || !strings.Contains(fmt.Sprint(in[0]), "again and again") || r.Body["instructions"] != "Be brief." {
		t.Errorf("decoded body: %v", r.Body)
	}
}
