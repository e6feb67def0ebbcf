package anthropic

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// rendered is a canned HTTP answer: the stream bytes are rendered once, so
// the benchmark measures the client (SSE reader, event decoding, builder),
// not the fake server.
type rendered []byte

func (r rendered) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(r)), Request: req}, nil
}

func renderStream(resp *llmtest.Response) []byte {
	enc := llmtest.EncoderFor(llm.APIAnthropicMessages)
	content, final := enc.Encode(resp, &llmtest.Request{Body: map[string]any{"model": "claude-sonnet-4-5"}})
	var buf bytes.Buffer
	for _, f := range append(content, final...) {
		buf.Write(f.Bytes())
	}
	return buf.Bytes()
}

func benchStream(b *testing.B, resp *llmtest.Response, check func(*llm.AssistantMessage)) {
	stream := renderStream(resp)
	req := &llm.Request{Model: sonnet("http://fake"), APIKey: "k", Messages: []llm.Message{userText("hi")},
		HTTPClient: &http.Client{Transport: rendered(stream)}}
	c := New()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	runtime.GC()
	cpu0 := cpuSeconds()
	for b.Loop() {
		msg := c.Stream(context.Background(), req, func(llm.AssistantEvent) {})
		check(msg)
	}
	b.ReportMetric((cpuSeconds()-cpu0)*1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkStreamText2MB parses a 2 MB answer streamed in 16-byte deltas
// (131072 content_block_delta events, about 14 MB of SSE). cpu-ms/op is the
// figure of the performance target (<= 50 ms).
func BenchmarkStreamText2MB(b *testing.B) {
	text := strings.Repeat("0123456789abcde\n", (2<<20)/16)
	benchStream(b, &llmtest.Response{Text: text, ChunkSize: 16}, func(m *llm.AssistantMessage) {
		if m.StopReason != llm.StopStop || len(m.Content[0].(*llm.TextContent).Text) != len(text) {
			b.Fatalf("bad stream: %s %q", m.StopReason, m.ErrorMessage)
		}
	})
}

// BenchmarkStreamToolArgs2MB streams a 2 MB tool-call argument (a write of a
// big file) in 16-byte deltas through the incremental JSON parser.
func BenchmarkStreamToolArgs2MB(b *testing.B) {
	content := strings.Repeat("line of text \"q\"\n", (2<<20)/17)
	args, _ := llm.Marshal(map[string]string{"path": "big.txt", "content": content})
	benchStream(b, &llmtest.Response{ToolCalls: []llmtest.Block{{ID: "t1", Name: "write", Args: args}}, ChunkSize: 16}, func(m *llm.AssistantMessage) {
		if m.StopReason != llm.StopToolUse || len(m.ToolCalls()[0].Arguments) != len(args) {
			b.Fatalf("bad stream: %s %q", m.StopReason, m.ErrorMessage)
		}
	})
}

// TestMemoryLinearInAnswer streams answers of 256 KiB and 1 MiB in 16-byte
// deltas and checks that the bytes allocated grow linearly (about 4x), not
// with the number of deltas times the answer (16x and more).
func TestMemoryLinearInAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few MB")
	}
	alloc := func(size int) uint64 {
		text := strings.Repeat("0123456789abcde\n", size/16)
		stream := renderStream(&llmtest.Response{Text: text, ChunkSize: 16})
		req := &llm.Request{Model: sonnet("http://fake"), APIKey: "k", Messages: []llm.Message{userText("hi")},
			HTTPClient: &http.Client{Transport: rendered(stream)}}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		msg := New().Stream(context.Background(), req, func(llm.AssistantEvent) {})
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
	if large > 8<<20 {
		t.Fatalf("a 1 MiB answer allocated %d bytes", large)
	}
}
