package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/codemode"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/harness"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// BenchmarkEmptyScript is a codemode call whose script does nothing: VM
// start, prelude, result (the budget: 5 ms).
func BenchmarkEmptyScript(b *testing.B) {
	f := newFixture(b)
	args := json.RawMessage(code(`;`))
	ctx := tool.WithCallID(context.Background(), "c")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if r := f.tool.Execute(ctx, args, nil); r.IsError {
			b.Fatal(r.Content)
		}
	}
}

// BenchmarkHundredCalls is a script making 100 calls of a tool that does
// no work, so the time is codemode's overhead (budget: 100 ms).
func BenchmarkHundredCalls(b *testing.B) {
	f := newFixture(b)
	args := json.RawMessage(code(`let n = 0; for (let i = 0; i < 100; i++) n += (await tools.echo({text: "x" + i})).length; return n`))
	ctx := tool.WithCallID(context.Background(), "c")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if r := f.tool.Execute(ctx, args, nil); r.IsError {
			b.Fatal(r.Content)
		}
	}
	if f.echo.calls.Load() != int32(100*b.N) {
		b.Fatalf("%d calls", f.echo.calls.Load())
	}
}

// BenchmarkHundredCallsThroughTheLoop is the same script run as the model's
// tool call in the agent loop, so each nested call takes the real path:
// tool_execution events, the tool_call hooks with the harness gate
// registered, the tool_result hooks and the nestedCalls record. One
// iteration is one whole turn pair (a codemode call, then an answer).
func BenchmarkHundredCallsThroughTheLoop(b *testing.B) {
	benchLoop(b, `let n = 0; for (let i = 0; i < 100; i++) n += (await tools.echo({text: "x" + i})).length; return n`)
}

// BenchmarkEmptyScriptThroughTheLoop is the baseline of the one above.
func BenchmarkEmptyScriptThroughTheLoop(b *testing.B) { benchLoop(b, `;`) }

func benchLoop(b *testing.B, src string) {
	f := newFixture(b)
	cfg := harness.DefaultConfig()
	cfg.Alignment, cfg.AuthorizationGate, cfg.Cwd, cfg.Probe = true, true, f.dir, nil
	if _, err := harness.New(cfg).Register(f.seam, commands.New()); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(code(src))
	turn := 0
	a := agent.New(agent.Options{
		Stream: func(context.Context, func(llm.AssistantEvent)) *llm.AssistantMessage {
			turn++
			if turn%2 == 1 {
				return &llm.AssistantMessage{StopReason: llm.StopToolUse, Content: llm.Blocks{&llm.ToolCall{ID: fmt.Sprintf("c%d", turn), Name: codemode.Name, Arguments: args}}}
			}
			return &llm.AssistantMessage{StopReason: llm.StopStop, Content: llm.Blocks{&llm.TextContent{Text: "ok"}}}
		},
		ExecuteTool: func(ctx context.Context, call *llm.ToolCall, _ func(agent.ToolOutcome)) agent.ToolOutcome {
			r := f.tool.Execute(tool.WithCallID(ctx, call.ID), call.Arguments, nil)
			return agent.ToolOutcome{Content: r.Content, IsError: r.IsError}
		},
		Persist: func(llm.Message) error { return nil },
		Hooks: agent.Hooks{
			BeforeToolCall: func(ctx context.Context, call *llm.ToolCall) (bool, string) {
				r := f.seam.RunToolCall(ctx, hooks.ToolCall{Call: call, ParentToolCallID: agent.ParentToolCallID(ctx)})
				return r.Block, r.Reason
			},
			AfterToolCall: func(call *llm.ToolCall, res *llm.ToolResultMessage) {
				f.seam.ToolResult.Notify(context.Background(), &hooks.ToolResult{Call: call, Result: res})
			},
		},
	})
	msg := &llm.UserMessage{Content: llm.StringContent("go")}
	b.ReportAllocs()
	for b.Loop() {
		if err := a.Run(context.Background(), msg); err != nil {
			b.Fatal(err)
		}
	}
}
