package llmtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// HTTPError is an error body in one API's shape and a piece of its message
// that the client's ErrorMessage must then contain.
type HTTPError struct {
	Body string
	Has  string
}

// Faults is what the common fault table needs to know of one API: its
// error bodies, its in-stream error and malformed event, and how its
// failures read.
type Faults struct {
	// Bodies of a 429 rate limit, a 500 (retried, then answered), a 401, a
	// 429 for an exhausted quota and a 400 context overflow. Server.Has is
	// unused.
	RateLimit, Server, Auth, Quota, Overflow HTTPError
	// InStream is the API's error event inside a 200 stream (ErrorType and
	// ErrorMessage), InStreamHas what the client's ErrorMessage then contains.
	InStream    Fault
	InStreamHas string
	// Garbage is a malformed event after the content (Garbage, and
	// GarbageEvent for APIs with named events).
	Garbage Fault
	// CutAfter cuts the connection after this many bytes: inside the
	// partial answer's tool call.
	CutAfter int
	// EarlyEndHas is what the ErrorMessage says when the stream ends before
	// the API's final event.
	EarlyEndHas string
	// Extra are API-specific cases run after the common ones.
	Extra []FaultCase
}

// FaultCase is one row of a fault table: the script, the request, and the
// failure expected (Kind "" expects success with the text KeepText).
type FaultCase struct {
	Name      string
	Responses []Response
	Req       llm.Request
	Kind      llm.ErrorKind
	Retryable bool
	MsgHas    string
	KeepText  string // the text the message keeps
	// KeepPrefix: the text only starts with KeepText (an endless answer
	// keeps what came before the bound).
	KeepPrefix bool
	Requests   int // HTTP requests the client must make
	RetryAfter time.Duration
}

// PartialAnswer is the content streamed before an injected mid-stream
// fault: text and a tool call with arguments.
func PartialAnswer() Response {
	return Response{Text: "partial answer", ToolCalls: []Block{{ID: "call_9", Name: "write", Args: []byte(`{"path":"a.txt","content":"hello there"}`)}}}
}

// FaultCases is the common fault table for f's API: HTTP errors with and
// without provider retries, Retry-After, auth, quota and overflow
// classification, then mid-stream failures (in-stream error, cut
// connection, idle stream, garbage, early end) that must keep the partial
// answer; f.Extra last.
func FaultCases(f Faults) []FaultCase {
	with := func(fl Fault) []Response { r := PartialAnswer(); r.Fault = &fl; return []Response{r} }
	down := func() *Fault { return &Fault{Status: 503, Body: "upstream down", RetryAfter: "0"} }
	cases := []FaultCase{
		{Name: "429 rate limit", Responses: []Response{{Fault: &Fault{Status: 429, Body: f.RateLimit.Body, RetryAfter: "7"}}},
			Kind: llm.ErrRateLimit, Retryable: true, MsgHas: f.RateLimit.Has, Requests: 1, RetryAfter: 7 * time.Second},
		{Name: "500 then success with provider retry", Responses: []Response{{Fault: &Fault{Status: 500, Body: f.Server.Body, RetryAfter: "0"}}, {Text: "recovered"}},
			Req: llm.Request{MaxRetries: 2}, KeepText: "recovered", Requests: 2},
		{Name: "503 retries exhausted", Responses: []Response{{Fault: down()}, {Fault: down()}},
			Req: llm.Request{MaxRetries: 1}, Kind: llm.ErrServer, Retryable: true, MsgHas: "503 upstream down", Requests: 2},
		{Name: "401 auth not retried", Responses: []Response{{Fault: &Fault{Status: 401, Body: f.Auth.Body}}, {Text: "never"}},
			Req: llm.Request{MaxRetries: 3}, Kind: llm.ErrAuth, MsgHas: f.Auth.Has, Requests: 1},
		{Name: "quota 429 not retried", Responses: []Response{{Fault: &Fault{Status: 429, Body: f.Quota.Body, RetryAfter: "0"}}, {Text: "never"}},
			Req: llm.Request{MaxRetries: 3}, Kind: llm.ErrQuota, MsgHas: f.Quota.Has, Requests: 1},
		{Name: "context overflow", Responses: []Response{{Fault: &Fault{Status: 400, Body: f.Overflow.Body}}},
			Kind: llm.ErrContextOverflow, MsgHas: f.Overflow.Has, Requests: 1},
		{Name: "error event inside 200 stream keeps partial", Responses: with(f.InStream),
			Kind: llm.ErrOverloaded, Retryable: true, MsgHas: f.InStreamHas, KeepText: "partial answer", Requests: 1},
		{Name: "connection cut mid-stream", Responses: with(Fault{CutAfter: f.CutAfter}),
			Kind: llm.ErrNetwork, Retryable: true, MsgHas: "connection", KeepText: "partial answer", Requests: 1},
		{Name: "idle stream", Responses: with(Fault{Stall: Duration(10 * time.Second)}),
			Req: llm.Request{IdleTimeout: 100 * time.Millisecond}, Kind: llm.ErrNetwork, Retryable: true, MsgHas: "idle", KeepText: "partial answer", Requests: 1},
		{Name: "malformed chunk", Responses: with(Fault{Garbage: f.Garbage.Garbage, GarbageEvent: f.Garbage.GarbageEvent}),
			Kind: llm.ErrMalformed, Retryable: true, MsgHas: "malformed", KeepText: "partial answer", Requests: 1},
		{Name: "stream ends early", Responses: with(Fault{Stall: Duration(time.Millisecond)}),
			Kind: llm.ErrNetwork, Retryable: true, MsgHas: f.EarlyEndHas, KeepText: "partial answer", Requests: 1},
	}
	cases = append(cases, RetryCases(f.Server.Body, f.RateLimit.Body)...)
	cases = append(cases, StallCases()...)
	return append(cases, f.Extra...)
}

// RetryCases are the transient failures the provider client retries by
// itself before anything streamed (no Retry-After: backoff through the
// injected Sleep, so nothing really waits), given the API's 5xx and 429
// bodies: the caller sees one answer, or the last failure when the
// retries run out.
func RetryCases(serverBody, rateLimitBody string) []FaultCase {
	noSleep := func(context.Context, time.Duration) error { return nil }
	fail := func(status int, body string) Response { return Response{Fault: &Fault{Status: status, Body: body}} }
	return []FaultCase{
		{Name: "retry: 503 then success", Responses: []Response{fail(503, serverBody), {Text: "recovered"}},
			Req: llm.Request{MaxRetries: 2, Sleep: noSleep}, KeepText: "recovered", Requests: 2},
		{Name: "retry: 429, 529, 500 then success", Responses: []Response{fail(429, rateLimitBody), fail(529, serverBody),
			fail(500, serverBody), {Text: "recovered"}},
			Req: llm.Request{MaxRetries: 3, Sleep: noSleep}, KeepText: "recovered", Requests: 4},
		{Name: "retry: 502 and 504 exhausted", Responses: []Response{fail(502, serverBody), fail(504, serverBody), {Text: "never"}},
			Req: llm.Request{MaxRetries: 1, Sleep: noSleep}, Kind: llm.ErrServer, Retryable: true, MsgHas: "504", Requests: 2},
	}
}

// StallCases are the stalling servers every API must survive: the idle
// timeout counts answer progress, not bytes (keep-alives, a byte trickle
// and headers without a body all time out), and an answer has a size
// bound. Each fails with a retryable error that keeps what streamed.
func StallCases() []FaultCase {
	with := func(fl Fault) []Response { r := PartialAnswer(); r.Fault = &fl; return []Response{r} }
	idle := llm.Request{IdleTimeout: 300 * time.Millisecond}
	ping := Duration(20 * time.Millisecond)
	return []FaultCase{
		{Name: "stall: keep-alive pings only", Responses: []Response{{Fault: &Fault{HeadersOnly: true, Pings: ping}}},
			Req: idle, Kind: llm.ErrNetwork, Retryable: true, MsgHas: "idle timeout", Requests: 1},
		{Name: "stall: pings after a partial answer", Responses: with(Fault{Pings: ping}),
			Req: idle, Kind: llm.ErrNetwork, Retryable: true, MsgHas: "idle timeout", KeepText: "partial answer", Requests: 1},
		{Name: "stall: byte trickle", Responses: with(Fault{Trickle: ping}),
			Req: idle, Kind: llm.ErrNetwork, Retryable: true, MsgHas: "idle timeout", KeepText: "partial answer", Requests: 1},
		{Name: "stall: headers then nothing", Responses: []Response{{Fault: &Fault{HeadersOnly: true, Stall: Duration(StallBound)}}},
			Req: idle, Kind: llm.ErrNetwork, Retryable: true, MsgHas: "idle timeout", Requests: 1},
		{Name: "stall: endless text", Responses: with(Fault{Endless: true}),
			Req: llm.Request{MaxAnswerBytes: 64 << 10}, Kind: llm.ErrNetwork, Retryable: true, MsgHas: "exceeded 64 KiB",
			KeepText: "partial answer", KeepPrefix: true, Requests: 1},
		// Progress resets the clock: an answer slower in total than the
		// idle timeout, but never silent that long, completes.
		{Name: "slow but steady answer completes", Responses: []Response{{Text: strings.Repeat("steady ", 60), ChunkSize: 7, Delay: Duration(25 * time.Millisecond)}},
			Req: llm.Request{IdleTimeout: time.Second}, KeepText: strings.Repeat("steady ", 60), Requests: 1},
	}
}

// RunFaults runs the common fault table of f's API (FaultCases) against
// tg, one subtest a case.
func RunFaults(t *testing.T, tg Target, f Faults) {
	RunFaultCases(t, tg, FaultCases(f))
}

// RunFaultCases runs cases against tg, one subtest a case.
func RunFaultCases(t *testing.T, tg Target, cases []FaultCase) {
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) { runFault(t, tg, tt) })
	}
}

func runFault(t *testing.T, tg Target, tt FaultCase) {
	srv := NewServer(&Script{Responses: tt.Responses})
	defer srv.Close()
	req := tt.Req
	msg, rec := tg.Run(t, srv, &req)
	if got := len(srv.Requests()); got != tt.Requests {
		t.Errorf("requests = %d, want %d", got, tt.Requests)
	}
	if tt.Kind == "" {
		if msg.StopReason == llm.StopError {
			t.Fatalf("unexpected error %q", msg.ErrorMessage)
		}
		if msg.Text() != tt.KeepText {
			t.Fatalf("text %q", msg.Text())
		}
		return
	}
	if msg.StopReason != llm.StopError || msg.Err == nil {
		t.Fatalf("stop %s err %v", msg.StopReason, msg.Err)
	}
	if msg.Err.Kind != tt.Kind || msg.Err.Retryable() != tt.Retryable {
		t.Errorf("kind %s retryable %v, want %s %v (%q)", msg.Err.Kind, msg.Err.Retryable(), tt.Kind, tt.Retryable, msg.ErrorMessage)
	}
	if !strings.Contains(msg.ErrorMessage, tt.MsgHas) {
		t.Errorf("ErrorMessage %q lacks %q", msg.ErrorMessage, tt.MsgHas)
	}
	if tt.RetryAfter != 0 && msg.Err.RetryAfter != tt.RetryAfter {
		t.Errorf("RetryAfter %v", msg.Err.RetryAfter)
	}
	if text := msg.Text(); tt.KeepPrefix && !strings.HasPrefix(text, tt.KeepText) || !tt.KeepPrefix && text != tt.KeepText {
		t.Errorf("partial text %.100q, want %q", text, tt.KeepText)
	}
	if last := rec.Last(); last.Type != llm.EventError || last.Message != msg {
		t.Errorf("last event %+v", last.Type)
	}
	if tt.KeepText != "" {
		if tc := msg.ToolCalls(); len(tc) == 1 && len(tc[0].Arguments) == 0 {
			t.Errorf("partial tool call lost its arguments")
		}
	}
}
