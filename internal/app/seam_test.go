package app

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
)

// Every point the runtime owns is reached, with the spec's result
// semantics: a before_agent_start system prompt holds for the run, a
// session_before_* cancel stops the operation, user_bash can answer a
// command, a tool_call block becomes the model-visible error, a failing
// handler is reported as extension_error.
func TestSeamPointsFire(t *testing.T) {
	rt, fc := newRuntime(t, call("echo", `{"x":1}`), say("done"), say("two"))
	h := rt.hooks
	var mu sync.Mutex
	seen := map[string]int{}
	mark := func(name string) { mu.Lock(); seen[name]++; mu.Unlock() }
	h.Input.On("t", func(context.Context, *hooks.Input) (hooks.InputResult, error) {
		mark("input")
		return hooks.InputResult{}, nil
	})
	h.BeforeAgentStart.On("t", func(_ context.Context, e *hooks.BeforeAgentStart) (hooks.BeforeAgentStartResult, error) {
		mark("before_agent_start")
		return hooks.BeforeAgentStartResult{SystemPrompt: e.SystemPrompt + "\nEXTRA RULE"}, nil
	})
	h.Context.On("t", func(context.Context, *hooks.Context) (hooks.ContextResult, error) {
		mark("context")
		return hooks.ContextResult{}, nil
	})
	h.ToolCall.On("t", func(context.Context, *hooks.ToolCall) (hooks.ToolCallResult, error) {
		mark("tool_call")
		return hooks.ToolCallResult{Block: true, Reason: "blocked by test"}, nil
	})
	h.ToolResult.On("t", func(context.Context, *hooks.ToolResult) (hooks.None, error) {
		mark("tool_result")
		return hooks.None{}, nil
	})
	h.AssistantEnd.On("t", func(context.Context, *hooks.AssistantEnd) (hooks.None, error) {
		mark("message_end")
		return hooks.None{}, nil
	})
	h.Settle.On("t", func(context.Context, *hooks.Settle) (hooks.SettleResult, error) {
		mark("agent_before_settle")
		return hooks.SettleResult{}, errors.New("settle broke")
	})
	var errs []string
	rt.Subscribe(func(e agent.Event) {
		if e.Type == "extension_error" {
			errs = append(errs, e.ExtensionPath+"/"+e.Event)
		}
	})
	if err := rt.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(fc.Reqs[0].SystemPrompt, "EXTRA RULE") || !strings.HasSuffix(fc.Reqs[1].SystemPrompt, "EXTRA RULE") {
		t.Error("before_agent_start's system prompt did not hold for the run")
	}
	tr := rt.ContextMessages()[3].(*llm.ToolResultMessage)
	if !tr.IsError || tr.Content.PlainText() != "blocked by test" {
		t.Errorf("tool_call block: %+v", tr)
	}
	if len(errs) == 0 || errs[0] != "t/agent_before_settle" {
		t.Errorf("failing handler not reported: %v", errs)
	}

	h.ModelSelect.On("t", func(context.Context, *hooks.ModelSelect) (hooks.None, error) {
		mark("model_select")
		return hooks.None{}, nil
	})
	h.ThinkingSelect.On("t", func(context.Context, *hooks.ThinkingSelect) (hooks.None, error) {
		mark("thinking_level_select")
		return hooks.None{}, nil
	})
	_ = rt.SetModel(&llm.Model{ID: "m2", Provider: "fake", API: "fake-api", Reasoning: true, ContextWindow: 100000})
	_ = rt.SetThinkingLevel(llm.ThinkingHigh)

	h.UserBash.On("t", func(_ context.Context, e *hooks.UserBash) (hooks.UserBashResult, error) {
		mark("user_bash")
		return hooks.UserBashResult{Handled: true, Output: "handled " + e.Command}, nil
	})
	if res, err := (UserShell{Hooks: h}).Run(context.Background(), "ls", false, nil); err != nil || res.Output != "handled ls" {
		t.Errorf("user_bash: %+v %v", res, err)
	}
	h.BeforeSwitch.On("t", func(context.Context, *hooks.SessionChange) (hooks.CancelResult, error) {
		mark("session_before_switch")
		return hooks.CancelResult{Cancel: true, Reason: "unsaved work"}, nil
	})
	if err := rt.NewSession(""); err == nil || !strings.Contains(err.Error(), "unsaved work") {
		t.Errorf("session_before_switch cancel: %v", err)
	}
	h.BeforeFork.On("t", func(context.Context, *hooks.SessionChange) (hooks.CancelResult, error) {
		mark("session_before_fork")
		return hooks.CancelResult{Cancel: true}, nil
	})
	if err := rt.Clone(); err == nil {
		t.Error("session_before_fork cancel ignored")
	}
	h.SessionShutdown.On("t", func(context.Context, *hooks.SessionChange) (hooks.None, error) {
		mark("session_shutdown")
		return hooks.None{}, nil
	})
	rt.Close()

	var got []string
	for k := range seen {
		got = append(got, k)
	}
	sort.Strings(got)
	want := "agent_before_settle before_agent_start context input message_end model_select session_before_fork session_before_switch session_shutdown thinking_level_select tool_call tool_result user_bash"
	if strings.Join(got, " ") != want {
		t.Errorf("points reached:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
}
