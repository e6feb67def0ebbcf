package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/relay-agent/relay/internal/llm/sse"
)

// maxErrorBody bounds how much of an error response we read.
const maxErrorBody = 64 << 10

// firstBackoff is the delay before the first provider-level retry when the
// server asks for none; it doubles per attempt (capped by MaxRetryDelay).
const firstBackoff = time.Second

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
//   - Retryable failures are retried up to req.MaxRetries times (nothing
//     has been streamed yet, so this is invisible to the caller), waiting
//     Retry-After when given, else 1s, 2s, 4s ... A requested delay above
//     req.MaxRetryDelay (when set) fails at once instead, with the delay in
//     the message, leaving the decision to the agent-level retry.
//   - req.IdleTimeout bounds the wait for the response headers and then
//     every gap in the body (the returned body fails with
//     *sse.IdleTimeoutError).
//   - A cancelled ctx yields ErrAborted promptly.
//
// On success the caller reads and closes resp.Body.
func Send(ctx context.Context, req *Request, newReq func(context.Context) (*http.Request, error)) (*http.Response, *ProviderError) {
	client := req.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	for attempt := 0; ; attempt++ {
		resp, perr, hinted := sendOnce(ctx, client, req, newReq)
		if perr == nil {
			return resp, nil
		}
		if ctxErr := ErrorFromContext(ctx); ctxErr != nil {
			return nil, ctxErr
		}
		if !perr.Retryable() || attempt >= req.MaxRetries {
			return nil, perr
		}
		delay := perr.RetryAfter
		if !hinted {
			delay = firstBackoff << attempt
			if req.MaxRetryDelay > 0 && delay > req.MaxRetryDelay {
				delay = req.MaxRetryDelay
			}
		} else if req.MaxRetryDelay > 0 && delay > req.MaxRetryDelay {
			perr.Message = fmt.Sprintf("%s (server asked to retry in %s, more than the %s limit)",
				perr.Message, delay.Round(time.Second), req.MaxRetryDelay)
			return nil, perr
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ErrorFromContext(ctx)
		case <-t.C:
		}
	}
}

// errIdleHeaders is the cancel cause when the headers did not arrive in time.
var errIdleHeaders = errors.New("idle waiting for response headers")

// sendOnce makes one attempt; hinted reports that the server sent a
// Retry-After (possibly 0).
func sendOnce(ctx context.Context, client *http.Client, req *Request, newReq func(context.Context) (*http.Request, error)) (resp *http.Response, perr *ProviderError, hinted bool) {
	rctx, cancel := context.WithCancelCause(ctx)
	var timer *time.Timer
	if req.IdleTimeout > 0 {
		timer = time.AfterFunc(req.IdleTimeout, func() { cancel(errIdleHeaders) })
	}
	hr, err := newReq(rctx)
	if err != nil {
		cancel(nil)
		return nil, &ProviderError{Kind: ErrInvalidRequest, Message: "build request: " + err.Error()}, false
	}
	resp, err = client.Do(hr)
	if timer != nil {
		timer.Stop()
	}
	if err != nil {
		cause := context.Cause(rctx)
		cancel(nil)
		if errors.Is(cause, errIdleHeaders) {
			return nil, NetworkError(&sse.IdleTimeoutError{Timeout: req.IdleTimeout}, false), false
		}
		if pe := ErrorFromContext(ctx); pe != nil {
			return nil, pe, false
		}
		return nil, NetworkError(err, false), false
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		cancel(nil)
		_, hinted = ParseRetryAfter(resp.Header, time.Now())
		return nil, ClassifyHTTP(resp.StatusCode, resp.Header, body), hinted
	}
	resp.Body = &cancelBody{ReadCloser: sse.NewIdleReader(resp.Body, req.IdleTimeout), cancel: cancel}
	return resp, nil, false
}

// cancelBody releases the request context when the body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
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

// ReadEvents reads the SSE events of body and hands each to fn until fn
// returns false (the client saw the final event), the stream ends, or a
// read fails. It returns nil when fn stopped it, io.EOF when the stream
// ended first, else the read error (idle timeout, cut connection, ctx
// cancellation surfaced by net/http).
func ReadEvents(body io.Reader, fn func(sse.Event) bool) error {
	r := sse.NewReader(body)
	defer r.Release() // its buffer serves the next stream
	for {
		ev, err := r.Next()
		if err != nil {
			return err
		}
		if !fn(ev) {
			return nil
		}
	}
}
