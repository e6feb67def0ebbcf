package responses

import (
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func TestFaults(t *testing.T) {
	f := llmtest.OpenAIFaults()
	f.InStreamHas = "server_error: The server is overloaded"
	f.CutAfter = 2500
	f.Garbage = llmtest.Fault{GarbageEvent: "response.output_text.delta", Garbage: `{"type":"response.output_text.delta","delta":`}
	f.EarlyEndHas = "connection closed"
	f.Extra = []llmtest.FaultCase{
		{Name: "response.failed", Responses: []llmtest.Response{{Text: "partial answer", RawStopReason: "failed"}},
			Kind: llm.ErrServer, Retryable: true, MsgHas: "Unknown error", KeepText: "partial answer", Requests: 1},
	}
	llmtest.RunFaults(t, target, f)
}
