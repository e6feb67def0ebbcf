// Package apptest holds fakes for tests of the runtime and of the features
// that register on it: a scripted model client, a model registry over it,
// and a trivial tool.
package apptest

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// Reply produces one scripted answer; returning nil finishes b.
type Reply func(req *llm.Request, b *llm.MessageBuilder) *llm.AssistantMessage

// FakeClient answers from Replies in order and records each request.
type FakeClient struct {
	mu      sync.Mutex
	Replies []Reply
	Reqs    []*llm.Request
}

// Stream implements llm.Client.
func (f *FakeClient) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	f.mu.Lock()
	f.Reqs = append(f.Reqs, req)
	i := len(f.Reqs) - 1
	f.mu.Unlock()
	b := llm.NewMessageBuilder(req.Model, emit)
	if i >= len(f.Replies) {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: "fake: no more replies"})
	}
	if m := f.Replies[i](req, b); m != nil {
		return m
	}
	return b.Finish()
}

// Say answers with text and a small usage.
func Say(text string) Reply {
	return func(_ *llm.Request, b *llm.MessageBuilder) *llm.AssistantMessage {
		i := b.StartText()
		b.AppendText(i, text)
		b.EndText(i)
		b.SetUsage(llm.Usage{Input: 100, Output: 10, TotalTokens: 110})
		return nil
	}
}

// Call answers with one tool call.
func Call(name, args string) Reply {
	return func(_ *llm.Request, b *llm.MessageBuilder) *llm.AssistantMessage {
		i := b.StartToolCall("call_"+name, name)
		b.AppendToolCallArgs(i, args)
		b.EndToolCall(i)
		b.SetStopReason(llm.StopToolUse, "tool_use")
		return nil
	}
}

// EchoTool answers "echo:<args>".
type EchoTool struct{}

// Spec implements tool.Tool.
func (EchoTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "echo", Description: "echo", Parameters: json.RawMessage(`{"type":"object"}`)}
}

// Execute implements tool.Tool.
func (EchoTool) Execute(ctx context.Context, args json.RawMessage, _ func(tool.Result)) tool.Result {
	return tool.Text("echo:" + string(args))
}
