package rpcmode

import (
	"strings"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// lastAssistantReply is the trimmed text of the newest assistant message
// on the branch, skipping aborted replies that produced nothing (RPC
// get_last_assistant_text). Unlike LastAssistantText (/copy) it does not
// look past a newer message without text: ok is false then, and when there
// is no assistant message at all.
func lastAssistantReply(rt *app.Runtime) (string, bool) {
	msgs := rt.ContextMessages()
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

// rpcStats is Stats for RPC get_session_stats, with contextUsage.tokens and
// .percent null from a compaction until an assistant reply after it
// reports usage (rpc-commands.md). Stats alone keeps an estimate when the
// kept messages include an older assistant reply, whose usage measured
// the context before the compaction.
func rpcStats(rt *app.Runtime) app.SessionStats {
	st := app.Stats(rt)
	if st.ContextUsage != nil && !usageSinceCompaction(rt.Session()) {
		st.ContextUsage.Tokens, st.ContextUsage.Percent = nil, nil
	}
	return st
}

// usageSinceCompaction reports whether the active branch has no
// compaction, or a successful assistant reply with usage after the latest
// one.
func usageSinceCompaction(s *session.Manager) bool {
	branch := s.Branch("")
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
