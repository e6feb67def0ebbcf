package openai

import (
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func TestFaults(t *testing.T) {
	f := llmtest.OpenAIFaults()
	f.InStreamHas = "overloaded"
	f.CutAfter = 900
	f.Garbage = llmtest.Fault{Garbage: `{"id":"x","choices":[{"delta":`}
	f.EarlyEndHas = "without finish_reason"
	llmtest.RunFaults(t, target, f)
}
