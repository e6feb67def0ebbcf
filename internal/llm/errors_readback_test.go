package llm

import "testing"

// Messages read back from a session carry no ProviderError; their text
// must classify like the live failure did.
func TestClassifyReadBackMessages(t *testing.T) {
	tests := []struct {
		msg  string
		want ErrorKind
	}{
		{"529 overloaded_error: Overloaded", ErrOverloaded},
		{"503 service unavailable", ErrServer},
		{"401 authentication_error: invalid x-api-key", ErrAuth},
		{"429 rate_limit_error: slow down", ErrRateLimit},
		{"prompt is too long: 250000 tokens > 200000 maximum", ErrContextOverflow},
		{"Anthropic stream ended before message_stop", ErrNetwork},
		{"stream idle timeout: no answer content for 5m0s", ErrNetwork},
		{"stream stopped: the answer exceeded 32 MiB", ErrNetwork},
		{"stream stopped: 65 MiB received without answer content", ErrNetwork},
		{"something odd", ErrOther},
		{"999 not a status", ErrOther},
	}
	for _, tc := range tests {
		if got := ClassifyError(0, tc.msg).Kind; got != tc.want {
			t.Errorf("%q: %s, want %s", tc.msg, got, tc.want)
		}
	}
}
