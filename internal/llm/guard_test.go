package llm

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// endlessReader returns "data: xxxx..." without ever ending the line.
type endlessReader struct{ n int64 }

func (r *endlessReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	if r.n == 0 && len(p) >= 6 {
		copy(p, "data: ")
	}
	r.n += int64(len(p))
	return len(p), nil
}
func (r *endlessReader) Close() error { return nil }

func guarded(t *testing.T, rc io.ReadCloser, req *Request) *guardedBody {
	t.Helper()
	_, cancel := context.WithCancelCause(context.Background())
	b := newGuardedBody(rc, req, cancel)
	t.Cleanup(func() { b.Close() })
	return b
}

// A line without end (no event ever completes, so no content) is cut once
// the bytes without progress pass the bound, holding that much at most.
func TestGuardEndlessLine(t *testing.T) {
	src := &endlessReader{}
	req := &Request{MaxAnswerBytes: 1 << 10}
	body := guarded(t, src, req)
	err := ReadEventsRaw(body, func(string, []byte) bool { return true })
	var pe *ProviderError
	if !errors.As(err, &pe) || pe.Kind != ErrNetwork || !strings.Contains(pe.Message, "without answer content") {
		t.Fatalf("err = %v", err)
	}
	if limit := body.g.maxSilent + 64<<10; src.n > limit {
		t.Errorf("read %d bytes, bound %d", src.n, limit)
	}
}

// Content beyond MaxAnswerBytes stops the stream at the next read; the
// builder keeps what came.
func TestGuardAnswerSize(t *testing.T) {
	pr, pw := io.Pipe()
	body := guarded(t, pr, &Request{MaxAnswerBytes: 100})
	b := NewMessageBuilder(testModel(), nil)
	b.Begin(body)
	go func() {
		for {
			if _, err := pw.Write([]byte("data: {}\n\n")); err != nil {
				return
			}
		}
	}()
	i := b.StartText()
	err := ReadEventsRaw(body, func(string, []byte) bool {
		b.AppendText(i, strings.Repeat("y", 30))
		return true
	})
	pw.CloseWithError(io.ErrClosedPipe)
	var pe *ProviderError
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "the answer exceeded 100 bytes") || !pe.Retryable() {
		t.Fatalf("err = %v", err)
	}
	m := b.FailWith(context.Background(), err)
	if m.StopReason != StopError || len(m.Text()) < 100 || len(m.Text()) > 200 {
		t.Fatalf("stop %s, kept %d bytes", m.StopReason, len(m.Text()))
	}
}

// blockingBody blocks in Read until closed.
type blockingBody struct{ done chan struct{} }

func (b *blockingBody) Read(p []byte) (int, error) { <-b.done; return 0, errors.New("closed") }
func (b *blockingBody) Close() error               { close(b.done); return nil }

// No progress for the idle timeout ends a Read blocked in the source.
func TestGuardIdleEndsBlockedRead(t *testing.T) {
	body := guarded(t, &blockingBody{done: make(chan struct{})}, &Request{IdleTimeout: 20 * time.Millisecond})
	_, err := body.Read(make([]byte, 10))
	var pe *ProviderError
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "idle timeout: no answer content for 20ms") {
		t.Fatalf("err = %v", err)
	}
}

// A closed body's guard never fires (it would close a source the caller
// already gave back).
func TestGuardStopsOnClose(t *testing.T) {
	src := &blockingBody{done: make(chan struct{})}
	body := guarded(t, src, &Request{IdleTimeout: time.Millisecond})
	if err := body.Close(); err != nil {
		t.Fatal(err)
	}
	body.g.check() // a check racing with Close finds it closed
	if pe := body.g.failure(); pe != nil {
		t.Fatalf("tripped after close: %v", pe)
	}
}
