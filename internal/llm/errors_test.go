package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestClassifyHTTP(t *testing.T) {
	tests := []struct {
		status int
		body   string
		kind   ErrorKind
		msg    string
	}{
		{429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, ErrRateLimit, "429 rate_limit_error: slow down"},
		{429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}`, ErrQuota, "429 insufficient_quota: You exceeded your current quota"},
		{529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, ErrOverloaded, "529 overloaded_error: Overloaded"},
		{500, ``, ErrServer, "500 Internal Server Error"},
		{502, `<html>bad gateway</html>`, ErrServer, "502 <html>bad gateway</html>"},
		{401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, ErrAuth, "401 authentication_error: invalid x-api-key"},
		{403, `{"error":{"code":403,"message":"Permission denied","status":"PERMISSION_DENIED"}}`, ErrAuth, "403 PERMISSION_DENIED: Permission denied"},
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213462 tokens > 200000 maximum"}}`, ErrContextOverflow, "prompt is too long"},
		{400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`, ErrContextOverflow, "maximum context length"},
		{400, `[{"error":{"code":400,"message":"The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).","status":"INVALID_ARGUMENT"}}]`, ErrContextOverflow, "INVALID_ARGUMENT: The input token count"},
		{413, `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}`, ErrContextOverflow, "413"},
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API."}}`, ErrBilling, "credit balance"},
		{429, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`, ErrRateLimit, "RESOURCE_EXHAUSTED"},
		{429, `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. Quota exceeded for metric: generate_content_free_tier_requests, limit: 10. Please retry in 34s.","status":"RESOURCE_EXHAUSTED"}}`, ErrRateLimit, "retry in"},
		{429, `{"error":{"code":429,"message":"You exceeded your current quota. Quota exceeded for metric: generate_content_free_tier_input_token_count, limit: 0","status":"RESOURCE_EXHAUSTED"}}`, ErrQuota, "limit: 0"},
		{429, `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details","status":"RESOURCE_EXHAUSTED"}}`, ErrQuota, "quota"},
		{400, `{"error":{"message":"bad tool schema"}}`, ErrInvalidRequest, "400 bad tool schema"},
	}
	for _, tt := range tests {
		e := ClassifyHTTP(tt.status, nil, []byte(tt.body))
		if e.Kind != tt.kind || !strings.Contains(e.Message, tt.msg) || e.Status != tt.status {
			t.Errorf("%d %s: got %s %q", tt.status, tt.body, e.Kind, e.Message)
		}
	}
}

func TestRetryableKinds(t *testing.T) {
	for kind, want := range map[ErrorKind]bool{ErrRateLimit: true, ErrOverloaded: true, ErrServer: true, ErrNetwork: true, ErrMalformed: true,
		ErrQuota: false, ErrAuth: false, ErrBilling: false, ErrContextOverflow: false, ErrAborted: false, ErrInvalidRequest: false} {
		if got := (&ProviderError{Kind: kind}).Retryable(); got != want {
			t.Errorf("%s retryable = %v", kind, got)
		}
	}
	if e := StreamError("overloaded_error", "Overloaded"); e.Kind != ErrOverloaded || !e.Retryable() {
		t.Errorf("%+v", e)
	}
	if e := StreamError("", "something odd"); !e.Retryable() {
		t.Errorf("unexplained in-stream errors should be retryable: %+v", e)
	}
	if e := ClassifyError(0, "prompt is too long: 1 tokens > 0 maximum"); e.Kind != ErrContextOverflow {
		t.Errorf("%+v", e)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second, true},
		{http.Header{"Retry-After": {"0"}}, 0, true},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond, true},
		{http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second, true},
		{http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0, true},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{}, 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseRetryAfter(tt.h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%v: got %v %v", tt.h, got, ok)
		}
	}
}

func TestSendIdleBeforeHeaders(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	req := &Request{IdleTimeout: 50 * time.Millisecond}
	_, perr := Send(context.Background(), req, func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
	})
	if perr == nil || perr.Kind != ErrNetwork || !strings.Contains(perr.Message, "idle") {
		t.Fatalf("%+v", perr)
	}
}

func TestSendAbortWhileWaitingForRetry(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(529)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	req := &Request{MaxRetries: 2, MaxRetryDelay: time.Minute}
	_, perr := Send(ctx, req, func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
	})
	if perr == nil || perr.Kind != ErrAborted {
		t.Fatalf("%+v", perr)
	}
}

func TestSendConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, perr := Send(context.Background(), &Request{}, func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	})
	if perr == nil || perr.Kind != ErrNetwork || !perr.Retryable() {
		t.Fatalf("%+v", perr)
	}
}

// retryServer answers with the given statuses and headers in turn, then
// with a 200 stream.
func retryServer(t *testing.T, answers ...func(w http.ResponseWriter)) (*httptest.Server, *int) {
	t.Helper()
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n
		n++
		if i < len(answers) {
			answers[i](w)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {}\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func status(code int, h ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(h); i += 2 {
			w.Header().Set(h[i], h[i+1])
		}
		w.WriteHeader(code)
		io.WriteString(w, `{"error":{"type":"x","message":"m"}}`)
	}
}

// The provider-level retry waits what the server asks (Retry-After,
// retry-after-ms) and otherwise backs off 0.5s, 1s, 2s ... with up to a
// quarter off; transient statuses are retried, x-should-retry decides.
func TestSendRetryDelays(t *testing.T) {
	tests := []struct {
		name     string
		answers  []func(http.ResponseWriter)
		retries  int
		requests int
		ok       bool
		delays   []time.Duration // exact; nil entries checked by want range
		ranges   [][2]time.Duration
	}{
		{name: "retry-after seconds", answers: []func(http.ResponseWriter){status(503, "Retry-After", "3")},
			retries: 2, requests: 2, ok: true, delays: []time.Duration{3 * time.Second}},
		{name: "retry-after-ms wins", answers: []func(http.ResponseWriter){status(429, "Retry-After-Ms", "1500", "Retry-After", "9")},
			retries: 2, requests: 2, ok: true, delays: []time.Duration{1500 * time.Millisecond}},
		{name: "backoff with jitter", answers: []func(http.ResponseWriter){status(500), status(502), status(504), status(529)},
			retries: 4, requests: 5, ok: true, ranges: [][2]time.Duration{
				{375 * time.Millisecond, 500 * time.Millisecond}, {750 * time.Millisecond, time.Second},
				{1500 * time.Millisecond, 2 * time.Second}, {3 * time.Second, 4 * time.Second}}},
		{name: "google retryDelay in the body", answers: []func(http.ResponseWriter){func(w http.ResponseWriter) {
			w.WriteHeader(429)
			io.WriteString(w, `[{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED",`+
				`"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2.5s"}]}}]`)
		}}, retries: 2, requests: 2, ok: true, delays: []time.Duration{2500 * time.Millisecond}},
		{name: "x-should-retry false", answers: []func(http.ResponseWriter){status(503, "X-Should-Retry", "false")},
			retries: 2, requests: 1},
		{name: "x-should-retry true on a 409", answers: []func(http.ResponseWriter){status(409, "X-Should-Retry", "true", "Retry-After", "0")},
			retries: 2, requests: 2, ok: true, delays: []time.Duration{0}},
		{name: "x-should-retry true cannot revive auth", answers: []func(http.ResponseWriter){status(401, "X-Should-Retry", "true")},
			retries: 2, requests: 1},
		{name: "exhausted", answers: []func(http.ResponseWriter){status(503, "Retry-After", "0"), status(503, "Retry-After", "0")},
			retries: 1, requests: 2, delays: []time.Duration{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, n := retryServer(t, tt.answers...)
			var slept []time.Duration
			req := &Request{MaxRetries: tt.retries, MaxRetryDelay: time.Minute,
				Sleep: func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
			resp, perr := Send(context.Background(), req, func(ctx context.Context) (*http.Request, error) {
				return http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
			})
			if resp != nil {
				resp.Body.Close()
			}
			if (perr == nil) != tt.ok || *n != tt.requests {
				t.Fatalf("err %v after %d requests", perr, *n)
			}
			if tt.delays != nil && !slices.Equal(slept, tt.delays) {
				t.Errorf("slept %v, want %v", slept, tt.delays)
			}
			if tt.ranges != nil {
				if len(slept) != len(tt.ranges) {
					t.Fatalf("slept %v", slept)
				}
				for i, r := range tt.ranges {
					if slept[i] < r[0] || slept[i] > r[1] {
						t.Errorf("delay %d = %v, want in %v", i, slept[i], r)
					}
				}
			}
		})
	}
}

// A sleeper that gives up ends the retries with the last failure.
func TestSendSleeperGivesUp(t *testing.T) {
	srv, n := retryServer(t, status(503), status(503))
	req := &Request{MaxRetries: 3, Sleep: func(context.Context, time.Duration) error { return errors.New("no") }}
	resp, perr := Send(context.Background(), req, func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
	})
	if resp != nil || perr == nil || perr.Status != 503 || *n != 1 {
		t.Fatalf("resp %v err %v after %d requests", resp, perr, *n)
	}
}
