package responses

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func testModel(baseURL string) *llm.Model {
	return &llm.Model{ID: "gpt-5", Name: "GPT-5", API: llm.APIOpenAIResponses, Provider: "openai",
		BaseURL: baseURL, Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 400000, MaxTokens: 128000,
		Cost: llm.ModelCost{Input: 1.25, Output: 10, CacheRead: 0.125}}
}

var target = llmtest.Target{Client: New(), Model: testModel}

func TestEventSequences(t *testing.T) {
	thinking := llmtest.Response{Content: []llmtest.Block{
		{Type: "thinking", Text: "**Greeting**\n\nThe user greets me.", Signature: "gAAAAABoQ8xEncrypted=="},
		{Type: "text", Text: "Hi there."}}}
	llmtest.RunEventGoldens(t, target, *update, llmtest.EventCases("resp_", thinking), nil)
}

// TestReplayRoundTrip streams a reasoning + tool-call answer, then sends it
// back: the reasoning item must return verbatim (encrypted content
// included) and the function call with its item id.
func TestReplayRoundTrip(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{
		{Content: []llmtest.Block{
			{Type: "thinking", Text: "plan", Signature: "gAAAAABenc"},
			{Type: "text", Text: "Reading."},
			{Type: "toolCall", ID: "call_7", Name: "read", Args: json.RawMessage(`{"path":"x"}`)}}},
		{Text: "done"},
	}})
	defer srv.Close()
	first, _ := target.Run(t, srv, &llm.Request{ThinkingLevel: llm.ThinkingMedium, SessionID: "sess-1"})
	if first.StopReason != llm.StopToolUse {
		t.Fatalf("stop %s %s", first.StopReason, first.ErrorMessage)
	}
	tc := first.ToolCalls()[0]
	if tc.ID != "call_7|fc_fake2" {
		t.Errorf("tool call id %q", tc.ID)
	}
	msgs := []llm.Message{
		&llm.UserMessage{Content: llm.StringContent("hi")},
		first,
		&llm.ToolResultMessage{ToolCallID: tc.ID, ToolName: "read", Content: llm.Blocks{&llm.TextContent{Text: "content"}}},
	}
	second, _ := target.Run(t, srv, &llm.Request{Messages: msgs, ThinkingLevel: llm.ThinkingMedium, SessionID: "sess-1"})
	if second.Text() != "done" {
		t.Fatalf("second %q %s", second.Text(), second.ErrorMessage)
	}
	in := srv.Requests()[1].Body["input"].([]any)
	got, _ := json.Marshal(in[1:])
	want := `[{"encrypted_content":"gAAAAABenc","id":"rs_fake0","summary":[{"text":"plan","type":"summary_text"}],"type":"reasoning"},` +
		`{"content":[{"annotations":[],"text":"Reading.","type":"output_text"}],"id":"msg_fake1","role":"assistant","status":"completed","type":"message"},` +
		`{"arguments":"{\"path\":\"x\"}","call_id":"call_7","id":"fc_fake2","name":"read","type":"function_call"},` +
		`{"call_id":"call_7","output":"content","type":"function_call_output"}]`
	if string(got) != want {
		t.Errorf("replayed input\n got %s\nwant %s", got, want)
	}
	body := srv.Requests()[1].Body
	if body["prompt_cache_key"] != "sess-1" || body["store"] != false {
		t.Errorf("cache key / store: %v %v", body["prompt_cache_key"], body["store"])
	}
}

func TestUsageAndCost(t *testing.T) { llmtest.RunUsageAndCost(t, target) }

func TestRequestOnTheWire(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}})
	defer srv.Close()
	msg, _ := target.Run(t, srv, &llm.Request{APIKey: "sk-abc", ThinkingLevel: llm.ThinkingLow})
	if msg.StopReason != llm.StopStop || msg.ResponseID != "resp_fake01" {
		t.Fatalf("stop %s %s id %s", msg.StopReason, msg.ErrorMessage, msg.ResponseID)
	}
	r := srv.Requests()[0]
	if r.Path != "/responses" || r.Header.Get("Authorization") != "Bearer sk-abc" {
		t.Errorf("path %s headers %v", r.Path, r.Header)
	}
	if got, _ := json.Marshal(r.Body["reasoning"]); string(got) != `{"effort":"low","summary":"auto"}` {
		t.Errorf("reasoning %s", got)
	}
}

func TestMissingKey(t *testing.T) { llmtest.RunMissingKey(t, target) }

func TestAbortMidStream(t *testing.T) { llmtest.RunAbortMidStream(t, target) }

func rawStream(events ...string) string {
	var sb strings.Builder
	for _, e := range events {
		var probe struct {
			Type string `json:"type"`
		}
		json.Unmarshal([]byte(e), &probe)
		sb.WriteString("event: " + probe.Type + "\ndata: " + e + "\n\n")
	}
	return sb.String()
}

func TestSummaryPartsAndFailure(t *testing.T) {
	body := rawStream(
		`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","model":"gpt-5-2025-08-07"}}`,
		`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`,
		`{"type":"response.reasoning_summary_part.added","sequence_number":2,"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}}`,
		`{"type":"response.reasoning_summary_text.delta","sequence_number":3,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"one"}`,
		`{"type":"response.reasoning_summary_part.done","sequence_number":4,"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":"one"}}`,
		`{"type":"response.reasoning_summary_part.added","sequence_number":5,"item_id":"rs_1","output_index":0,"summary_index":1,"part":{"type":"summary_text","text":""}}`,
		`{"type":"response.reasoning_summary_text.delta","sequence_number":6,"item_id":"rs_1","output_index":0,"summary_index":1,"delta":"two"}`,
		`{"type":"response.output_item.done","sequence_number":7,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"one"},{"type":"summary_text","text":"two"}]}}`,
		`{"type":"response.failed","sequence_number":8,"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"The model failed"}}}`,
	)
	b := llm.NewMessageBuilder(testModel(""), nil)
	msg := readStream(context.Background(), strings.NewReader(body), b)
	th := msg.Content[0].(*llm.ThinkingContent)
	if th.Thinking != "one\n\ntwo" {
		t.Errorf("thinking %q", th.Thinking)
	}
	if msg.StopReason != llm.StopError || msg.ErrorMessage != "server_error: The model failed" || !msg.Err.Retryable() {
		t.Errorf("got %s %q %+v", msg.StopReason, msg.ErrorMessage, msg.Err)
	}
	if msg.ResponseID != "resp_1" || msg.ResponseModel != "gpt-5-2025-08-07" {
		t.Errorf("id %q model %q", msg.ResponseID, msg.ResponseModel)
	}
}

func TestFastPathAgrees(t *testing.T) { llmtest.RunFastPathAgrees(t, target, &fastPath, nil) }
