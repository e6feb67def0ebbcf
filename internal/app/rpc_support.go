package app

import (
	"context"
	"errors"
	"strings"

	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// RunShell runs a user shell command (RPC bash) without recording it, so
// the caller can decide when the bashExecution message is stored. AbortBash
// cancels it like a Bash call.
func (r *Runtime) RunShell(ctx context.Context, command string, onChunk func(string)) (BashResult, error) {
	if r.cfg.Shell == nil {
		return BashResult{}, errors.New("bash: no shell configured")
	}
	ctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	r.bashCancel = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.bashCancel = nil
		r.mu.Unlock()
		cancel()
	}()
	return r.cfg.Shell(ctx, command, onChunk)
}

// RecordBash stores the outcome of a user shell command as a bashExecution
// message; unless exclude is set it reaches the model with the next prompt.
// Call it while the agent is idle: appending in the middle of a run would
// split an assistant message from its tool results.
func (r *Runtime) RecordBash(command string, res BashResult, exclude bool) error {
	msg := &llm.BashExecutionMessage{Command: command, Output: res.Output, ExitCode: res.ExitCode, Cancelled: res.Cancelled,
		Truncated: res.Truncated, FullOutputPath: res.FullOutputPath, ExcludeFromContext: exclude, Timestamp: r.now()}
	_, err := r.Session().AppendMessage(msg)
	return err
}

// LastAssistantReply is the trimmed text of the newest assistant message
// on the branch, skipping aborted replies that produced nothing (RPC
// get_last_assistant_text). Unlike LastAssistantText (/copy) it does not
// look past a newer message without text: ok is false then, and when there
// is no assistant message at all.
func (r *Runtime) LastAssistantReply() (string, bool) {
	msgs := r.ContextMessages()
	for i := len(msgs) - 1; i >= 0; i-- {
		a, isAssistant := msgs[i].(*llm.AssistantMessage)
		if !isAssistant {
			continue
		}
		if a.StopReason == llm.StopAborted && len(a.Content) == 0 {
			continue
		}
		text := strings.TrimSpace(a.Text())
		return text, text != ""
	}
	return "", false
}

// RPCStats is Stats for RPC get_session_stats, with contextUsage.tokens and
// .percent null from a compaction until an assistant reply after it
// reports usage (rpc-commands.md). Stats alone keeps an estimate when the
// kept messages include an older assistant reply, whose usage measured
// the context before the compaction.
func (r *Runtime) RPCStats() SessionStats {
	st := r.Stats()
	if st.ContextUsage != nil && !r.usageSinceCompaction() {
		st.ContextUsage.Tokens, st.ContextUsage.Percent = nil, nil
	}
	return st
}

// usageSinceCompaction reports whether the active branch has no
// compaction, or a successful assistant reply with usage after the latest
// one.
func (r *Runtime) usageSinceCompaction() bool {
	branch := r.Session().Branch("")
	for i := len(branch) - 1; i >= 0; i-- {
		e := branch[i]
		switch {
		case e.Type == session.TypeCompaction:
			return false
		case e.Type == session.TypeMessage && e.Role() == llm.RoleAssistant:
			m, err := e.Message()
			if err != nil {
				continue
			}
			a, ok := m.(*llm.AssistantMessage)
			if !ok || a.StopReason == llm.StopError || a.StopReason == llm.StopAborted {
				continue
			}
			return compaction.UsageTokens(a.Usage) > 0
		}
	}
	return true
}
