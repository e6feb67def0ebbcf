package mistral

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func model(base string) *llm.Model {
	return &llm.Model{ID: "magistral-medium-latest", Name: "Magistral Medium", API: API, Provider: "mistral", BaseURL: base,
		Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 128000, MaxTokens: 40000,
		Cost: llm.ModelCost{Input: 2, Output: 5}}
}

var target = llmtest.Target{Client: New(), Model: model}

func TestFaults(t *testing.T) {
	f := llmtest.OpenAIFaults()
	f.InStreamHas = "overloaded"
	f.CutAfter = 900
	f.Garbage = llmtest.Fault{Garbage: `{"id":"x","choices":[{"delta":`}
	f.EarlyEndHas = "without a finish reason"
	llmtest.RunFaults(t, target, f)
}

func TestMissingKey(t *testing.T) { llmtest.RunMissingKey(t, target) }

func TestAbortMidStream(t *testing.T) { llmtest.RunAbortMidStream(t, target) }

func TestToolCallRoundTrip(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{
		{Text: "Listing.", ToolCalls: []llmtest.Block{{ID: "D681PevKs", Name: "ls", Args: json.RawMessage(`{"path":"."}`)}}},
		{Text: "two files"},
	}})
	defer srv.Close()
	first, _ := target.Run(t, srv, &llm.Request{SessionID: "sess-9", SystemPrompt: "be brief"})
	if first.StopReason != llm.StopToolUse || first.ToolCalls()[0].ID != "D681PevKs" || string(first.ToolCalls()[0].Arguments) != `{"path":"."}` {
		t.Fatalf("first %s %+v %s", first.StopReason, first.Content, first.ErrorMessage)
	}
	foreign := &llm.AssistantMessage{API: "anthropic-messages", Provider: "anthropic", Model: "claude", StopReason: llm.StopToolUse,
		Content: llm.Blocks{&llm.ToolCall{ID: "toolu_01A09q90qw90lq917835lq9", Name: "ls", Arguments: json.RawMessage(`{}`)}}}
	msgs := []llm.Message{
		&llm.UserMessage{Content: llm.StringContent("list")}, first,
		&llm.ToolResultMessage{ToolCallID: "D681PevKs", ToolName: "ls", Content: llm.Blocks{&llm.TextContent{Text: "a b"}}},
		foreign,
		&llm.ToolResultMessage{ToolCallID: "toolu_01A09q90qw90lq917835lq9", ToolName: "ls", IsError: true},
	}
	second, _ := target.Run(t, srv, &llm.Request{Messages: msgs, SessionID: "sess-9"})
	if second.Text() != "two files" {
		t.Fatalf("second %q %s", second.Text(), second.ErrorMessage)
	}
	r := srv.Requests()[1]
	if r.Path != "/v1/chat/completions" || r.Header.Get("x-affinity") != "sess-9" || r.Body["prompt_cache_key"] != "sess-9" {
		t.Errorf("path %s affinity %q cache key %v", r.Path, r.Header.Get("x-affinity"), r.Body["prompt_cache_key"])
	}
	ms := r.Body["messages"].([]any)
	if len(ms) != 5 {
		t.Fatalf("messages %v", ms)
	}
	asst := ms[3].(map[string]any)
	newID := asst["tool_calls"].([]any)[0].(map[string]any)["id"].(string)
	if len(newID) != 9 || strings.Trim(newID, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
		t.Errorf("foreign id became %q", newID)
	}
	res := ms[4].(map[string]any)
	if res["tool_call_id"] != newID || res["content"].([]any)[0].(map[string]any)["text"] != "[tool error] (no tool output)" {
		t.Errorf("tool result %v", res)
	}
	if asst["prefix"] != false {
		t.Errorf("assistant prefix %v", asst["prefix"])
	}
	if b := r.Body; b["prompt_mode"] != nil {
		t.Errorf("thinking off yet prompt_mode %v", b["prompt_mode"])
	}
}

func sse(chunks ...string) string {
	var sb strings.Builder
	for _, c := range chunks {
		sb.WriteString("data: " + c + "\n\n")
	}
	return sb.String()
}

// TestThinkingChunks replays a Magistral stream: thinking arrives as
// content chunks, empty strings between parts open no block.
func TestThinkingChunks(t *testing.T) {
	stream := sse(
		`{"id":"cmpl-1","object":"chat.completion.chunk","model":"magistral-medium-2509","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
		`{"id":"cmpl-1","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"The user "}]}]},"finish_reason":null}]}`,
		`{"id":"cmpl-1","choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}`,
		`{"id":"cmpl-1","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"says hi."}]}]},"finish_reason":null}]}`,
		`{"id":"cmpl-1","choices":[{"index":0,"delta":{"content":[{"type":"text","text":"Hello"}]},"finish_reason":null}]}`,
		`{"id":"cmpl-1","choices":[{"index":0,"delta":{"content":"!"},"finish_reason":null}]}`,
		`{"id":"cmpl-1","choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":60}}}`,
		`[DONE]`,
	)
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&got)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(stream))
	}))
	defer srv.Close()
	prev := &llm.AssistantMessage{API: API, Provider: "mistral", Model: "magistral-medium-latest", StopReason: llm.StopStop,
		Content: llm.Blocks{&llm.ThinkingContent{Thinking: "earlier"}, &llm.TextContent{Text: "ok"}}}
	msg := New().Stream(context.Background(), &llm.Request{Model: model(srv.URL), APIKey: "k", ThinkingLevel: llm.ThinkingHigh,
		Messages: []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}, prev, &llm.UserMessage{Content: llm.StringContent("again")}}}, nil)
	if msg.StopReason != llm.StopStop || len(msg.Content) != 2 {
		t.Fatalf("%s %+v %s", msg.StopReason, msg.Content, msg.ErrorMessage)
	}
	if th := msg.Content[0].(*llm.ThinkingContent).Thinking; th != "The user says hi." {
		t.Errorf("thinking %q", th)
	}
	if tx := msg.Content[1].(*llm.TextContent).Text; tx != "Hello!" {
		t.Errorf("text %q", tx)
	}
	if u := msg.Usage; u.Input != 40 || u.CacheRead != 60 || u.Output != 20 || u.Cost.Total != (40*2+20*5)/1e6 {
		t.Errorf("usage %+v", u)
	}
	if msg.ResponseID != "cmpl-1" || msg.ResponseModel != "magistral-medium-2509" {
		t.Errorf("id %q model %q", msg.ResponseID, msg.ResponseModel)
	}
	if got["prompt_mode"] != "reasoning" {
		t.Errorf("prompt_mode %v", got["prompt_mode"])
	}
	replayed, _ := json.Marshal(got["messages"].([]any)[1])
	if !strings.Contains(string(replayed), `{"thinking":[{"text":"earlier","type":"text"}],"type":"thinking"}`) {
		t.Errorf("replayed thinking %s", replayed)
	}
}

func TestReasoningEffort(t *testing.T) {
	high, none := "high", "none"
	cases := []struct {
		level llm.ThinkingLevel
		m     map[string]*string
		want  any
		mode  any
	}{
		{llm.ThinkingMedium, map[string]*string{"medium": &high}, "high", nil},
		{llm.ThinkingLow, map[string]*string{"medium": &high}, "high", nil},
		{llm.ThinkingOff, map[string]*string{"off": &none}, "none", nil},
		{llm.ThinkingOff, map[string]*string{"high": &high}, nil, nil},
		{llm.ThinkingMedium, nil, nil, "reasoning"},
		{llm.ThinkingOff, nil, nil, nil},
	}
	for i, tc := range cases {
		m := model("")
		m.ThinkingLevelMap = tc.m
		b := buildBody(&llm.Request{Model: m, ThinkingLevel: tc.level}, false)
		if b["reasoning_effort"] != tc.want || b["prompt_mode"] != tc.mode {
			t.Errorf("case %d: effort %v mode %v, want %v %v", i, b["reasoning_effort"], b["prompt_mode"], tc.want, tc.mode)
		}
	}
}

func TestDeriveIDDistinct(t *testing.T) {
	m := newIDMap()
	seen := map[string]string{}
	for _, id := range []string{"call_1", "call-1", "call_2", "toolu_x", "D681PevKs", "D681-PevKs"} {
		got := m.get(id)
		if prev, ok := seen[got]; ok {
			t.Errorf("%q and %q both became %q", prev, id, got)
		}
		seen[got] = id
		if m.get(id) != got {
			t.Errorf("%q not stable", id)
		}
	}
}
