// Package jsonl writes protocol streams (JSON mode, RPC mode): one JSON
// record per line, LF-framed, from one serialized writer.
package jsonl

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// Writer serializes records to one stream. Token deltas are batched into
// few writes; every other record is flushed at once, so a reader sees
// lifecycle events promptly. Writes block when the reader is slow, which
// slows the agent instead of growing memory.
type Writer struct {
	mu        sync.Mutex
	w         *bufio.Writer
	lastFlush time.Time
	err       error
	// timer flushes batched records when no further record arrives, so
	// nothing waits in the buffer while the stream is quiet.
	timer *time.Timer
}

// batchWindow bounds how long a non-urgent record may sit in the buffer.
const batchWindow = 20 * time.Millisecond

// NewWriter wraps w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 64<<10), lastFlush: time.Now()}
}

// Write encodes v as one line. urgent records are flushed immediately.
// Values with their own MarshalJSON (events) are written as it returns
// them, without the encoder's second validation pass.
func (w *Writer) Write(v any, urgent bool) error {
	var b []byte
	var err error
	if m, ok := v.(json.Marshaler); ok {
		b, err = m.MarshalJSON()
	} else {
		b, err = llm.Marshal(v)
	}
	if err != nil {
		return err
	}
	return w.WriteRaw(b, urgent)
}

// WriteRaw writes one pre-encoded record.
func (w *Writer) WriteRaw(b []byte, urgent bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.w.Write(b)
	w.w.WriteByte('\n')
	if urgent || time.Since(w.lastFlush) > batchWindow {
		w.err = w.w.Flush()
		w.lastFlush = time.Now()
		return w.err
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(batchWindow, func() { _ = w.Flush() })
	} else {
		w.timer.Reset(batchWindow)
	}
	return w.err
}

// Flush writes buffered records.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil && w.w.Buffered() > 0 {
		w.err = w.w.Flush()
		w.lastFlush = time.Now()
	}
	return w.err
}
