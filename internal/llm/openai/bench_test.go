package openai

import (
	"bytes"
	"context"
	"net/http"
	"runtime"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// BenchmarkStreamText2MB streams a 2 MB answer in 16-byte deltas (about 32
// MB of SSE) through the whole client (see llmtest.BenchStreamText2MB).
func BenchmarkStreamText2MB(b *testing.B) { llmtest.BenchStreamText2MB(b, target) }

// TestMemoryLinearInAnswer streams answers of 256 KiB and 1 MiB in 16-byte
// deltas and checks that the bytes allocated grow linearly (about 4x), not
// with the number of deltas times the answer.
func TestMemoryLinearInAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few MB")
	}
	alloc := func(size int) uint64 {
		text := string(bytes.Repeat([]byte("0123456789abcde\n"), size/16))
		model := target.Model("http://fake")
		stream := llmtest.Render(model.API, &llmtest.Response{Text: text, ChunkSize: 16})
		req := &llm.Request{Model: model, APIKey: "k",
			Messages:   []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}},
			HTTPClient: &http.Client{Transport: llmtest.Canned(stream)}}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		msg := target.Client.Stream(context.Background(), req, func(llm.AssistantEvent) {})
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
