package anthropic

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

func payloadBytes(t *testing.T, p *payload) []byte {
	t.Helper()
	got, err := io.ReadAll(p.body())
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(got)) != p.size {
		t.Fatalf("size %d, read %d bytes", p.size, len(got))
	}
	return got
}

// The streamed payload is byte for byte llm.Marshal of the body.
func TestPayloadMatchesMarshal(t *testing.T) {
	temp := 0.5
	bodies := []body{
		{Model: "m", MaxTokens: 10, Stream: true},
		{Model: "m", Messages: []message{}, MaxTokens: 10},
		{Model: `we"ird,"messages":[]`, Messages: []message{{Role: "user", Content: "hi <b>&</b> \u2028 é"}}, MaxTokens: 1},
		{Model: "m", MaxTokens: 5, Stream: true, Temperature: &temp,
			System: []textBlock{{Type: "text", Text: `"messages":[]`}},
			Messages: []message{
				{Role: "user", Content: "one"},
				{Role: "assistant", Content: []any{map[string]any{"type": "text", "text": "two\n\"quoted\""}}},
				{Role: "user", Content: []any{map[string]any{"type": "tool_result", "tool_use_id": "x", "content": "<html>"}}},
			},
			Tools: []tool{{Name: "bash"}}},
	}
	long := body{Model: "m", MaxTokens: 1}
	for i := range 700 { // counted on several goroutines
		long.Messages = append(long.Messages, message{Role: "user", Content: strings.Repeat("é\"<", i%13)})
	}
	bodies = append(bodies, long)
	for i := range bodies {
		want, err := llm.Marshal(&bodies[i])
		if err != nil {
			t.Fatal(err)
		}
		p, err := newPayload(&bodies[i])
		if err != nil {
			t.Fatal(err)
		}
		got := payloadBytes(t, p)
		if !bytes.Equal(got, want) {
			t.Fatalf("body %d:\n got %s\nwant %s", i, got, want)
		}
		// A retry reads it again from the start.
		if again := payloadBytes(t, p); !bytes.Equal(again, want) {
			t.Fatalf("body %d second read differs", i)
		}
		// Small reads see the same bytes.
		var small bytes.Buffer
		r, buf := p.body(), make([]byte, 7)
		for {
			n, err := r.Read(buf)
			small.Write(buf[:n])
			if err == io.EOF {
				break
			}
		}
		if !bytes.Equal(small.Bytes(), want) {
			t.Fatalf("body %d in 7-byte reads differs", i)
		}
	}
}

// Sending a large body allocates about one message at a time, not the body
// (a resumed 50 MB session used to cost ~2.5 times its size here).
func TestPayloadStreamsMessages(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's allocations are counted too")
	}
	text := strings.Repeat("lorem ipsum dolor sit amet\n", 2000) // ~54 KB
	b := body{Model: "m", MaxTokens: 1, Stream: true}
	for range 200 {
		b.Messages = append(b.Messages, message{Role: "user", Content: text})
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := newPayload(&b)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, p.body())
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n < 10<<20 {
		t.Fatalf("body of %d bytes, want over 10 MB", n)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
		t.Fatalf("encoding a %d MB body allocated %d MB", n>>20, alloc>>20)
	}
}
