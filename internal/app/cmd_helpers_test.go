package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/tool"
)

// cmdClient answers every request with the next scripted text.
type cmdClient struct {
	mu    sync.Mutex
	texts []string
	reqs  []*llm.Request
}

func (c *cmdClient) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	i := len(c.reqs) - 1
	c.mu.Unlock()
	b := llm.NewMessageBuilder(req.Model, emit)
	if i >= len(c.texts) {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: "cmd fake: no more replies"})
	}
	j := b.StartText()
	b.AppendText(j, c.texts[i])
	b.EndText(j)
	b.SetUsage(llm.Usage{Input: 50, Output: 5})
	return b.Finish()
}

// cmdModels is an app.Models whose Auth must never be needed by the
// command under test unless it talks to the model.
type cmdModels struct {
	client    *cmdClient
	model     *llm.Model
	authCalls int
}

func (m *cmdModels) Client(*llm.Model) (llm.Client, error) { return m.client, nil }
func (m *cmdModels) Auth(context.Context, *llm.Model) (string, map[string]string, error) {
	m.authCalls++
	return "sk-fake-runtime-key", nil, nil
}
func (m *cmdModels) Find(p, id string) *llm.Model {
	if p == m.model.Provider && id == m.model.ID {
		return m.model
	}
	return nil
}
func (m *cmdModels) Available() []*llm.Model { return []*llm.Model{m.model} }

type cmdTool struct{}

func (cmdTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "probe", Description: "probe the system", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
}
func (cmdTool) Execute(ctx context.Context, args json.RawMessage, _ func(tool.Result)) tool.Result {
	return tool.Text("probed")
}

type cmdEnv struct {
	rt       *Runtime
	models   *cmdModels
	cwd      string
	agentDir string
}

// newCmdRuntime builds a runtime over a persisted session in a temporary
// agent directory; replies are the texts the fake model answers with.
func newCmdRuntime(t *testing.T, replies ...string) *cmdEnv {
	t.Helper()
	root := t.TempDir()
	cwd := filepath.Join(root, "proj")
	agentDir := filepath.Join(root, "agent")
	for _, d := range []string{cwd, agentDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sess, err := session.Create(cwd, session.DefaultDir(agentDir, cwd), session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	model := &llm.Model{ID: "m1", Name: "Model One", Provider: "fake", API: "fake-api", BaseURL: "https://api.example.test/v1",
		ContextWindow: 100000, MaxTokens: 8000}
	ms := &cmdModels{client: &cmdClient{texts: replies}, model: model}
	reg, _ := tool.NewRegistry(cmdTool{})
	rt, err := New(Config{Cwd: cwd, AgentDir: agentDir, Session: sess, Models: ms, Model: model,
		Tools: reg, Active: tool.NewActive([]string{"probe"}), NoContext: true,
		Compaction: compaction.Settings{Enabled: false, ReserveTokens: 16384, KeepRecentTokens: 20000},
		Now:        func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return &cmdEnv{rt: rt, models: ms, cwd: cwd, agentDir: agentDir}
}

// seed appends a small conversation: a user prompt, a tool call with its
// result, an answer, and a failed turn.
func (e *cmdEnv) seed(t *testing.T) {
	t.Helper()
	s := e.rt.Session()
	must := func(_ string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.AppendMessage(&llm.UserMessage{Content: llm.StringContent("please check the build"), Timestamp: 1}))
	must(s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{&llm.ThinkingContent{Thinking: "let me look"},
		&llm.ToolCall{ID: "c1", Name: "probe", Arguments: json.RawMessage(`{"path":"main.go"}`)}},
		API: "fake-api", Provider: "fake", Model: "m1", StopReason: llm.StopToolUse, Timestamp: 2,
		Usage: llm.Usage{Input: 1200, Output: 30, CacheRead: 5000, Cost: llm.Cost{Total: 0.0125}}}))
	must(s.AppendMessage(&llm.ToolResultMessage{ToolCallID: "c1", ToolName: "probe", Content: llm.Blocks{&llm.TextContent{Text: "probed"}}, Timestamp: 3}))
	must(s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "The build "}, &llm.TextContent{Text: "passes."}},
		API: "fake-api", Provider: "fake", Model: "m1", StopReason: llm.StopStop, Timestamp: 4,
		Usage: llm.Usage{Input: 1300, Output: 12, Cost: llm.Cost{Total: 0.0100}}}))
	must(s.AppendMessage(&llm.UserMessage{Content: llm.StringContent("and now?"), Timestamp: 5}))
	must(s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{}, API: "fake-api", Provider: "fake", Model: "m1",
		StopReason: llm.StopError, ErrorMessage: "529 overloaded_error: Overloaded", Timestamp: 6}))
}
