package llm

import (
	"context"
	"net/http"
	"time"
)

// CacheRetention selects the prompt-cache tier.
type CacheRetention string

const (
	CacheNone  CacheRetention = "none"
	CacheShort CacheRetention = "short"
	CacheLong  CacheRetention = "long"
)

// Request is one provider-neutral model call.
type Request struct {
	Model        *Model
	SystemPrompt string
	// Messages holds only user, assistant and toolResult messages; callers
	// convert the coding-agent roles first.
	Messages       []Message
	Tools          []ToolSpec
	ThinkingLevel  ThinkingLevel
	MaxTokens      int // 0 = the client's default for the model
	Temperature    *float64
	CacheRetention CacheRetention
	SessionID      string
	APIKey         string
	Headers        map[string]string
	// ThinkingBudgets overrides token budgets per level (minimal..high).
	ThinkingBudgets map[ThinkingLevel]int
	// MaxRetries and MaxRetryDelay are the provider-level retry policy
	// (retry.provider.*): how often Send retries a transient failure
	// before anything streamed, invisibly to the caller, and the longest
	// server-requested delay it waits (0 = no cap on Retry-After).
	MaxRetries    int
	MaxRetryDelay time.Duration
	// IdleTimeout bounds the wait for the response headers, then the time
	// the answer may go without progress (content, not bytes: keep-alives
	// do not count); 0 = off. See streamGuard.
	IdleTimeout time.Duration
	// Transport is the transport preference of the settings ("auto",
	// "sse", "websocket", "websocket-cached"); clients with one transport
	// ignore it. WebsocketConnectTimeout bounds the socket handshake (0:
	// no bound beyond ctx).
	Transport               string
	WebsocketConnectTimeout time.Duration
	// MaxAnswerBytes bounds the content of one answer; 0 means
	// DefaultMaxAnswerBytes.
	MaxAnswerBytes int64
	HTTPClient     *http.Client
	// Sleep waits between provider-level retries; nil waits on a timer.
	// Tests inject one to see the delays without waiting.
	Sleep func(ctx context.Context, d time.Duration) error

	// Hooks on the wire (the runtime's before_provider_request,
	// before_provider_headers and after_provider_response); nil = none.
	// OnPayload gets the request body and returns the body to send.
	OnPayload  func(body []byte) ([]byte, error)
	OnHeaders  func(h http.Header)
	OnResponse func(status int, h http.Header)
}

// HTTPClient carries provider requests. It is net/http's client, named
// here so the layers above pass one through without importing net/http.
type HTTPClient = http.Client

// Client streams one assistant message. It never returns a Go error: every
// failure becomes a message with StopReason "error" (or "aborted" when ctx
// is cancelled) that keeps the partial content. emit is called from the
// calling goroutine's stream, in order; it must not retain Partial beyond
// the call unless it accepts that the value keeps changing.
type Client interface {
	Stream(ctx context.Context, req *Request, emit func(AssistantEvent)) *AssistantMessage
}

// ErrorKind classifies a provider failure.
type ErrorKind string

const (
	ErrRateLimit       ErrorKind = "rate_limit"
	ErrOverloaded      ErrorKind = "overloaded"
	ErrServer          ErrorKind = "server"
	ErrNetwork         ErrorKind = "network" // connection cut, idle timeout, reset
	ErrContextOverflow ErrorKind = "context_overflow"
	ErrAuth            ErrorKind = "auth"
	ErrQuota           ErrorKind = "quota"
	ErrBilling         ErrorKind = "billing"
	ErrInvalidRequest  ErrorKind = "invalid_request"
	ErrMalformed       ErrorKind = "malformed" // garbage in the stream
	ErrAborted         ErrorKind = "aborted"
	ErrOther           ErrorKind = "other"
)

// ProviderError describes why a stream failed.
type ProviderError struct {
	Kind       ErrorKind
	Status     int           // HTTP status, 0 when the failure came in-stream
	RetryAfter time.Duration // server-requested delay, if any
	Message    string
}

func (e *ProviderError) Error() string { return e.Message }

// Retryable reports whether an agent-level retry may help.
func (e *ProviderError) Retryable() bool {
	switch e.Kind {
	case ErrRateLimit, ErrOverloaded, ErrServer, ErrNetwork, ErrMalformed:
		return true
	}
	return false
}
