//go:build unix

package responses

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime"
	"syscall"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// cpuSeconds is the user+system CPU time of the process: unlike wall time
// it does not grow when other processes compete for the cores.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// canned answers every request with the same rendered stream, so the
// benchmark measures the client, not the fake server.
type canned []byte

func (c canned) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(c)), Request: req}, nil
}

// BenchmarkStreamText2MB streams a 2 MB answer in 16-byte deltas (131072
// chunks, about 32 MB of SSE) through the whole client. cpu-ms/op is the
// figure of the performance target (<= 50 ms).
func BenchmarkStreamText2MB(b *testing.B) {
	text := string(bytes.Repeat([]byte("0123456789abcde\n"), 2<<20/16))
	resp := llmtest.Response{Text: text, ChunkSize: 16}
	req := &llm.Request{Model: testModel("http://fake"), APIKey: "k",
		Messages: []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}}}
	content, final := llmtest.EncoderFor(llm.APIOpenAIResponses).Encode(&resp, &llmtest.Request{Body: map[string]any{"model": "m"}})
	var body bytes.Buffer
	for _, f := range append(content, final...) {
		body.Write(f.Bytes())
	}
	req.HTTPClient = &http.Client{Transport: canned(body.Bytes())}
	c := New()
	b.SetBytes(int64(body.Len()))
	b.ReportAllocs()
	runtime.GC()
	cpu0 := cpuSeconds()
	for b.Loop() {
		msg := c.Stream(context.Background(), req, func(llm.AssistantEvent) {})
		if len(msg.Text()) != len(text) {
			b.Fatalf("got %d bytes, %s", len(msg.Text()), msg.ErrorMessage)
		}
	}
	b.ReportMetric((cpuSeconds()-cpu0)*1000/float64(b.N), "cpu-ms/op")
}
