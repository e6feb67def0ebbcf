package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/llm/sse"
)

// maxErrorBody bounds how much of an error response we read.
const maxErrorBody = 64 << 10

// Provider-level retry backoff when the server asks for no delay: the
// official SDKs' schedule, 0.5s doubling up to 8s, each shortened by up to
// a quarter at random so clients that failed together do not retry
// together.
const (
	firstBackoff = 500 * time.Millisecond
	maxBackoff   = 8 * time.Second
)

// DefaultProviderRetries is how often the official SDKs retry a transient
// failure before anything streamed; relay uses it while
// retry.provider.maxRetries is 0 and retry.enabled is on.
const DefaultProviderRetries = 2

// backoff returns the delay before retry number attempt+1.
func backoff(attempt int) time.Duration {
	d := firstBackoff << min(attempt, 5)
	d = min(d, maxBackoff)
	return d - time.Duration(rand.Float64()*float64(d)/4)
}

// ApplyHeaders sets the model's configured headers, then the request's
// (later wins), on h.
func ApplyHeaders(h http.Header, model *Model, req *Request) {
	if model != nil {
		for k, v := range model.Headers {
			h.Set(k, v)
		}
	}
	for k, v := range req.Headers {
		h.Set(k, v)
	}
}

// Send performs a streaming HTTP call with the shared failure handling of
// every wire client:
//
//   - newReq builds a fresh *http.Request for ctx on every attempt (bodies
//     cannot be replayed).
//   - A non-2xx answer becomes a classified ProviderError (ClassifyHTTP); a
//     transport failure an ErrNetwork one.
//   - Transient failures (rate limit, overloaded, 5xx, network; also a
//     4xx other than auth, quota and overflow that says x-should-retry:
//     true, never an answer that says false) are retried
//     up to req.MaxRetries times. Nothing has streamed yet, so this is
//     invisible to the caller, as in the official SDKs. The wait is the
//     server's Retry-After / retry-after-ms (Google: the RetryInfo
//     retryDelay of the body) when given, else backoff
//     (0.5s doubling to 8s, with jitter). A requested delay above
//     req.MaxRetryDelay (when set) fails at once instead, with the delay in
//     the message, leaving the decision to the agent-level retry.
//   - req.IdleTimeout bounds the wait for the response headers; the body
//     is guarded (see streamGuard): no answer progress for IdleTimeout, or
//     an answer over req.MaxAnswerBytes, stops it with a retryable error.
//   - A cancelled ctx yields ErrAborted promptly.
//
// On success the caller reads and closes resp.Body, and hands it to
// MessageBuilder.Begin so the guard sees the answer's progress.
func Send(ctx context.Context, req *Request, newReq func(context.Context) (*http.Request, error)) (*http.Response, *ProviderError) {
	client := req.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	for attempt := 0; ; attempt++ {
		resp, perr, a := sendOnce(ctx, client, req, newReq)
		if perr == nil {
			return resp, nil
		}
		if ctxErr := ErrorFromContext(ctx); ctxErr != nil {
			return nil, ctxErr
		}
		retry := perr.Retryable()
		if a.shouldRetry != nil {
			// The server knows best, except that an exhausted quota, bad
			// credentials or a prompt too long never heal by waiting.
			retry = *a.shouldRetry && (retry || perr.Kind == ErrInvalidRequest || perr.Kind == ErrOther)
		}
		if !retry || attempt >= req.MaxRetries {
			return nil, perr
		}
		delay := perr.RetryAfter
		if !a.hinted {
			delay = backoff(attempt)
		} else if req.MaxRetryDelay > 0 && delay > req.MaxRetryDelay {
			perr.Message = fmt.Sprintf("%s (server asked to retry in %s, more than the %s limit)",
				perr.Message, delay.Round(time.Second), req.MaxRetryDelay)
			return nil, perr
		}
		if err := sleep(ctx, req, delay); err != nil {
			if pe := ErrorFromContext(ctx); pe != nil {
				return nil, pe
			}
			return nil, perr // the sleeper gave up: the last failure stands
		}
	}
}

// sleep waits d, or until ctx is done (then it returns ctx's error).
func sleep(ctx context.Context, req *Request, d time.Duration) error {
	if req.Sleep != nil {
		return req.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// advice is what a failed answer's headers say about retrying it.
type advice struct {
	hinted      bool  // Retry-After or retry-after-ms was sent (possibly 0)
	shouldRetry *bool // x-should-retry, when sent
}

func adviceFrom(h http.Header) advice {
	var a advice
	_, a.hinted = ParseRetryAfter(h, time.Now())
	switch strings.ToLower(strings.TrimSpace(h.Get("X-Should-Retry"))) {
	case "true":
		t := true
		a.shouldRetry = &t
	case "false":
		f := false
		a.shouldRetry = &f
	}
	return a
}

// errIdleHeaders is the cancel cause when the headers did not arrive in time.
var errIdleHeaders = errors.New("idle waiting for response headers")

// sendOnce makes one attempt; a is what a failed answer said about
// retrying.
func sendOnce(ctx context.Context, client *http.Client, req *Request, newReq func(context.Context) (*http.Request, error)) (resp *http.Response, perr *ProviderError, a advice) {
	rctx, cancel := context.WithCancelCause(ctx)
	var timer *time.Timer
	if req.IdleTimeout > 0 {
		timer = time.AfterFunc(req.IdleTimeout, func() { cancel(errIdleHeaders) })
	}
	hr, err := newReq(rctx)
	if err == nil {
		err = applyRequestHooks(hr, req)
	}
	if err == nil {
		err = encodeBody(hr)
	}
	if err != nil {
		cancel(nil)
		return nil, &ProviderError{Kind: ErrInvalidRequest, Message: "build request: " + err.Error()}, a
	}
	resp, err = client.Do(hr)
	if err == nil && req.OnResponse != nil {
		req.OnResponse(resp.StatusCode, resp.Header)
	}
	if timer != nil {
		timer.Stop()
	}
	if err != nil {
		cause := context.Cause(rctx)
		cancel(nil)
		if errors.Is(cause, errIdleHeaders) {
			return nil, &ProviderError{Kind: ErrNetwork,
				Message: fmt.Sprintf("stream idle timeout: no response headers within %s", req.IdleTimeout)}, a
		}
		if pe := ErrorFromContext(ctx); pe != nil {
			return nil, pe, a
		}
		return nil, NetworkError(err, false), a
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		cancel(nil)
		a = adviceFrom(resp.Header)
		if !a.hinted {
			_, a.hinted = retryDelayInBody(body)
		}
		return nil, ClassifyHTTP(resp.StatusCode, resp.Header, body), a
	}
	resp.Body = newGuardedBody(resp.Body, req, cancel)
	return resp, nil, a
}

// ReadEventsRaw is ReadEvents without copying each event's data: data is
// valid only during the call to fn (see sse.Reader.NextRaw).
func ReadEventsRaw(body io.Reader, fn func(event string, data []byte) bool) error {
	r := sse.NewReader(body)
	defer r.Release() // its buffer serves the next stream
	for {
		ev, data, err := r.NextRaw()
		if err != nil {
			return err
		}
		if !fn(ev, data) {
			return nil
		}
	}
}

// applyRequestHooks lets the runtime's hooks see and replace the payload
// and mutate the headers. Only with a payload hook is the body read into
// memory; otherwise it streams as the client built it.
func applyRequestHooks(hr *http.Request, req *Request) error {
	if req.OnPayload != nil && hr.Body != nil {
		body, err := io.ReadAll(hr.Body)
		hr.Body.Close()
		if err != nil {
			return fmt.Errorf("read payload: %w", err)
		}
		if body, err = req.OnPayload(body); err != nil {
			return err
		}
		hr.Body = io.NopCloser(bytes.NewReader(body))
		hr.ContentLength = int64(len(body))
	}
	if req.OnHeaders != nil {
		req.OnHeaders(hr.Header)
	}
	return nil
}
