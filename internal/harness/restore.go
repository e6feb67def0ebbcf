package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

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
	r := replay{c: c, calls: map[string]*llm.ToolCall{}, start: currentRequestStart(msgs)}
	r.pre = c.classifyCalls(msgs, r.start)
	if c.cfg.Skills && c.cfg.SkillList != nil {
		r.skills = c.cfg.SkillList()
	}
	var pre []developerClass
	if snap == nil && c.cfg.Alignment {
		pre = classifyDevelopers(msgs)
	}
	var prev llm.Message
	for i, m := range msgs {
		current := i >= r.start
		switch m := m.(type) {
		case *llm.UserMessage:
			text := m.Content.PlainText()
			if isHarnessText(text) {
				if current && strings.HasPrefix(strings.TrimSpace(text), "[harness:evidence]") {
					c.evidence.gates++
				}
				break
			}
			_, midRun := prev.(*llm.ToolResultMessage)
			var p *developerClass
			if pre != nil {
				p = &pre[i]
			}
			c.observeDeveloper(text, m.Timestamp, !midRun, snap == nil, current, p)
		case *llm.AssistantMessage:
			c.agentResponded = true
			for _, tc := range m.ToolCalls() {
				r.calls[tc.ID] = tc
			}
			if current && c.cfg.Evidence && m.StopReason == llm.StopStop && len(m.ToolCalls()) == 0 {
				c.evidence.assess(m.Text())
			}
		case *llm.ToolResultMessage:
			r.result(m, current)
		default:
			continue // other roles neither start nor interrupt a run
		}
		prev = m
	}
	// Replayed decisions are history: no notices for them.
	c.queue = nil
	return nil
}

// currentRequestStart is the index of the developer message that started
// the branch's latest request (a user message that is not harness text and
// does not follow a tool result), or -1. Everything Restore derives per
// request is reset there, so only what follows it is derived in full.
func currentRequestStart(msgs []llm.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		u, ok := msgs[i].(*llm.UserMessage)
		if !ok || isHarnessText(u.Content.PlainText()) {
			continue
		}
		j := i - 1
		for j >= 0 && !countsAsPrev(msgs[j]) {
			j--
		}
		if j < 0 {
			return i
		}
		if _, midRun := msgs[j].(*llm.ToolResultMessage); !midRun {
			return i
		}
	}
	return -1
}

// countsAsPrev reports whether Restore's run tracking sees m (other roles
// neither start nor interrupt a run).
func countsAsPrev(m llm.Message) bool {
	switch m.(type) {
	case *llm.UserMessage, *llm.AssistantMessage, *llm.ToolResultMessage:
		return true
	}
	return false
}

// replay is the state of one Restore pass.
type replay struct {
	c      *Core
	calls  map[string]*llm.ToolCall
	start  int
	skills []SkillInfo
	pre    map[*llm.ToolCall]Effect // default-rule effects computed ahead
}

// result replays one tool result. Calls are classified only when something
// depends on the effect: a call of the current request (evidence, skills),
// a refusal (pending fingerprint), an outstanding one-shot grant, or a call
// that may touch a skill's files. Other calls of earlier requests, the
// bulk of a long session, are not classified at all.
func (r *replay) result(m *llm.ToolResultMessage, current bool) {
	c := r.c
	tc := r.calls[m.ToolCallID]
	if tc == nil {
		tc = &llm.ToolCall{ID: m.ToolCallID, Name: m.ToolName}
	}
	var e Effect
	classified := false
	effect := func() Effect {
		if !classified {
			if pe, ok := r.pre[tc]; ok {
				e = pe
			} else {
				e = c.classify(tc)
			}
			classified = true
		}
		return e
	}
	if m.IsError {
		if text := m.Content.PlainText(); strings.HasPrefix(text, blockedPolicyPrefix) || strings.HasPrefix(text, blockedDeclinedPrefix) {
			kind := BlockAuthorization
			switch {
			case text == scopeBlockReason:
				kind = BlockScope
				c.scopeWarned = true
			case strings.Contains(text, notAuthorizedMarker):
				if fp := Fingerprint(tc.Name, effect()); !contains(c.pending, fp) {
					c.pending = append(c.pending, fp)
				}
			}
			c.blocked = append(c.blocked, BlockedCall{ToolName: tc.Name, Kind: kind, Reason: text})
			if len(c.blocked) > maxBlockedKept {
				c.blocked = c.blocked[len(c.blocked)-maxBlockedKept:]
			}
			return
		}
	}
	if len(c.grants) > 0 && effect().Kind.NeedsAuthorization() {
		delete(c.grants, Fingerprint(tc.Name, e))
	}
	switch {
	case current:
		c.recordOutcome(effect(), m.IsError)
	case len(r.skills) == 0:
		// No skill, no skill event: an earlier request's report is empty.
	case !c.mayTouchSkill(tc, r.skills):
		// An earlier request's skill report needs the step, not the effect.
		c.skills.recordStep(c.isAction(tc, effect), m.IsError)
	default:
		c.skills.record(r.skills, effect(), m.IsError)
	}
}

// isAction is Effect.Kind != read (the skill tracker's "action"), from the
// tool name alone when the name rules decide the kind: shell commands are
// never read.
func (c *Core) isAction(tc *llm.ToolCall, effect func() Effect) bool {
	if c.cfg.ClassifyTool != nil {
		return effect().Kind != EffectRead
	}
	return !readTools[strings.ToLower(tc.Name)]
}

// mayTouchSkill reports whether classifying tc could yield a path or
// command token inside one of skills' directories: the raw arguments must
// then contain the directory's last element (JSON escapes and custom
// classifiers are assumed to touch).
func (c *Core) mayTouchSkill(tc *llm.ToolCall, skills []SkillInfo) bool {
	args := tc.Arguments
	if c.cfg.ClassifyTool != nil || bytes.IndexByte(args, '\\') >= 0 || !utf8.Valid(args) {
		return true
	}
	lower := bytes.ToLower(args)
	for _, s := range skills {
		base := strings.ToLower(normalizeSlash(s.BaseDir))
		leaf := base[strings.LastIndexByte(base, '/')+1:]
		if leaf == "" || bytes.Contains(lower, []byte(leaf)) {
			return true
		}
	}
	return false
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

// developerClass is what the ledger needs from one developer message.
type developerClass struct {
	constraints []string
	correction  bool
	done        bool
}

func (d *developerClass) constraintsOf(text string) []string {
	if d != nil && d.done {
		return d.constraints
	}
	return ExtractConstraints(text)
}

func (d *developerClass) correctionOf(text string) bool {
	if d != nil && d.done {
		return d.correction
	}
	return IsCorrection(text)
}

// classifyDevelopers runs the text classifiers over every developer
// message of msgs on all cores: they are pure, and on a never-compacted
// session without a ledger snapshot they are most of the resume time. The
// ledger is then folded in order by Restore, so the result is the same as
// a sequential pass.
func classifyDevelopers(msgs []llm.Message) []developerClass {
	var idx []int
	for i, m := range msgs {
		if u, ok := m.(*llm.UserMessage); ok && !isHarnessText(u.Content.PlainText()) {
			idx = append(idx, i)
		}
	}
	if len(idx) < parallelMin {
		return nil // not worth the goroutines: observeDeveloper classifies inline
	}
	out := make([]developerClass, len(msgs))
	parallelEach(len(idx), func(k int) {
		text := msgs[idx[k]].(*llm.UserMessage).Content.PlainText()
		out[idx[k]] = developerClass{constraints: ExtractConstraints(text), correction: IsCorrection(text), done: true}
	})
	return out
}

// classifyCalls applies the default rules to the tool calls from msgs[start:]
// on all cores (a request of thousands of tool turns is replayed in full).
// Only without a custom classifier, which need not be safe for concurrent use.
func (c *Core) classifyCalls(msgs []llm.Message, start int) map[*llm.ToolCall]Effect {
	if c.cfg.ClassifyTool != nil {
		return nil
	}
	var calls []*llm.ToolCall
	for _, m := range msgs[max(start, 0):] { // -1: no developer message, all is current
		if a, ok := m.(*llm.AssistantMessage); ok {
			calls = append(calls, a.ToolCalls()...)
		}
	}
	if len(calls) < parallelMin {
		return nil
	}
	effects := make([]Effect, len(calls))
	parallelEach(len(calls), func(k int) {
		effects[k] = Classify(calls[k].Name, calls[k].Arguments, c.cfg.VerifyCommands)
	})
	out := make(map[*llm.ToolCall]Effect, len(calls))
	for k, tc := range calls {
		out[tc] = effects[k]
	}
	return out
}

// parallelMin is the work below which goroutines cost more than they save.
const parallelMin = 64

// parallelEach calls f(0..n-1) over GOMAXPROCS goroutines.
func parallelEach(n int, f func(k int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers < 2 {
		for k := range n {
			f(k)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Go(func() {
			for k := lo; k < hi; k++ {
				f(k)
			}
		})
	}
	wg.Wait()
}
