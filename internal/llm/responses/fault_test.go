package responses

import (
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func errBody(typ, code, msg string) string {
	return `{"error":{"message":"` + msg + `","type":"` + typ + `","param":null,"code":"` + code + `"}}`
}

func TestFaults(t *testing.T) {
	partial := llmtest.Response{Text: "partial answer", ToolCalls: []llmtest.Block{{ID: "call_9", Name: "write", Args: []byte(`{"path":"a.txt","content":"hello there"}`)}}}
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
		{name: "429 rate limit", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 429, Body: errBody("requests", "rate_limit_exceeded", "Rate limit reached for gpt-5"), RetryAfter: "7"}}},
			kind: llm.ErrRateLimit, retryable: true, msgHas: "Rate limit reached", requests: 1, retryAfter: 7 * time.Second},
		{name: "500 then success with provider retry", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 500, Body: errBody("server_error", "", "The server had an error"), RetryAfter: "0"}}, {Text: "recovered"}},
			req: llm.Request{MaxRetries: 2}, keepText: "recovered", requests: 2},
		{name: "503 retries exhausted", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 503, Body: "upstream down", RetryAfter: "0"}}, {Fault: &llmtest.Fault{Status: 503, Body: "upstream down", RetryAfter: "0"}}},
			req: llm.Request{MaxRetries: 1}, kind: llm.ErrServer, retryable: true, msgHas: "503 upstream down", requests: 2},
		{name: "401 auth not retried", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 401, Body: errBody("invalid_request_error", "invalid_api_key", "Incorrect API key provided")}}, {Text: "never"}},
			req: llm.Request{MaxRetries: 3}, kind: llm.ErrAuth, msgHas: "Incorrect API key", requests: 1},
		{name: "quota 429 not retried", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 429, Body: errBody("insufficient_quota", "insufficient_quota", "You exceeded your current quota"), RetryAfter: "0"}}, {Text: "never"}},
			req: llm.Request{MaxRetries: 3}, kind: llm.ErrQuota, msgHas: "quota", requests: 1},
		{name: "context overflow", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 400, Body: errBody("invalid_request_error", "context_length_exceeded", "This model's maximum context length is 128000 tokens")}}},
			kind: llm.ErrContextOverflow, msgHas: "maximum context length", requests: 1},
		{name: "error event inside 200 stream keeps partial", responses: []llmtest.Response{with(llmtest.Fault{ErrorType: "server_error", ErrorMessage: "The server is overloaded"})},
			kind: llm.ErrOverloaded, retryable: true, msgHas: "server_error: The server is overloaded", keepText: "partial answer", requests: 1},
		{name: "response.failed", responses: []llmtest.Response{{Text: "partial answer", RawStopReason: "failed"}},
			kind: llm.ErrServer, retryable: true, msgHas: "Unknown error", keepText: "partial answer", requests: 1},
		{name: "connection cut mid-stream", responses: []llmtest.Response{with(llmtest.Fault{CutAfter: 2500})},
			kind: llm.ErrNetwork, retryable: true, msgHas: "connection", keepText: "partial answer", requests: 1},
		{name: "idle stream", responses: []llmtest.Response{with(llmtest.Fault{Stall: llmtest.Duration(10 * time.Second)})},
			req: llm.Request{IdleTimeout: 100 * time.Millisecond}, kind: llm.ErrNetwork, retryable: true, msgHas: "idle", keepText: "partial answer", requests: 1},
		{name: "malformed chunk", responses: []llmtest.Response{with(llmtest.Fault{GarbageEvent: "response.output_text.delta", Garbage: `{"type":"response.output_text.delta","delta":`})},
			kind: llm.ErrMalformed, retryable: true, msgHas: "malformed", keepText: "partial answer", requests: 1},
		{name: "stream ends before response.completed", responses: []llmtest.Response{with(llmtest.Fault{Stall: llmtest.Duration(time.Millisecond)})},
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
