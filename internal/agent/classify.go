package agent

import (
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// ClassifyMessage recovers an error kind from an errorMessage alone, for
// messages read back from a session or produced without a ProviderError.
func ClassifyMessage(msg string) *llm.ProviderError {
	m := strings.ToLower(msg)
	kind := llm.ErrOther
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(m, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("prompt is too long", "context_length_exceeded", "maximum context length", "context window",
		"exceeds the maximum number of tokens", "too many tokens", "input is too long", "request too large"):
		kind = llm.ErrContextOverflow
	case has("insufficient_quota", "quota exceeded", "exceeded your current quota", "usage limit"):
		kind = llm.ErrQuota
	case has("billing", "credit balance", "payment required"):
		kind = llm.ErrBilling
	case has("invalid api key", "invalid x-api-key", "unauthorized", "authentication", "permission denied", "401", "403", "no api key"):
		kind = llm.ErrAuth
	case has("overloaded", "529"):
		kind = llm.ErrOverloaded
	case has("rate limit", "rate_limit", "too many requests", "429"):
		kind = llm.ErrRateLimit
	case has("500", "502", "503", "504", "internal server error", "bad gateway", "service unavailable", "gateway timeout", "server error"):
		kind = llm.ErrServer
	case has("terminated", "connection reset", "econnreset", "socket hang up", "unexpected eof", "timed out", "timeout", "network", "fetch failed", "stream ended", "connection"):
		kind = llm.ErrNetwork
	}
	return &llm.ProviderError{Kind: kind, Message: msg}
}
