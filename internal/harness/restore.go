package harness

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// Restore rebuilds the core's state for a resumed (or re-branched) session
// from the branch's messages, in order, and the data of the latest
// CustomTypeConstraints custom entry on that branch (nil when there is none).
//
// The ledger and corrections come from that entry; without one they are
// re-extracted from the developer messages. Everything else is derived from
// the messages: the current request's evidence (changes and checks since the
// message that started it), the verification request already spent, the
// latest request's intent, operations waiting for approval and one-shot
// grants (recognised by the refusal texts in tool results). Context elision
// needs no state: it is a pure function of the messages. The change-size
// baseline is not rebuilt; it is measured again before the next change.
func (c *Core) Restore(msgs []llm.Message, ledgerData json.RawMessage) error {
	var snap *LedgerSnapshot
	if d := strings.TrimSpace(string(ledgerData)); d != "" && d != "null" {
		snap = &LedgerSnapshot{}
		if err := json.Unmarshal(ledgerData, snap); err != nil {
			return fmt.Errorf("restore harness ledger: %w", err)
		}
	}
	c.lock()
	defer c.unlock()
	c.resetLocked()
	if snap != nil {
		c.ledger.restore(snap.Constraints)
		corr := snap.Corrections
		if len(corr) > maxCorrections {
			corr = corr[len(corr)-maxCorrections:]
		}
		c.corrections = append([]Correction(nil), corr...)
	}
	calls := map[string]*llm.ToolCall{}
	var prev llm.Message
	for _, m := range msgs {
		switch m := m.(type) {
		case *llm.UserMessage:
			text := m.Content.PlainText()
			if isHarnessText(text) {
				if strings.HasPrefix(strings.TrimSpace(text), "[harness:evidence]") {
					c.evidence.gates++
				}
				break
			}
			_, midRun := prev.(*llm.ToolResultMessage)
			c.observeDeveloper(text, m.Timestamp, !midRun, snap == nil)
		case *llm.AssistantMessage:
			c.agentResponded = true
			for _, tc := range m.ToolCalls() {
				calls[tc.ID] = tc
			}
			if c.cfg.Evidence && m.StopReason == llm.StopStop && len(m.ToolCalls()) == 0 {
				c.evidence.assess(m.Text())
			}
		case *llm.ToolResultMessage:
			c.replayResult(m, calls[m.ToolCallID])
		default:
			continue // other roles neither start nor interrupt a run
		}
		prev = m
	}
	// Replayed decisions are history: no notices for them.
	c.queue = nil
	return nil
}

func (c *Core) replayResult(m *llm.ToolResultMessage, tc *llm.ToolCall) {
	if tc == nil {
		tc = &llm.ToolCall{ID: m.ToolCallID, Name: m.ToolName}
	}
	e := c.classify(tc)
	text := m.Content.PlainText()
	if m.IsError && (strings.HasPrefix(text, blockedPolicyPrefix) || strings.HasPrefix(text, blockedDeclinedPrefix)) {
		kind := BlockAuthorization
		switch {
		case text == scopeBlockReason:
			kind = BlockScope
			c.scopeWarned = true
		case strings.Contains(text, notAuthorizedMarker):
			if fp := Fingerprint(tc.Name, e); !contains(c.pending, fp) {
				c.pending = append(c.pending, fp)
			}
		}
		c.blocked = append(c.blocked, BlockedCall{ToolName: tc.Name, Kind: kind, Reason: text})
		if len(c.blocked) > maxBlockedKept {
			c.blocked = c.blocked[len(c.blocked)-maxBlockedKept:]
		}
		return
	}
	if e.Kind.NeedsAuthorization() {
		delete(c.grants, Fingerprint(tc.Name, e))
	}
	c.recordOutcome(e, m.IsError)
}

// resetLocked returns the core to its freshly created state.
func (c *Core) resetLocked() {
	c.ledger = constraintLedger{}
	c.corrections = nil
	c.latestRequest, c.questionOnly, c.scopeWarned, c.correcting = "", false, false, false
	c.pending = nil
	c.grants = map[string]bool{}
	c.blocked = nil
	c.agentResponded = false
	c.effects = map[string]Effect{}
	c.blockedIDs = map[string]bool{}
	c.evidence.begin(false)
	if c.slices != nil {
		c.slices.begin()
		c.slices.unavailable = false
	}
	c.lastStats = ContextStats{}
	c.skills = skillTracker{}
	c.lastUsage = nil
}
