package sse

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// IdleTimeoutError is returned by an idle reader when no byte arrived for
// Timeout. errors.Is(err, ErrIdleTimeout) holds for it.
type IdleTimeoutError struct {
	Timeout time.Duration
}

func (e *IdleTimeoutError) Error() string {
	return fmt.Sprintf("stream idle for %s: no data received", e.Timeout)
}

// Is makes errors.Is(err, ErrIdleTimeout) true.
func (e *IdleTimeoutError) Is(target error) bool { return target == ErrIdleTimeout }

// IdleReader fails with *IdleTimeoutError when its source sends nothing for
// the timeout. Because a blocked Read cannot be interrupted otherwise, the
// timer closes the source; Read then reports the timeout instead of the
// close error.
type IdleReader struct {
	rc      io.ReadCloser
	d       time.Duration
	mu      sync.Mutex
	timer   *time.Timer
	expired bool
	closed  bool
}

// NewIdleReader wraps rc. d <= 0 disables the timeout and returns rc as is.
// The clock starts now (so a server that never sends the first byte is
// caught too) and restarts after every Read that returned bytes.
func NewIdleReader(rc io.ReadCloser, d time.Duration) io.ReadCloser {
	if d <= 0 {
		return rc
	}
	ir := &IdleReader{rc: rc, d: d}
	ir.timer = time.AfterFunc(d, ir.expire)
	return ir
}

func (r *IdleReader) expire() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.expired = true
	r.mu.Unlock()
	r.rc.Close()
}

// Read implements io.Reader.
func (r *IdleReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.expired {
		return n, &IdleTimeoutError{Timeout: r.d}
	}
	if n > 0 && !r.closed {
		r.timer.Reset(r.d)
	}
	return n, err
}

// Close stops the timer and closes the source.
func (r *IdleReader) Close() error {
	r.mu.Lock()
	r.closed = true
	r.timer.Stop()
	expired := r.expired
	r.mu.Unlock()
	if expired {
		return nil // already closed by the timer
	}
	return r.rc.Close()
}
