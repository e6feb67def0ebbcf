package llmtest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// Canned is an http.RoundTripper that answers every request with the same
// SSE stream, so a benchmark measures the client, not the fake server.
type Canned []byte

func (c Canned) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(c)), Request: req}, nil
}

// Render returns the whole stream of resp in api's wire shapes.
func Render(api string, resp *Response) []byte {
	content, final := EncoderFor(api).Encode(resp, &Request{Body: map[string]any{"model": "m"}})
	var body bytes.Buffer
	for _, f := range append(content, final...) {
		body.Write(f.Bytes())
	}
	return body.Bytes()
}

// BenchStreamText2MB streams a 2 MB answer in 16-byte deltas (131072
// chunks) through tg's whole client, from a canned answer in the shapes of
// the model's API. cpu-ms/op is the figure of the performance target
// (<= 50 ms).
func BenchStreamText2MB(b *testing.B, tg Target) {
	text := string(bytes.Repeat([]byte("0123456789abcde\n"), 2<<20/16))
	model := tg.Model("http://fake")
	stream := Render(model.API, &Response{Text: text, ChunkSize: 16})
	req := &llm.Request{Model: model, APIKey: "k",
		Messages:   []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}},
		HTTPClient: &http.Client{Transport: Canned(stream)}}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	runtime.GC()
	cpu0 := CPUSeconds()
	for b.Loop() {
		msg := tg.Client.Stream(context.Background(), req, func(llm.AssistantEvent) {})
		if len(msg.Text()) != len(text) {
			b.Fatalf("got %d bytes, %s", len(msg.Text()), msg.ErrorMessage)
		}
	}
	b.ReportMetric((CPUSeconds()-cpu0)*1000/float64(b.N), "cpu-ms/op")
}

// MemoryLinearInAnswer streams answers of 256 KiB and 1 MiB in 16-byte
// deltas through tg's client and checks that the bytes allocated grow
// linearly (about 4x), not with the number of deltas times the answer.
func MemoryLinearInAnswer(t *testing.T, tg Target) {
	t.Helper()
	if testing.Short() {
		t.Skip("allocates a few MB")
	}
	alloc := func(size int) uint64 {
		text := string(bytes.Repeat([]byte("0123456789abcde\n"), size/16))
		model := tg.Model("http://fake")
		stream := Render(model.API, &Response{Text: text, ChunkSize: 16})
		req := &llm.Request{Model: model, APIKey: "k",
			Messages:   []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}},
			HTTPClient: &http.Client{Transport: Canned(stream)}}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		msg := tg.Client.Stream(context.Background(), req, func(llm.AssistantEvent) {})
		runtime.ReadMemStats(&after)
		if msg.StopReason != llm.StopStop {
			t.Fatalf("stream failed: %s", msg.ErrorMessage)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(256<<10), alloc(1<<20)
	if ratio := float64(large) / float64(small); ratio > 6 {
		t.Fatalf("allocations grew %.1fx for a 4x larger answer (%d -> %d bytes)", ratio, small, large)
	}
	if large > 12<<20 {
		t.Fatalf("a 1 MiB answer allocated %d bytes", large)
	}
	t.Logf("256 KiB answer: %d bytes allocated, 1 MiB: %d", small, large)
}
