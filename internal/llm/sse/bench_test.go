package sse_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
	"github.com/relay-agent/relay/internal/llm/sse"
)

// BenchmarkNextRaw reads the 2 MB answer of the client benchmarks (16-byte
// deltas) in each API's wire shapes: the SSE reader's share of their cost.
func BenchmarkNextRaw(b *testing.B) {
	text := string(bytes.Repeat([]byte("0123456789abcde\n"), 2<<20/16))
	for _, api := range []string{"anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"} {
		stream := llmtest.Render(api, &llmtest.Response{Text: text, ChunkSize: 16})
		b.Run(api, func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				r := sse.NewReader(bytes.NewReader(stream))
				for {
					if _, _, err := r.NextRaw(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
				r.Release()
			}
		})
	}
}

// BenchmarkRead is the floor: the stream copied through a 16 KB buffer.
func BenchmarkRead(b *testing.B) {
	text := string(bytes.Repeat([]byte("0123456789abcde\n"), 2<<20/16))
	stream := llmtest.Render("openai-completions", &llmtest.Response{Text: text, ChunkSize: 16})
	buf := make([]byte, 16<<10)
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		r := bytes.NewReader(stream)
		for {
			if _, err := r.Read(buf); err == io.EOF {
				break
			}
		}
	}
}
