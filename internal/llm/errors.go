package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// AbortedMessage is the error message of an aborted request.
const AbortedMessage = "Request was aborted"

// overflowPatterns match the context-window errors of the providers we
// know; built on first use so start-up pays nothing.
var overflowPatterns = sync.OnceValue(func() []*regexp.Regexp {
	src := []string{
		`prompt is too long`,                        // Anthropic: "prompt is too long: 213462 tokens > 200000 maximum"
		`input is too long for requested model`,     // Bedrock
		`exceeds the context window`,                // OpenAI Responses
		`input token count.*exceeds the maximum`,    // Google: "The input token count (N) exceeds the maximum number of tokens allowed (M)"
		`exceeds the maximum number of tokens`,      // Google, other wording
		`maximum prompt length is \d+`,              // xAI
		`reduce the length of the messages`,         // Groq
		`maximum context length`,                    // OpenAI / OpenRouter: "maximum context length is N tokens"
		`context[_ ]length[_ ]exceeded`,             // OpenAI code context_length_exceeded, generic servers
		`exceeds the limit of \d+`,                  // generic
		`exceeds the available context size`,        // llama.cpp
		`greater than the context length`,           // LM Studio
		`context window exceeds limit`,              // MiniMax
		`exceeded model token limit`,                // Kimi
		`too many tokens`,                           // generic
		`token limit exceeded`,                      // generic
		`request exceeds the maximum context`,       // generic
		`prompt.*too long.*context`,                 // vLLM style
		`context.*(overflow|too long|exceeded)`,     // generic
		`model_context_window_exceeded`,             // Anthropic stop reason surfaced as error
		`requested \d+ tokens.*context.*\d+ tokens`, // vLLM: "you requested N tokens ... context length is M tokens"
	}
	out := make([]*regexp.Regexp, len(src))
	for i, s := range src {
		out[i] = regexp.MustCompile(`(?i)` + s)
	}
	return out
})

// IsContextOverflow reports whether a provider error message says the
// prompt does not fit the model's context window.
func IsContextOverflow(msg string) bool {
	for _, re := range overflowPatterns() {
		if re.MatchString(msg) {
			return true
		}
	}
	return false
}

// ClassifyError rebuilds a ProviderError from an error message alone (for
// messages read back from a session, and for in-stream errors). Status may
// be 0.
func ClassifyError(status int, msg string) *ProviderError {
	if status == 0 {
		status = leadingStatus(msg)
	}
	return &ProviderError{Kind: classify(status, "", msg), Status: status, Message: msg}
}

// leadingStatus reads the HTTP status ClassifyHTTP puts at the front of its
// messages ("529 overloaded_error: ..."), so a message read back from a
// session classifies like the live error did; 0 when there is none.
func leadingStatus(msg string) int {
	if len(msg) < 4 || msg[3] != ' ' {
		return 0
	}
	n := 0
	for _, c := range msg[:3] {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	if n < 100 || n > 599 {
		return 0
	}
	return n
}

// networkWords mark a dropped or stalled connection in a message without
// a status (a cut stream, a reset, an idle timeout).
var networkWords = []string{"terminated", "connection reset", "econnreset", "socket hang up", "unexpected eof",
	"stream ended", "stream stopped", "broken pipe", "connection refused", "idle timeout", "fetch failed"}

// classify decides the kind from the HTTP status, the provider's error type
// or code, and the message text. Quota, billing and auth are checked before
// the status so a 429 "insufficient_quota" is not retried.
func classify(status int, typ, msg string) ErrorKind {
	l := strings.ToLower(typ + " " + msg)
	switch {
	case IsContextOverflow(msg) || strings.Contains(l, "context_length_exceeded") || strings.Contains(l, "request_too_large") && status == 413:
		return ErrContextOverflow
	case isQuota(l):
		return ErrQuota
	case status == 402 || strings.Contains(l, "credit balance") || strings.Contains(l, "payment required") ||
		strings.Contains(l, "billing") && !strings.Contains(l, "resource_exhausted"):
		return ErrBilling
	case status == 401 || status == 403 || strings.Contains(l, "authentication_error") || strings.Contains(l, "permission_error") ||
		strings.Contains(l, "invalid api key") || strings.Contains(l, "invalid x-api-key") || strings.Contains(l, "incorrect api key"):
		return ErrAuth
	case status == 529 || strings.Contains(l, "overloaded"):
		return ErrOverloaded
	case status == 429 || strings.Contains(l, "rate_limit") || strings.Contains(l, "resource_exhausted") || strings.Contains(l, "rate limit") || strings.Contains(l, "too many requests"):
		return ErrRateLimit
	case status >= 500 || strings.Contains(l, "api_error") || strings.Contains(l, "internal server error") ||
		strings.Contains(l, "service unavailable") || strings.Contains(l, "bad gateway") || strings.Contains(l, "timed out"):
		return ErrServer
	case status == 408:
		return ErrNetwork
	case status >= 400:
		return ErrInvalidRequest
	}
	for _, w := range networkWords {
		if strings.Contains(l, w) {
			return ErrNetwork
		}
	}
	return ErrOther
}

// isQuota tells an exhausted plan (retrying cannot help) from a rate limit.
// OpenAI's insufficient_quota and usage/monthly limits are quota. Google
// answers RESOURCE_EXHAUSTED with "exceeded your current quota" for
// per-minute limits too, but then adds when to retry ("Please retry in
// 34s", a RetryInfo retryDelay); so there it is quota when the limit is 0
// (the plan has no access) or no retry is suggested, else a rate limit.
func isQuota(l string) bool {
	if strings.Contains(l, "resource_exhausted") {
		hint := strings.Contains(l, "retry in") || strings.Contains(l, "retrydelay")
		return strings.Contains(l, "limit: 0") || strings.Contains(l, "exceeded your current quota") && !hint
	}
	return strings.Contains(l, "insufficient_quota") || strings.Contains(l, "exceeded your current quota") ||
		strings.Contains(l, "usage limit") || strings.Contains(l, "monthly limit")
}

// ClassifyHTTP turns a non-2xx response into a ProviderError. body is the
// (possibly truncated) response body; the provider's error message is
// pulled out of the usual JSON shapes ({"error":{"type","message"}},
// {"error":{"code","status","message"}}, {"message"}) when present.
func ClassifyHTTP(status int, h http.Header, body []byte) *ProviderError {
	typ, text := errorFromBody(body)
	msg := fmt.Sprintf("%d %s", status, http.StatusText(status))
	switch {
	case text != "" && typ != "":
		msg = fmt.Sprintf("%d %s: %s", status, typ, text)
	case text != "":
		msg = fmt.Sprintf("%d %s", status, text)
	case len(strings.TrimSpace(string(body))) > 0:
		b := strings.TrimSpace(string(body))
		if len(b) > 500 {
			b = b[:500] + "…"
		}
		msg = fmt.Sprintf("%d %s", status, b)
	}
	ra, hinted := ParseRetryAfter(h, time.Now())
	if !hinted {
		ra, _ = retryDelayInBody(body)
	}
	return &ProviderError{Kind: classify(status, typ, text+" "+string(body)), Status: status, RetryAfter: ra, Message: msg}
}

// retryDelayRe finds Google's RetryInfo in an error body:
// "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34s"}].
var retryDelayRe = regexp.MustCompile(`"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"`)

// retryDelayInBody reads the delay a Google error body asks for (Gemini
// sends it there, not in Retry-After).
func retryDelayInBody(body []byte) (time.Duration, bool) {
	m := retryDelayRe.FindSubmatch(body)
	if m == nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}

// StreamError builds the error of an error event inside a 200 stream
// (Anthropic `event: error`, an OpenAI chunk with "error", ...). typ is the
// provider's error type or code ("overloaded_error", "rate_limit_error").
func StreamError(typ, message string) *ProviderError {
	msg := message
	if typ != "" {
		msg = typ + ": " + message
	}
	kind := classify(0, typ, message)
	if kind == ErrOther || kind == ErrInvalidRequest {
		// An unexplained failure after the provider accepted the request is
		// most likely transient.
		kind = ErrServer
	}
	return &ProviderError{Kind: kind, Message: msg}
}

// errorFromBody extracts the error type/code and message of a JSON error body.
func errorFromBody(body []byte) (typ, msg string) {
	var w struct {
		Type    string          `json:"type"`
		Message string          `json:"message"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &w) != nil {
		// Some servers answer with a JSON array (Google) or SSE; try the first element.
		var arr []json.RawMessage
		if json.Unmarshal(body, &arr) == nil && len(arr) > 0 {
			return errorFromBody(arr[0])
		}
		return "", ""
	}
	if len(w.Error) > 0 && w.Error[0] == '{' {
		var e struct {
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
			Status  string          `json:"status"`
			Message string          `json:"message"`
		}
		if json.Unmarshal(w.Error, &e) == nil {
			typ = e.Type
			if typ == "" {
				typ = e.Status
			}
			if typ == "" && len(e.Code) > 0 {
				var s string
				if json.Unmarshal(e.Code, &s) == nil {
					typ = s
				}
			}
			return typ, e.Message
		}
	}
	if len(w.Error) > 0 && w.Error[0] == '"' {
		var s string
		_ = json.Unmarshal(w.Error, &s)
		return w.Type, s
	}
	return w.Type, w.Message
}

// ParseRetryAfter reads the server-requested delay: retry-after-ms
// (OpenAI), then Retry-After as seconds or an HTTP date.
func ParseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
			return time.Duration(f * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
		return time.Duration(f * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// ErrorFromContext returns the error for a done ctx, nil while it is live:
// cancellation is an abort, an expired deadline a (retryable) timeout.
func ErrorFromContext(ctx context.Context) *ProviderError {
	switch ctx.Err() {
	case nil:
		return nil
	case context.DeadlineExceeded:
		return &ProviderError{Kind: ErrNetwork, Message: "request timed out"}
	}
	return &ProviderError{Kind: ErrAborted, Message: AbortedMessage}
}

// NetworkError classifies a transport or body read failure. midStream says
// the response had started, so an EOF means the connection was cut.
func NetworkError(err error, midStream bool) *ProviderError {
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		if midStream {
			return &ProviderError{Kind: ErrNetwork, Message: "connection closed before the response was complete"}
		}
		return &ProviderError{Kind: ErrNetwork, Message: "connection closed before a response arrived"}
	}
	return &ProviderError{Kind: ErrNetwork, Message: "network error: " + err.Error()}
}

// MalformedError reports a stream chunk we could not decode.
func MalformedError(what string, err error, data string) *ProviderError {
	if len(data) > 200 {
		data = data[:200] + "…"
	}
	return &ProviderError{Kind: ErrMalformed, Message: fmt.Sprintf("malformed %s: %v: %q", what, err, data)}
}
