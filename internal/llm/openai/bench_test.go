package openai

import (
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// BenchmarkStreamText2MB streams a 2 MB answer in 16-byte deltas (about 32
// MB of SSE) through the whole client (see llmtest.BenchStreamText2MB).
func BenchmarkStreamText2MB(b *testing.B) { llmtest.BenchStreamText2MB(b, target) }

// TestMemoryLinearInAnswer checks that allocations grow linearly with the
// answer (see llmtest.MemoryLinearInAnswer).
func TestMemoryLinearInAnswer(t *testing.T) { llmtest.MemoryLinearInAnswer(t, target) }
