// Package apptest holds fakes for tests of the runtime and of the features
// that register on it: a scripted model client, a model registry over it,
// and a trivial tool.
package apptest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
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

// Models is an app.Models over one model answered by Client; AuthCalls
// counts credential look-ups (a command that never talks to the model
// must not need any).
type Models struct {
	mu        sync.Mutex
	LLM       llm.Client
	Model     *llm.Model
	AuthCalls int
}

// Client implements app.Models.
func (m *Models) Client(*llm.Model) (llm.Client, error) { return m.LLM, nil }

// Auth implements app.Models with a fixed fake key.
func (m *Models) Auth(context.Context, *llm.Model) (string, map[string]string, error) {
	m.mu.Lock()
	m.AuthCalls++
	m.mu.Unlock()
	return "sk-fake-runtime-key", nil, nil
}

// Find implements app.Models.
func (m *Models) Find(p, id string) *llm.Model {
	if p == m.Model.Provider && id == m.Model.ID {
		return m.Model
	}
	return nil
}

// Available implements app.Models.
func (m *Models) Available() []*llm.Model { return []*llm.Model{m.Model} }

// SeedConversation appends a small conversation: a user prompt, a tool
// call ("probe") with its result, an answer ("The build passes."), and a
// failed turn.
func SeedConversation(s *session.Manager) error {
	for _, m := range []llm.Message{
		&llm.UserMessage{Content: llm.StringContent("please check the build"), Timestamp: 1},
		&llm.AssistantMessage{Content: llm.Blocks{&llm.ThinkingContent{Thinking: "let me look"},
			&llm.ToolCall{ID: "c1", Name: "probe", Arguments: json.RawMessage(`{"path":"main.go"}`)}},
			API: "fake-api", Provider: "fake", Model: "m1", StopReason: llm.StopToolUse, Timestamp: 2,
			Usage: llm.Usage{Input: 1200, Output: 30, CacheRead: 5000, Cost: llm.Cost{Total: 0.0125}}},
		&llm.ToolResultMessage{ToolCallID: "c1", ToolName: "probe", Content: llm.Blocks{&llm.TextContent{Text: "probed"}}, Timestamp: 3},
		&llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "The build "}, &llm.TextContent{Text: "passes."}},
			API: "fake-api", Provider: "fake", Model: "m1", StopReason: llm.StopStop, Timestamp: 4,
			Usage: llm.Usage{Input: 1300, Output: 12, Cost: llm.Cost{Total: 0.0100}}},
		&llm.UserMessage{Content: llm.StringContent("and now?"), Timestamp: 5},
		&llm.AssistantMessage{Content: llm.Blocks{}, API: "fake-api", Provider: "fake", Model: "m1",
			StopReason: llm.StopError, ErrorMessage: "529 overloaded_error: Overloaded", Timestamp: 6},
	} {
		if _, err := s.AppendMessage(m); err != nil {
			return err
		}
	}
	return nil
}

// FakeCommand writes an executable shell script name into dir.
func FakeCommand(dir, name, script string) error {
	return os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script), 0o755)
}

// NewSession creates a project dir and an agent dir under a temporary
// root and a persisted session for the project in the agent dir.
func NewSession(t testing.TB) (sess *session.Manager, cwd, agentDir string) {
	t.Helper()
	root := t.TempDir()
	cwd, agentDir = filepath.Join(root, "proj"), filepath.Join(root, "agent")
	for _, d := range []string{cwd, agentDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sess, err := session.Create(cwd, session.DefaultDir(agentDir, cwd), session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sess, cwd, agentDir
}
