package anthropic

import (
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func errBody(typ, msg string) string {
	return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"},"request_id":"req_1"}`
}

func TestFaults(t *testing.T) {
	partial := llmtest.Response{Text: "partial answer", ToolCalls: []llmtest.Block{{ID: "toolu_9", Name: "write", Args: []byte(`{"path":"a.txt","content":"hello there"}`)}}}
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
		{name: "429 no retries", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 429, Body: errBody("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"), RetryAfter: "7"}}},
			kind: llm.ErrRateLimit, retryable: true, msgHas: "429 rate_limit_error: Number of request tokens", requests: 1, retryAfter: 7 * time.Second},
		{name: "529 overloaded", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 529, Body: errBody("overloaded_error", "Overloaded")}}},
			kind: llm.ErrOverloaded, retryable: true, msgHas: "529 overloaded_error: Overloaded", requests: 1},
		{name: "500 then success with provider retry", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 500, Body: errBody("api_error", "Internal server error"), RetryAfter: "0"}}, {Text: "recovered"}},
			req: llm.Request{MaxRetries: 2}, keepText: "recovered", requests: 2},
		{name: "503 retries exhausted", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 503, Body: "upstream down", RetryAfter: "0"}}, {Fault: &llmtest.Fault{Status: 503, Body: "upstream down", RetryAfter: "0"}}},
			req: llm.Request{MaxRetries: 1}, kind: llm.ErrServer, retryable: true, msgHas: "503 upstream down", requests: 2},
		{name: "retry-after above cap fails at once", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 429, Body: errBody("rate_limit_error", "slow"), RetryAfter: "120"}}, {Text: "never"}},
			req: llm.Request{MaxRetries: 3, MaxRetryDelay: time.Minute}, kind: llm.ErrRateLimit, retryable: true, msgHas: "more than the 1m0s limit", requests: 1},
		{name: "401 auth not retried", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 401, Body: errBody("authentication_error", "invalid x-api-key")}}, {Text: "never"}},
			req: llm.Request{MaxRetries: 3}, kind: llm.ErrAuth, msgHas: "authentication_error", requests: 1},
		{name: "billing not retried", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 400, Body: errBody("invalid_request_error", "Your credit balance is too low to access the Anthropic API.")}}},
			req: llm.Request{MaxRetries: 3}, kind: llm.ErrBilling, msgHas: "credit balance", requests: 1},
		{name: "quota 429 not retried", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 429, Body: `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota"}}`, RetryAfter: "0"}}, {Text: "never"}},
			req: llm.Request{MaxRetries: 3}, kind: llm.ErrQuota, msgHas: "quota", requests: 1},
		{name: "context overflow", responses: []llmtest.Response{{Fault: &llmtest.Fault{Status: 400, Body: errBody("invalid_request_error", "prompt is too long: 213462 tokens > 200000 maximum")}}},
			kind: llm.ErrContextOverflow, msgHas: "prompt is too long", requests: 1},
		{name: "overloaded_error inside 200 stream keeps partial", responses: []llmtest.Response{with(llmtest.Fault{ErrorType: "overloaded_error", ErrorMessage: "Overloaded"})},
			kind: llm.ErrOverloaded, retryable: true, msgHas: "overloaded_error: Overloaded", keepText: "partial answer", requests: 1},
		{name: "connection cut mid-stream", responses: []llmtest.Response{with(llmtest.Fault{CutAfter: 900})},
			kind: llm.ErrNetwork, retryable: true, msgHas: "connection", keepText: "partial answer", requests: 1},
		{name: "idle stream", responses: []llmtest.Response{with(llmtest.Fault{Stall: llmtest.Duration(10 * time.Second)})},
			req: llm.Request{IdleTimeout: 100 * time.Millisecond}, kind: llm.ErrNetwork, retryable: true, msgHas: "idle", keepText: "partial answer", requests: 1},
		{name: "malformed chunk", responses: []llmtest.Response{with(llmtest.Fault{GarbageEvent: "content_block_delta", Garbage: "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{"})},
			kind: llm.ErrMalformed, retryable: true, msgHas: "malformed", keepText: "partial answer", requests: 1},
		{name: "stream ends early", responses: []llmtest.Response{with(llmtest.Fault{Stall: llmtest.Duration(time.Millisecond)})},
			kind: llm.ErrNetwork, retryable: true, msgHas: "before message_stop", keepText: "partial answer", requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(&llmtest.Script{Responses: tt.responses})
			defer srv.Close()
			req := tt.req
			req.Messages = []llm.Message{userText("hi")}
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
				tc := msg.ToolCalls()
				if len(tc) == 1 && string(tc[0].Arguments) == "" {
					t.Errorf("partial tool call lost its arguments")
				}
			}
		})
	}
}

// TestStalls runs the shared stalling servers (pings, trickle, headers
// only, endless text) against the Anthropic client.
func TestStalls(t *testing.T) {
	llmtest.RunFaultCases(t, llmtest.Target{Client: New(), Model: sonnet}, llmtest.StallCases())
}

// TestRetries runs the shared provider-level retry cases against the
// Anthropic client.
func TestRetries(t *testing.T) {
	llmtest.RunFaultCases(t, llmtest.Target{Client: New(), Model: sonnet},
		llmtest.RetryCases(errBody("api_error", "Internal server error"), errBody("rate_limit_error", "slow down")))
}
