package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxAnswerBytes bounds the content of one answer (text, thinking,
// tool-call arguments and signatures, in bytes) when Request.MaxAnswerBytes
// is 0. A real answer is at most a few MB (128k output tokens are about
// 0.5 MB of text); 32 MiB only stops a server that streams without end.
const DefaultMaxAnswerBytes = 32 << 20

// streamGuard stops a response stream that makes no progress or grows
// without end. Progress is what the MessageBuilder receives (a block
// starting, a text, thinking, signature or tool-argument delta), never raw
// bytes: keep-alive pings, SSE comments, events the client ignores and a
// byte trickle that never completes an event do not count. It enforces:
//
//   - idle: no progress for this long (httpIdleTimeoutMs);
//   - maxAnswer: more content than this (see DefaultMaxAnswerBytes);
//   - maxSilent: more stream bytes than this since the last progress (an
//     endless line, a flood of pings), which also bounds the memory one
//     SSE line can take.
//
// When it trips it cancels the request and closes the body, so a blocked
// Read returns at once; the body's Read then returns the guard's error (a
// retryable ErrNetwork *ProviderError). The builder keeps what streamed.
type streamGuard struct {
	idle      time.Duration
	maxAnswer int64
	maxSilent int64

	// Touched only by the goroutine that reads the body and drives the
	// builder (they are the same: the wire client's Stream).
	content int64
	silent  int64

	progress atomic.Int64 // progress calls so far; read by the timer

	mu       sync.Mutex
	err      *ProviderError // why it tripped
	closed   bool
	timer    *time.Timer
	lastSeen int64     // progress at the previous check
	lastAt   time.Time // when progress last changed, as the checks saw it
	stop     func()    // cancels the request and closes the body
}

// guardChecks is how many times per idle period the timer looks at the
// progress counter: a stall is caught between idle and idle*(1+1/4).
const guardChecks = 4

func newStreamGuard(req *Request, stop func()) *streamGuard {
	maxAnswer := req.MaxAnswerBytes
	if maxAnswer <= 0 {
		maxAnswer = DefaultMaxAnswerBytes
	}
	g := &streamGuard{
		idle:      req.IdleTimeout,
		maxAnswer: maxAnswer,
		// The largest legitimate event without new content repeats the
		// whole answer (the Responses API's response.completed), escaped.
		maxSilent: 2*maxAnswer + 1<<20,
		stop:      stop,
	}
	if g.idle > 0 {
		g.lastAt = time.Now()
		g.timer = time.AfterFunc(g.tick(), g.check)
	}
	return g
}

func (g *streamGuard) tick() time.Duration {
	return max(g.idle/guardChecks, time.Millisecond)
}

// check runs on the timer: it trips when the progress counter has not
// moved for the idle period, else looks again a tick later.
func (g *streamGuard) check() {
	now := time.Now()
	p := g.progress.Load()
	g.mu.Lock()
	if g.closed || g.err != nil {
		g.mu.Unlock()
		return
	}
	if p != g.lastSeen {
		g.lastSeen, g.lastAt = p, now
	}
	if now.Sub(g.lastAt) < g.idle {
		g.timer.Reset(g.tick())
		g.mu.Unlock()
		return
	}
	g.mu.Unlock()
	g.trip(&ProviderError{Kind: ErrNetwork,
		Message: fmt.Sprintf("stream idle timeout: no answer content for %s", g.idle)})
}

// trip records err (the first one wins) and stops the stream.
func (g *streamGuard) trip(err *ProviderError) {
	g.mu.Lock()
	if g.err != nil || g.closed {
		g.mu.Unlock()
		return
	}
	g.err = err
	if g.timer != nil {
		g.timer.Stop()
	}
	g.mu.Unlock()
	g.stop()
}

// failure returns the error the guard tripped with, or nil.
func (g *streamGuard) failure() *ProviderError {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// advance records progress of n content bytes (0 for a block start).
func (g *streamGuard) advance(n int) {
	g.progress.Add(1)
	g.silent = 0
	g.content += int64(n)
	if g.content > g.maxAnswer {
		g.trip(&ProviderError{Kind: ErrNetwork,
			Message: fmt.Sprintf("stream stopped: the answer exceeded %s", sizeString(g.maxAnswer))})
	}
}

// read accounts n stream bytes.
func (g *streamGuard) read(n int) {
	g.silent += int64(n)
	if g.silent > g.maxSilent {
		g.trip(&ProviderError{Kind: ErrNetwork,
			Message: fmt.Sprintf("stream stopped: %s received without answer content", sizeString(g.maxSilent))})
	}
}

func (g *streamGuard) close() {
	g.mu.Lock()
	g.closed = true
	if g.timer != nil {
		g.timer.Stop()
	}
	g.mu.Unlock()
}

// sizeString renders a byte count for messages ("32 MiB", "65 KiB").
func sizeString(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// guardedBody is the response body Send hands out: reads are accounted to
// the guard, and once it tripped they fail with its error. Closing it
// stops the guard and releases the request context.
type guardedBody struct {
	rc     io.ReadCloser
	g      *streamGuard
	cancel context.CancelCauseFunc
	once   sync.Once
}

func newGuardedBody(rc io.ReadCloser, req *Request, cancel context.CancelCauseFunc) *guardedBody {
	b := &guardedBody{rc: rc, cancel: cancel}
	b.g = newStreamGuard(req, func() {
		// Cancelling the request ends a blocked Read on every transport;
		// closing the body as well makes sure of it.
		cancel(errStreamGuard)
		b.closeSource()
	})
	return b
}

var errStreamGuard = errors.New("stream stopped by its guard")

func (b *guardedBody) closeSource() error {
	var err error
	b.once.Do(func() { err = b.rc.Close() })
	return err
}

// Read implements io.Reader.
func (b *guardedBody) Read(p []byte) (int, error) {
	if pe := b.g.failure(); pe != nil {
		return 0, pe
	}
	n, err := b.rc.Read(p)
	b.g.read(n)
	if pe := b.g.failure(); pe != nil {
		return n, pe
	}
	return n, err
}

// Close stops the guard, closes the source and releases the request.
func (b *guardedBody) Close() error {
	b.g.close()
	err := b.closeSource()
	b.cancel(nil)
	return err
}

// guard lets MessageBuilder.Begin find the guard behind a body.
func (b *guardedBody) guard() *streamGuard { return b.g }
