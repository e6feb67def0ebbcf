package bedrock

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/bedrock/bedrocktest"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// canned answers every request with the same event stream, so the
// benchmark measures the client (signing, framing, JSON, builder), not a
// server.
type canned []byte

func (c canned) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}},
		Body: io.NopCloser(bytes.NewReader(c)), Request: req}, nil
}

func answer2MB() (string, []byte) {
	text := strings.Repeat("0123456789abcde\n", (2<<20)/16)
	return text, bytes.Join(bedrocktest.TextAnswer(text, 16), nil)
}

func benchEnv(k string) string {
	switch k {
	case "AWS_ACCESS_KEY_ID":
		return "AKIDEXAMPLE"
	case "AWS_SECRET_ACCESS_KEY":
		return "secret"
	case "AWS_REGION":
		return "us-east-1"
	case "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE":
		return "/nonexistent/aws"
	}
	return ""
}

// BenchmarkStreamText2MB decodes a 2 MB answer streamed in 16-byte deltas
// (131072 contentBlockDelta frames, about 22 MB of event stream) through
// the whole client. cpu-ms/op is the figure of the target (<= 50 ms).
func BenchmarkStreamText2MB(b *testing.B) {
	text, stream := answer2MB()
	c := New(Config{Getenv: benchEnv})
	req := &llm.Request{Model: claude("http://fake"), Messages: []llm.Message{userText("hi")},
		HTTPClient: &http.Client{Transport: canned(stream)}}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	runtime.GC()
	cpu0 := llmtest.CPUSeconds()
	for b.Loop() {
		msg := c.Stream(context.Background(), req, func(llm.AssistantEvent) {})
		if msg.StopReason != llm.StopStop || len(msg.Content) != 1 || len(msg.Content[0].(*llm.TextContent).Text) != len(text) {
			b.Fatalf("bad stream: %s %s", msg.StopReason, msg.ErrorMessage)
		}
	}
	b.ReportMetric((llmtest.CPUSeconds()-cpu0)*1000/float64(b.N), "cpu-ms/op")
}

// TestMemoryLinearInAnswer: bytes allocated grow with the answer, not with
// the number of frames times the answer.
func TestMemoryLinearInAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few MB")
	}
	c := New(Config{Getenv: benchEnv})
	alloc := func(size int) uint64 {
		text := strings.Repeat("0123456789abcde\n", size/16)
		stream := bytes.Join(bedrocktest.TextAnswer(text, 16), nil)
		req := &llm.Request{Model: claude("http://fake"), Messages: []llm.Message{userText("hi")},
			HTTPClient: &http.Client{Transport: canned(stream)}}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		msg := c.Stream(context.Background(), req, func(llm.AssistantEvent) {})
		runtime.ReadMemStats(&after)
		if msg.Text() != text {
			t.Fatalf("stream failed: %s", msg.ErrorMessage)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	alloc(64 << 10) // load the AWS configuration outside the measurement
	small, large := alloc(256<<10), alloc(1<<20)
	if ratio := float64(large) / float64(small); ratio > 6 {
		t.Fatalf("allocations grew %.1fx for a 4x larger answer (%d -> %d bytes)", ratio, small, large)
	}
	if large > 12<<20 {
		t.Fatalf("a 1 MiB answer allocated %d bytes", large)
	}
	t.Logf("256 KiB answer: %d bytes allocated, 1 MiB: %d", small, large)
}
