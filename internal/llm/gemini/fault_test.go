package gemini

import (
	"strconv"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func errBody(code int, status, msg string) string {
	return `{"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `","status":"` + status + `"}}`
}

func TestFaults(t *testing.T) {
	llmtest.RunFaults(t, target, llmtest.Faults{
		RateLimit: llmtest.HTTPError{Body: errBody(429, "RESOURCE_EXHAUSTED", "Rate limit reached, too many requests"), Has: "Rate limit reached"},
		Server:    llmtest.HTTPError{Body: errBody(500, "INTERNAL", "An internal error has occurred")},
		Auth:      llmtest.HTTPError{Body: errBody(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."), Has: "API key not valid"},
		Quota: llmtest.HTTPError{Body: errBody(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details"),
			Has: "quota"},
		Overflow: llmtest.HTTPError{Body: errBody(400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."),
			Has: "input token count"},
		InStream:    llmtest.Fault{ErrorType: "UNAVAILABLE", ErrorMessage: "The model is overloaded. Please try again later."},
		InStreamHas: "UNAVAILABLE: The model is overloaded",
		CutAfter:    900,
		Garbage:     llmtest.Fault{Garbage: `{"candidates": [{"content": {"parts": [{"text": "x"`},
		EarlyEndHas: "connection closed",
	})
}
