package app

import (
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// TokenTotals sums usage over a session.
type TokenTotals struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
	Total      int `json:"total"`
}

// ContextUsage is how full the context window is.
type ContextUsage struct {
	Tokens        *int     `json:"tokens"`
	ContextWindow int      `json:"contextWindow"`
	Percent       *float64 `json:"percent"`
}

// SessionStats is the RPC get_session_stats shape.
type SessionStats struct {
	SessionFile       string        `json:"sessionFile,omitempty"`
	SessionID         string        `json:"sessionId"`
	UserMessages      int           `json:"userMessages"`
	AssistantMessages int           `json:"assistantMessages"`
	ToolCalls         int           `json:"toolCalls"`
	ToolResults       int           `json:"toolResults"`
	TotalMessages     int           `json:"totalMessages"`
	Tokens            TokenTotals   `json:"tokens"`
	Cost              float64       `json:"cost"`
	ContextUsage      *ContextUsage `json:"contextUsage,omitempty"`
}

// Stats counts messages and sums usage across every entry of r's session
// (all branches), including usage entries and summaries. It reads only
// the runtime's public state, so it is no method of the core.
func Stats(r *Runtime) SessionStats {
	s := r.Session()
	st := SessionStats{SessionFile: s.SessionFile(), SessionID: s.SessionID()}
	var total llm.Usage
	for _, e := range s.Entries() {
		switch e.Type {
		case "message":
			m, err := e.Message()
			if err != nil {
				continue
			}
			switch v := m.(type) {
			case *llm.UserMessage:
				st.UserMessages++
				st.TotalMessages++
			case *llm.AssistantMessage:
				st.AssistantMessages++
				st.TotalMessages++
				st.ToolCalls += len(v.ToolCalls())
				total.Add(v.Usage)
			case *llm.ToolResultMessage:
				st.ToolResults++
				st.TotalMessages++
				if v.Usage != nil {
					total.Add(*v.Usage)
				}
			case *llm.SystemMessage:
			default:
				st.TotalMessages++
			}
		case "usage":
			if u := e.Usage(); u != nil {
				total.Add(u.Usage)
			}
		case "compaction":
			if c := e.Compaction(); c != nil && c.Usage != nil {
				total.Add(*c.Usage)
			}
		case "branch_summary":
			if b := e.BranchSummary(); b != nil && b.Usage != nil {
				total.Add(*b.Usage)
			}
		}
	}
	st.Tokens = TokenTotals{Input: total.Input, Output: total.Output, CacheRead: total.CacheRead, CacheWrite: total.CacheWrite,
		Total: total.Input + total.Output + total.CacheRead + total.CacheWrite}
	st.Cost = total.Cost.Total
	if m := r.State().Model; m != nil && m.ContextWindow > 0 {
		cu := &ContextUsage{ContextWindow: m.ContextWindow}
		if tokens, ok := contextTokens(r.Session(), r.ContextMessages()); ok {
			pct := float64(tokens) * 100 / float64(m.ContextWindow)
			cu.Tokens, cu.Percent = &tokens, &pct
		}
		st.ContextUsage = cu
	}
	return st
}

// contextTokens is the §4.3 estimate of the current context; ok is false
// right after a compaction, before fresh usage arrives.
func contextTokens(s *session.Manager, msgs []llm.Message) (int, bool) {
	stale := usageStale(s)
	tokens := compaction.ContextTokens(msgs, stale)
	// After a compaction or context edit the figure is an estimate until a
	// reply reports real usage: shown as unknown, as the original does.
	return tokens, !stale
}

// usageStale reports whether a compaction or context edit on the branch
// is newer than the last assistant message with usage.
func usageStale(s *session.Manager) bool {
	branch := s.Branch("")
	for i := len(branch) - 1; i >= 0; i-- {
		e := branch[i]
		switch e.Type {
		case "compaction", "context_edit":
			return true
		case "message":
			if e.Role() == llm.RoleAssistant {
				m, err := e.Message()
				if err != nil {
					continue
				}
				a := m.(*llm.AssistantMessage)
				if a.StopReason != llm.StopError && a.StopReason != llm.StopAborted && compaction.UsageTokens(a.Usage) > 0 {
					return false
				}
			}
		}
	}
	return false
}

// State is the runtime's state, cheap to ask for at any moment (the
// RPC get_state shape, less messageCount, which costs a context build).
type State struct {
	Model                 *llm.Model        `json:"model,omitempty"`
	ThinkingLevel         llm.ThinkingLevel `json:"thinkingLevel"`
	IsStreaming           bool              `json:"isStreaming"`
	IsCompacting          bool              `json:"isCompacting"`
	SteeringMode          string            `json:"steeringMode"`
	FollowUpMode          string            `json:"followUpMode"`
	SessionFile           string            `json:"sessionFile,omitempty"`
	SessionID             string            `json:"sessionId"`
	SessionName           string            `json:"sessionName,omitempty"`
	AutoCompactionEnabled bool              `json:"autoCompactionEnabled"`
	PendingMessageCount   int               `json:"pendingMessageCount"`
}

// State reports the runtime state.
func (r *Runtime) State() State {
	s := r.Session()
	steer, follow := r.agent.Modes()
	qs, qf := r.agent.Queued()
	return State{
		Model: r.currentModel(), ThinkingLevel: r.thinkingLevel(), IsStreaming: r.isStreaming(), IsCompacting: r.isCompacting(),
		SteeringMode: steer, FollowUpMode: follow, SessionFile: s.SessionFile(), SessionID: s.SessionID(), SessionName: s.Name(),
		AutoCompactionEnabled: r.autoCompaction(), PendingMessageCount: len(qs) + len(qf),
	}
}
