package harness

import (
	"fmt"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// longSession is a realistic long run: reads, edits and commands, most
// results large.
func longSession(n int) []llm.Message {
	msgs := []llm.Message{user("Migrate the storage layer to the new API. Never change the schema.")}
	for i := range n {
		var tc *llm.ToolCall
		switch i % 3 {
		case 0:
			tc = toolCall(fmt.Sprint(i), "read", map[string]any{"path": fmt.Sprintf("pkg/f%d.go", i%40)})
		case 1:
			tc = toolCall(fmt.Sprint(i), "edit", map[string]any{"path": fmt.Sprintf("pkg/f%d.go", i%40), "edits": []any{}})
		default:
			tc = bashCall(fmt.Sprint(i), "cd pkg && go test ./... -run TestStorage 2>&1 | tail -50")
		}
		msgs = append(msgs, calling(tc), result(tc, strings.Repeat("line of output\n", 200), false))
	}
	return msgs
}

func BenchmarkPrepareRequest(b *testing.B) {
	for _, n := range []int{40, 400} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := New(DefaultConfig())
			c.OnUserMessage("Migrate the storage layer. Never change the schema.", true)
			msgs := longSession(n)
			b.ReportAllocs()
			for b.Loop() {
				c.PrepareRequest(msgs)
			}
		})
	}
}

func BenchmarkClassifyCommand(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ClassifyCommand("cd web && npm ci && npm run build && npx vitest run --reporter=dot | tail -30", nil)
	}
}
