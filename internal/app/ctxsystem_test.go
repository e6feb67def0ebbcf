package app

import (
	"context"
	"testing"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
)

// context_with_system from a Go registrant: it sees the prompt and the
// tool declarations as the leading system message, and the request is
// what it returns (here: another prompt, no tools, one message more).
func TestContextWithSystemOwnsTheRequest(t *testing.T) {
	rt, fc := newRuntime(t, say("ok"))
	rt.hooks.ContextWithSystem.On("test", func(_ context.Context, e *hooks.Context) (hooks.ContextResult, error) {
		head, ok := e.Messages[0].(*llm.SystemMessage)
		if !ok || len(head.ToolsAdded) != 1 || head.ToolsAdded[0].Name != "echo" {
			t.Errorf("leading message %#v: want the system message declaring echo", e.Messages[0])
		}
		out := []llm.Message{&llm.SystemMessage{Content: llm.StringContent("short prompt")}}
		out = append(out, e.Messages[1:]...)
		out = append(out, &llm.CustomMessage{CustomType: "x", Content: llm.StringContent("extra")})
		return hooks.ContextResult{Messages: out}, nil
	})
	if err := rt.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	req := fc.Reqs[0]
	if req.SystemPrompt != "short prompt" || len(req.Tools) != 0 || len(req.Messages) != 2 {
		t.Fatalf("request prompt %q, %d tools, %d messages", req.SystemPrompt, len(req.Tools), len(req.Messages))
	}
	if _, ok := req.Messages[1].(*llm.UserMessage); !ok {
		t.Errorf("the custom message was not converted for the provider: %T", req.Messages[1])
	}
}
