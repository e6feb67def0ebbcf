package bugreport

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/app/apptest"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

type cmdEnv struct {
	rt       *app.Runtime
	cmds     *commands.Registry
	f        *Feature
	models   *apptest.Models
	client   *apptest.FakeClient
	cwd      string
	agentDir string
}

// newCmdRuntime builds a runtime over a persisted session in a temporary
// agent directory, with /bug and /debug registered; replies are the texts
// the fake model answers with.
func newCmdRuntime(t *testing.T, replies ...string) *cmdEnv {
	t.Helper()
	sess, cwd, agentDir := apptest.NewSession(t)
	model := &llm.Model{ID: "m1", Name: "Model One", Provider: "fake", API: "fake-api", BaseURL: "https://api.example.test/v1",
		ContextWindow: 100000, MaxTokens: 8000}
	client := &apptest.FakeClient{}
	for _, r := range replies {
		client.Replies = append(client.Replies, apptest.Say(r))
	}
	ms := &apptest.Models{LLM: client, Model: model}
	reg, _ := tool.NewRegistry(probeTool{})
	active := tool.NewActive([]string{"probe"})
	now := func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }
	seam, cmds := hooks.New(), commands.New()
	rt, err := app.New(app.Config{Hooks: seam, Commands: cmds, Cwd: cwd, AgentDir: agentDir, Session: sess, Models: ms, Model: model,
		Tools: reg, Active: active, NoContext: true,
		Compaction: compaction.Settings{Enabled: false, ReserveTokens: 16384, KeepRecentTokens: 20000}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	f, err := Register(rt, seam, cmds, Options{Cwd: cwd, AgentDir: agentDir, Version: "test", Active: active, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return &cmdEnv{rt: rt, cmds: cmds, f: f, models: ms, client: client, cwd: cwd, agentDir: agentDir}
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

func userText(s string) llm.Message {
	return &llm.UserMessage{Content: llm.StringContent(s), Timestamp: 1}
}

type probeTool struct{}

func (probeTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "probe", Description: "probe the system", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
}

func (probeTool) Execute(context.Context, json.RawMessage, func(tool.Result)) tool.Result {
	return tool.Text("probed")
}
