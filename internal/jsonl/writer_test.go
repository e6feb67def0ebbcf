package jsonl

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// A batched record must reach the reader even when nothing follows it.
func TestQuietStreamIsFlushed(t *testing.T) {
	var out syncBuf
	w := NewWriter(&out)
	w.Write(map[string]int{"a": 1}, true)
	w.Write(map[string]int{"b": 2}, false)
	deadline := time.Now().Add(5 * time.Second)
	for out.String() != "{\"a\":1}\n{\"b\":2}\n" {
		if time.Now().After(deadline) {
			t.Fatalf("batched record never flushed: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
