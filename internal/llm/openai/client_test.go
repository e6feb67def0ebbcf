package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func testModel(baseURL string) *llm.Model {
	return &llm.Model{ID: "deepseek-chat", Name: "DeepSeek", API: llm.APIOpenAICompletions, Provider: "custom",
		BaseURL: baseURL, Reasoning: true, Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 8192,
		Cost: llm.ModelCost{Input: 0.27, Output: 1.1, CacheRead: 0.07}}
}

var target = llmtest.Target{Client: New(), Model: testModel}

func TestEventSequences(t *testing.T) {
	thinking := llmtest.Response{Thinking: "The user greets me. I should greet back.", Text: "Hi there."}
	llmtest.RunEventGoldens(t, target, *update, llmtest.EventCases("chatcmpl-", thinking), nil)
}

// TestInterleavedToolCalls feeds chunks where two tool calls' argument
// pieces alternate by index, as some servers stream parallel calls, plus
// reasoning_details signatures.
func TestInterleavedToolCalls(t *testing.T) {
	head := `{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"x","choices":[{"index":0,"delta":`
	frames := []string{
		head + `{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"ls","arguments":""}}]},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"read","arguments":"{\"pa"}}]},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":\".\"}"}}]},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":1,"function":{"arguments":"th\":\"a\"}"}}],"reasoning_details":[{"type":"reasoning.encrypted","id":"call_b","data":"enc=="}]},"finish_reason":null}]}`,
		head + `{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`,
	}
	var body strings.Builder
	for _, f := range frames {
		body.WriteString("data: " + f + "\n\n")
	}
	b := llm.NewMessageBuilder(testModel(""), nil)
	msg := readStream(context.Background(), strings.NewReader(body.String()), b, testModel(""))
	if msg.StopReason != llm.StopToolUse {
		t.Fatalf("stop %s %s", msg.StopReason, msg.ErrorMessage)
	}
	tc := msg.ToolCalls()
	if len(tc) != 2 || string(tc[0].Arguments) != `{"path":"."}` || string(tc[1].Arguments) != `{"path":"a"}` {
		t.Fatalf("calls %+v", tc)
	}
	if tc[1].ThoughtSignature != `{"type":"reasoning.encrypted","id":"call_b","data":"enc=="}` {
		t.Errorf("signature %q", tc[1].ThoughtSignature)
	}
	if msg.ResponseModel != "x" || msg.ResponseID != "gen-1" {
		t.Errorf("response %q %q", msg.ResponseID, msg.ResponseModel)
	}
}

func TestReasoningFieldsAndSignature(t *testing.T) {
	for _, field := range []string{"reasoning_content", "reasoning", "reasoning_text"} {
		body := "data: " + `{"id":"1","choices":[{"index":0,"delta":{"` + field + `":"hmm"},"finish_reason":null}]}` + "\n\n" +
			"data: " + `{"id":"1","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}` + "\n\n"
		msg := readStream(context.Background(), strings.NewReader(body), llm.NewMessageBuilder(testModel(""), nil), testModel(""))
		th, ok := msg.Content[0].(*llm.ThinkingContent)
		if !ok || th.Thinking != "hmm" || th.ThinkingSignature != field || msg.Text() != "ok" {
			t.Errorf("%s: %+v", field, msg.Content)
		}
	}
}

func TestUsageAndCost(t *testing.T) { llmtest.RunUsageAndCost(t, target) }

func TestFinishReasons(t *testing.T) {
	tests := []struct {
		raw     string
		want    llm.StopReason
		wantErr string
	}{
		{"stop", llm.StopStop, ""},
		{"length", llm.StopLength, ""},
		{"tool_calls", llm.StopToolUse, ""},
		{"content_filter", llm.StopError, "Provider finish_reason: content_filter"},
		{"weird", llm.StopError, "Provider finish_reason: weird"},
	}
	for _, tt := range tests {
		srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "partial", RawStopReason: tt.raw}}})
		msg, c := target.Run(t, srv, &llm.Request{})
		srv.Close()
		if msg.StopReason != tt.want || msg.ErrorMessage != tt.wantErr {
			t.Errorf("%s: got %s %q", tt.raw, msg.StopReason, msg.ErrorMessage)
		}
		if tt.want == llm.StopError {
			if msg.Text() != "partial" || msg.Err == nil {
				t.Errorf("%s: partial %q err %+v", tt.raw, msg.Text(), msg.Err)
			}
			if last := c.Last(); last.Type != llm.EventError {
				t.Errorf("%s: last event %s", tt.raw, last.Type)
			}
		}
	}
}

func TestRequestOnTheWire(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}})
	defer srv.Close()
	m := testModel(srv.URL)
	m.Headers = map[string]string{"X-Model": "1"}
	msg, _ := target.Run(t, srv, &llm.Request{Model: m, APIKey: "sk-abc", Headers: map[string]string{"X-Req": "2"}, ThinkingLevel: llm.ThinkingHigh})
	if msg.StopReason != llm.StopStop {
		t.Fatalf("stop %s %s", msg.StopReason, msg.ErrorMessage)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests %d", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-abc" ||
		r.Header.Get("X-Model") != "1" || r.Header.Get("X-Req") != "2" {
		t.Errorf("path %s headers %v", r.Path, r.Header)
	}
	if r.Body["reasoning_effort"] != "high" || r.Body["stream"] != true {
		t.Errorf("body %v", r.Body)
	}
}

func TestMissingKey(t *testing.T) { llmtest.RunMissingKey(t, target) }

func TestAbortMidStream(t *testing.T) { llmtest.RunAbortMidStream(t, target) }

// TestFastPathAgrees streams every scripted answer with and without the
// hand-written decoder: events and final messages must be identical.
func TestFastPathAgrees(t *testing.T) { llmtest.RunFastPathAgrees(t, target, &fastPath, nil) }
