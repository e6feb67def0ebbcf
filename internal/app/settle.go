package app

import (
	"context"
	"fmt"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
)

// beforeSettle is agent_before_settle: when the model ended a turn
// without tool calls, the handlers may propose session entries, appended
// here in order before the agent settles, and ask for one more model
// request (after a follow-up message when one is given). A draft the
// session refuses (a context edit of an entry not on the branch) is
// reported; it and the drafts after it are dropped and the run settles.
func (r *Runtime) beforeSettle(m *llm.AssistantMessage, results []*llm.ToolResultMessage) (string, bool) {
	if !r.hooks.Settle.Has() || len(results) > 0 {
		return "", false
	}
	ctx := context.Background()
	res := r.hooks.RunSettle(ctx, hooks.Settle{Message: m, ToolResults: results, Outcome: "completed"})
	for i, d := range res.Entries {
		if err := r.appendDraft(d); err != nil {
			r.emit(agent.Event{Type: agent.ExtensionError, ExtensionPath: "agent_before_settle", Event: r.hooks.Settle.Name(),
				Error: fmt.Sprintf("entry %d (%s): %v", i, d.Type, err)})
			return "", false
		}
	}
	return res.FollowUp, res.Continue
}

// appendDraft appends one entry draft to the session.
func (r *Runtime) appendDraft(d hooks.EntryDraft) error {
	sess := r.Session()
	switch d.Type {
	case hooks.DraftCustom:
		var data any
		if len(d.Data) > 0 {
			data = d.Data
		}
		_, err := sess.AppendCustom(d.CustomType, data)
		return err
	case hooks.DraftCustomMessage:
		var details any
		if len(d.Details) > 0 {
			details = d.Details
		}
		if _, err := sess.AppendCustomMessage(d.CustomType, *d.Content, d.Display, details); err != nil {
			return err
		}
		// Front ends show it as they show a sendMessage message.
		msg := &llm.CustomMessage{CustomType: d.CustomType, Content: *d.Content, Display: d.Display, Details: d.Details, Timestamp: r.now()}
		r.emit(agent.Event{Type: agent.MessageStart, Message: msg})
		r.emit(agent.Event{Type: agent.MessageEnd, Message: msg})
		return nil
	case hooks.DraftContextEdit:
		var repl *llm.Content
		if d.Replacement != nil {
			repl = &d.Replacement.Content
		}
		_, err := sess.AppendContextEdit(d.TargetID, repl)
		return err
	case hooks.DraftCompaction:
		msgs := r.ContextMessages()
		first := ""
		if d.FirstKeptEntryID != nil {
			first = *d.FirstKeptEntryID
		}
		var details any
		if len(d.Details) > 0 {
			details = d.Details
		}
		tokensBefore := compaction.ContextTokens(msgs, true)
		state := llm.ReplaySystem(msgs)
		// fromHook: the summary is the extension's, as a
		// session_before_compact handler's would be.
		_, err := sess.AppendCompaction(d.Summary, first, tokensBefore, state.Checkpoint(r.now()), details, true, d.Usage)
		return err
	}
	return fmt.Errorf("unknown entry type %q", d.Type)
}
