package gemini

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func errBody(code int, status, msg string) string {
	return `{"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `","status":"` + status + `"}}`
}

func TestFaults(t *testing.T) {
	partial := llmtest.Response{Text: "partial answer", ToolCalls: []llmtest.Block{{Name: "write", Args: []byte(`{"path":"a.txt","content":"hello there"}`)}}}
	with := func(f llmtest.Fault) llmtest.Response { r := partial; r.Fault = &f; return r }
	tests := []struct {
		name       string
		responses  []llmtest.Response
		req        llm.Request
		kind       llm.ErrorKind
		retryable  bool
		msgHas     string
		keepText   string
		requests   int
		retryAfter time.Duration
	}{
		{name: "429 rate limit", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 429, Body: errBody(429, "RESOURCE_EXHAUSTED", "Rate limit reached, too many requests"), RetryAfter: "7"}}},
			kind: llm.ErrRateLimit, retryable: true, msgHas: "Rate limit reached", requests: 1, retryAfter: 7 * time.Second},
		{name: "500 then success with provider retry", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 500, Body: errBody(500, "INTERNAL", "An internal error has occurred"), RetryAfter: "0"}}, {Text: "recovered"}},
			req: llm.Request{MaxRetries: 2}, keepText: "recovered", requests: 2},
		{name: "503 retries exhausted", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 503, Body: "upstream down", RetryAfter: "0"}}, {Fault: &llmtest.Fault{Status: 503, Body: "upstream down", RetryAfter: "0"}}},
			req: llm.Request{MaxRetries: 1}, kind: llm.ErrServer, retryable: true, msgHas: "503 upstream down", requests: 2},
		{name: "401 auth not retried", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 401, Body: errBody(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.")}}, {Text: "never"}},
			req: llm.Request{MaxRetries: 3}, kind: llm.ErrAuth, msgHas: "API key not valid", requests: 1},
		{name: "quota 429 not retried", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 429, Body: errBody(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details"), RetryAfter: "0"}}, {Text: "never"}},
			req: llm.Request{MaxRetries: 3}, kind: llm.ErrQuota, msgHas: "quota", requests: 1},
		{name: "context overflow", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 400, Body: errBody(400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).")}}},
			kind: llm.ErrContextOverflow, msgHas: "input token count", requests: 1},
		{name: "error chunk inside 200 stream keeps partial", responses: []llmtest.Response{with(llmtest.Fault{ErrorType: "UNAVAILABLE", ErrorMessage: "The model is overloaded. Please try again later."})},
			kind: llm.ErrOverloaded, retryable: true, msgHas: "UNAVAILABLE: The model is overloaded", keepText: "partial answer", requests: 1},
		{name: "connection cut mid-stream", responses: []llmtest.Response{with(llmtest.Fault{CutAfter: 900})},
			kind: llm.ErrNetwork, retryable: true, msgHas: "connection", keepText: "partial answer", requests: 1},
		{name: "idle stream", responses: []llmtest.Response{with(llmtest.Fault{Stall: llmtest.Duration(10 * time.Second)})},
			req: llm.Request{IdleTimeout: 100 * time.Millisecond}, kind: llm.ErrNetwork, retryable: true, msgHas: "idle", keepText: "partial answer", requests: 1},
		{name: "malformed chunk", responses: []llmtest.Response{with(llmtest.Fault{Garbage: `{"candidates": [{"content": {"parts": [{"text": "x"`})},
			kind: llm.ErrMalformed, retryable: true, msgHas: "malformed", keepText: "partial answer", requests: 1},
		{name: "stream ends without finishReason", responses: []llmtest.Response{with(llmtest.Fault{Stall: llmtest.Duration(time.Millisecond)})},
			kind: llm.ErrNetwork, retryable: true, msgHas: "connection closed", keepText: "partial answer", requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(&llmtest.Script{Responses: tt.responses})
			defer srv.Close()
			req := tt.req
			msg, c := run(t, srv, &req)
			if got := len(srv.Requests()); got != tt.requests {
				t.Errorf("requests = %d, want %d", got, tt.requests)
			}
			if tt.kind == "" {
				if msg.StopReason == llm.StopError {
					t.Fatalf("unexpected error %q", msg.ErrorMessage)
				}
				if msg.Text() != tt.keepText {
					t.Fatalf("text %q", msg.Text())
				}
				return
			}
			if msg.StopReason != llm.StopError || msg.Err == nil {
				t.Fatalf("stop %s err %v", msg.StopReason, msg.Err)
			}
			if msg.Err.Kind != tt.kind || msg.Err.Retryable() != tt.retryable {
				t.Errorf("kind %s retryable %v, want %s %v (%q)", msg.Err.Kind, msg.Err.Retryable(), tt.kind, tt.retryable, msg.ErrorMessage)
			}
			if !strings.Contains(msg.ErrorMessage, tt.msgHas) {
				t.Errorf("ErrorMessage %q lacks %q", msg.ErrorMessage, tt.msgHas)
			}
			if tt.retryAfter != 0 && msg.Err.RetryAfter != tt.retryAfter {
				t.Errorf("RetryAfter %v", msg.Err.RetryAfter)
			}
			if msg.Text() != tt.keepText {
				t.Errorf("partial text %q, want %q", msg.Text(), tt.keepText)
			}
			last := c.events[len(c.events)-1]
			if last.Type != llm.EventError || last.Message != msg {
				t.Errorf("last event %+v", last.Type)
			}
			if tt.keepText != "" {
				if tc := msg.ToolCalls(); len(tc) == 1 && len(tc[0].Arguments) == 0 {
					t.Errorf("partial tool call lost its arguments")
				}
			}
		})
	}
}
