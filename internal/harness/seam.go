package harness

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/session"
)

// Source names the harness in hook error reports.
const Source = "harness"

// Register puts the core on the runtime's seam: it reads user input, adds
// its standing rules to the system prompt, gates tool calls (asking through
// the attached UI), observes results, asks for evidence before a run
// settles, projects each request's context, and rebuilds its state when a
// session starts, is resumed or moves in the tree. Ledger changes are
// appended to the current session and decisions become notices, unless
// Config.OnLedgerChange / OnEvent say otherwise; /harness goes on reg. The
// returned func removes every handler.
func (c *Core) Register(s *hooks.Set, reg *commands.Registry) (off func(), err error) {
	var sess atomic.Pointer[session.Manager]
	if c.cfg.OnEvent == nil {
		c.cfg.OnEvent = func(e Event) { s.Notify(Source, Notice(e)) }
	}
	if c.cfg.OnLedgerChange == nil {
		c.cfg.OnLedgerChange = func(snap LedgerSnapshot) {
			if m := sess.Load(); m != nil {
				_, _ = m.AppendCustom(CustomTypeConstraints, snap)
			}
		}
	}
	restore := func(_ context.Context, e *hooks.SessionChange) (hooks.None, error) {
		if e.Session == nil {
			return hooks.None{}, nil
		}
		sess.Store(e.Session)
		return hooks.None{}, c.RestoreFrom(e.Session)
	}
	offs := []func(){
		s.Input.On(Source, func(_ context.Context, e *hooks.Input) (hooks.InputResult, error) {
			// Follow-ups are read when they are delivered as a prompt.
			if e.StreamingBehavior != "followUp" {
				c.OnUserMessage(e.Text, e.StreamingBehavior == "")
			}
			return hooks.InputResult{}, nil
		}),
		s.SystemPrompt.On(Source, func(context.Context, *hooks.SystemPrompt) (hooks.SystemPromptResult, error) {
			return hooks.SystemPromptResult{Guidelines: c.PromptGuidelines()}, nil
		}),
		s.ToolCall.On(Source, func(ctx context.Context, e *hooks.ToolCall) (hooks.ToolCallResult, error) {
			var appr Approver
			if ui := s.UI(); ui != nil {
				appr = ui
			}
			d := c.BeforeToolCall(ctx, e.Call, appr)
			return hooks.ToolCallResult{Block: d.Block, Reason: d.Reason}, nil
		}),
		s.ToolResult.On(Source, func(_ context.Context, e *hooks.ToolResult) (hooks.None, error) {
			c.AfterToolCall(e.Call, e.Result)
			return hooks.None{}, nil
		}),
		s.AssistantEnd.On(Source, func(_ context.Context, e *hooks.AssistantEnd) (hooks.None, error) {
			c.NoteResponse(e.Message)
			return hooks.None{}, nil
		}),
		s.Settle.On(Source, func(_ context.Context, e *hooks.Settle) (hooks.SettleResult, error) {
			text, ok := c.OnAssistantEnd(e.Message)
			return hooks.SettleResult{Continue: ok, FollowUp: text}, nil
		}),
		s.Context.On(Source, func(_ context.Context, e *hooks.Context) (hooks.ContextResult, error) {
			return hooks.ContextResult{Messages: c.PrepareRequest(e.Messages)}, nil
		}),
		s.SessionStart.On(Source, restore),
		s.SessionTree.On(Source, restore),
	}
	if err := reg.Register(commands.Command{Name: "harness", Description: "Show the harness-core status", Source: commands.Builtin,
		Run: func(context.Context, string) (commands.Output, error) {
			return commands.Output{Text: strings.TrimRight(c.Status().Format(), "\n")}, nil
		}}); err != nil {
		return nil, err
	}
	offs = append(offs, func() { reg.Unregister("harness") })
	return func() {
		for _, f := range offs {
			f()
		}
	}, nil
}

// RestoreFrom rebuilds the state from a session's active branch: its
// latest constraints entry and its messages.
func (c *Core) RestoreFrom(m *session.Manager) error {
	var data []byte
	for _, e := range m.Branch("") {
		if cu := e.Custom(); cu != nil && cu.CustomType == CustomTypeConstraints {
			data = cu.Data
		}
	}
	return c.Restore(m.BuildSessionContext().Messages, data)
}
