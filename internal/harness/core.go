package harness

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// CustomTypeConstraints is the customType of the session custom entry that
// persists the constraint ledger and corrections (data: LedgerSnapshot).
// The latest such entry on the branch is the current ledger.
const CustomTypeConstraints = "harness-core:constraints"

// LedgerSnapshot is the data of a CustomTypeConstraints entry.
type LedgerSnapshot struct {
	Constraints []Constraint `json:"constraints"`
	Corrections []Correction `json:"corrections"`
}

// Config selects the pillars and their parameters: the harnessCore.*
// settings plus the runtime's wiring.
type Config struct {
	// Alignment enables the constraint ledger and corrections, and is
	// required by AuthorizationGate and ScopeGuard.
	Alignment         bool
	AuthorizationGate bool
	ScopeGuard        bool
	Evidence          bool
	Context           bool
	Skills            bool
	// ContextKeepRecent newest tool results are always sent verbatim (min 1).
	ContextKeepRecent int
	// ContextBatchSize aged-out large results trigger one elision batch (min 1).
	ContextBatchSize int
	// VerifyCommands, when non-empty, are the only commands that count as checks.
	VerifyCommands []string
	// MaxChangedLines per request before the slice reminder (0 off; needs
	// git; needs Evidence).
	MaxChangedLines int
	// MaxFileLines before file growth is flagged (0 off; needs Evidence).
	MaxFileLines int
	// Cwd is the workspace root for the default git probe.
	Cwd string

	// ClassifyTool classifies tools the name rules do not know (MCP tools,
	// extensions); ok=false falls back to Classify. nil means Classify only.
	ClassifyTool func(toolName string, args json.RawMessage) (e Effect, ok bool)
	// Probe measures the workspace; nil means GitProbe(Cwd).
	Probe WorkspaceProbe
	// SkillList returns the loaded skills; nil means none.
	SkillList func() []SkillInfo
	// OnLedgerChange is called after constraints or corrections change, with
	// the data to append as a CustomTypeConstraints custom entry.
	OnLedgerChange func(LedgerSnapshot)
	// OnEvent observes pillar decisions (for UI notices and logs).
	OnEvent func(Event)
	// Now is the clock for timestamps; nil means time.Now.
	Now func() time.Time
}

// DefaultConfig returns the documented harnessCore defaults.
func DefaultConfig() Config {
	return Config{
		Alignment: true, AuthorizationGate: true, ScopeGuard: true, Evidence: true, Context: true, Skills: true,
		ContextKeepRecent: 6, ContextBatchSize: 6, MaxChangedLines: 500, MaxFileLines: 1000,
	}
}

// Event types.
const (
	EventToolBlocked        = "tool_blocked"
	EventToolAuthorized     = "tool_authorized"
	EventCompletionAssessed = "completion_assessed"
	EventContextElided      = "context_elided"
)

// Event reports a pillar decision.
type Event struct {
	Type     string `json:"type"`
	ToolName string `json:"toolName,omitempty"`
	Effect   Effect `json:"effect"`
	// Kind of a block: BlockAuthorization or BlockScope.
	Kind   string `json:"kind,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Via of an authorization: ViaRequest, ViaGrant or ViaAuthorizer.
	Via    string            `json:"via,omitempty"`
	Report *CompletionReport `json:"report,omitempty"`
	Stats  ContextStats      `json:"stats"`
}

// Approver asks the developer to allow an operation (TUI confirm dialog,
// RPC extension-UI confirm). A nil Approver means nobody can be asked
// (print and JSON modes). An error counts as "could not ask".
type Approver interface {
	Confirm(ctx context.Context, title, message string) (bool, error)
}

// Decision is the outcome of BeforeToolCall.
type Decision struct {
	// Block: do not run the call; Reason is the tool result text (isError)
	// the model sees.
	Block  bool
	Reason string
	// Kind of block: BlockAuthorization or BlockScope.
	Kind string
	// Via is set when a gated call was allowed.
	Via    string
	Effect Effect
}

// BlockedCall is a recent call the alignment policy blocked.
type BlockedCall struct {
	ToolName string `json:"toolName"`
	Kind     string `json:"kind"`
	Reason   string `json:"reason"`
}

const maxBlockedKept = 20

// Core is the harness core of one session. Its methods are synchronous
// hooks, safe for concurrent use.
type Core struct {
	cfg Config

	mu    sync.Mutex
	queue []func() // callbacks run after mu is released

	// alignment
	ledger         constraintLedger
	corrections    []Correction
	latestRequest  string
	questionOnly   bool
	scopeWarned    bool
	correcting     bool
	pending        []string
	grants         map[string]bool
	blocked        []BlockedCall
	agentResponded bool

	// per call: the effect classified before it ran; blocked calls
	effects    map[string]Effect
	blockedIDs map[string]bool

	evidence evidenceLedger
	slices   *sliceState

	lastStats ContextStats
	memo      requestMemo

	skills    skillTracker
	lastUsage []SkillUsage
}

// New returns a core for cfg. Settings changes apply to cores created
// afterwards.
func New(cfg Config) *Core {
	if !cfg.Alignment {
		cfg.AuthorizationGate, cfg.ScopeGuard = false, false
	}
	cfg.ContextKeepRecent = max(1, cfg.ContextKeepRecent)
	cfg.ContextBatchSize = max(1, cfg.ContextBatchSize)
	cfg.MaxChangedLines = max(0, cfg.MaxChangedLines)
	cfg.MaxFileLines = max(0, cfg.MaxFileLines)
	cfg.VerifyCommands = append([]string(nil), cfg.VerifyCommands...)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &Core{cfg: cfg, grants: map[string]bool{}, effects: map[string]Effect{}, blockedIDs: map[string]bool{}}
	c.memo.classifyFn = c.classify
	c.memo.customClassifier = cfg.ClassifyTool != nil
	c.evidence.begin(false)
	if cfg.Evidence && (cfg.MaxChangedLines > 0 || cfg.MaxFileLines > 0) {
		probe := cfg.Probe
		if probe == nil {
			probe = GitProbe(cfg.Cwd)
		}
		c.slices = &sliceState{probe: probe, maxChanged: cfg.MaxChangedLines, maxFile: cfg.MaxFileLines}
	}
	return c
}

// classify applies Config.ClassifyTool, then the default rules.
func (c *Core) classify(tc *llm.ToolCall) Effect {
	if c.cfg.ClassifyTool != nil {
		if e, ok := c.cfg.ClassifyTool(tc.Name, tc.Arguments); ok {
			return e
		}
	}
	return Classify(tc.Name, tc.Arguments, c.cfg.VerifyCommands)
}

func (c *Core) lock() { c.mu.Lock() }

func (c *Core) unlock() {
	q := c.queue
	c.queue = nil
	c.mu.Unlock()
	for _, f := range q {
		f()
	}
}

func (c *Core) emit(e Event) {
	if c.cfg.OnEvent != nil {
		c.queue = append(c.queue, func() { c.cfg.OnEvent(e) })
	}
}

func (c *Core) ledgerChanged() {
	if c.cfg.OnLedgerChange != nil {
		snap := c.snapshot()
		c.queue = append(c.queue, func() { c.cfg.OnLedgerChange(snap) })
	}
}

func (c *Core) snapshot() LedgerSnapshot {
	return LedgerSnapshot{
		Constraints: append([]Constraint{}, c.ledger.items...),
		Corrections: append([]Correction{}, c.corrections...),
	}
}

// PromptGuidelines are the pair-programming rules for the system prompt's
// rules section (plain sentences, no bullet); nil when alignment is off.
func (c *Core) PromptGuidelines() []string {
	if !c.cfg.Alignment {
		return nil
	}
	return append([]string(nil), PairProgrammingGuidelines...)
}

// SystemPromptRules is PromptGuidelines as "- " bullet lines, or "".
func (c *Core) SystemPromptRules() string {
	g := c.PromptGuidelines()
	if len(g) == 0 {
		return ""
	}
	return "- " + strings.Join(g, "\n- ")
}

// OnUserMessage observes a user-role message as it is appended. newRequest
// is true for the message that starts a run (a prompt), false for steering
// and follow-up messages delivered while it runs. Messages written by the
// harness ("[harness...") are ignored, so every user message may be passed.
func (c *Core) OnUserMessage(text string, newRequest bool) {
	if isHarnessText(text) {
		return
	}
	c.lock()
	defer c.unlock()
	c.observeDeveloper(text, c.cfg.Now().UnixMilli(), newRequest, true, true, nil)
}

// observeDeveloper applies a developer message. current is false only while
// Restore replays a message of an earlier request: the request intent
// (latest request, question-only, correction, evidence's action flag), which
// the current request's messages overwrite, is then not derived.
// pre, when not nil, holds ExtractConstraints and IsCorrection of text,
// computed ahead (in parallel) by Restore.
func (c *Core) observeDeveloper(text string, ts int64, newRequest, extract, current bool, pre *developerClass) {
	if newRequest {
		if usage := c.skills.report(); len(usage) > 0 {
			c.lastUsage = usage
		}
		c.skills = skillTracker{}
		c.evidence.begin(current && RequestsAction(text))
		if c.slices != nil {
			c.slices.begin()
		}
		clear(c.effects)
		clear(c.blockedIDs)
	}
	if !c.cfg.Alignment {
		return
	}
	changed := false
	if extract {
		found := pre.constraintsOf(text)
		for _, s := range found {
			changed = c.ledger.insert(s, "message", ts) || changed
		}
	}
	c.scopeWarned = false
	if current {
		c.latestRequest = developerProse(text)
		c.questionOnly = IsQuestionOnly(text)
	}
	if current || extract {
		c.correcting = c.agentResponded && pre.correctionOf(text)
	}
	if c.correcting && extract {
		c.corrections = append(c.corrections, Correction{Text: clip(developerProse(text), maxLedgerText), Timestamp: ts})
		if len(c.corrections) > maxCorrections {
			c.corrections = append([]Correction(nil), c.corrections[len(c.corrections)-maxCorrections:]...)
		}
		changed = true
	}
	if len(c.pending) > 0 && isApproval(text) {
		for _, p := range c.pending {
			c.grants[p] = true
		}
	}
	c.pending = nil
	if changed {
		c.ledgerChanged()
	}
}

// BeforeToolCall runs the authorization gate and the scope guard for a
// validated tool call, before it executes. It may block on approver.
// A blocked call must not run; its result is Reason with isError true.
func (c *Core) BeforeToolCall(ctx context.Context, call *llm.ToolCall, approver Approver) Decision {
	effect := c.classify(call)
	d := Decision{Effect: effect}
	c.lock()
	c.effects[call.ID] = effect
	switch {
	case c.cfg.AuthorizationGate && effect.Kind.NeedsAuthorization():
		fp := Fingerprint(call.Name, effect)
		if c.grants[fp] {
			delete(c.grants, fp)
			d.Via = ViaGrant
			break
		}
		if authorizedByRequest(effect, c.latestRequest) {
			d.Via = ViaRequest
			break
		}
		if approver != nil {
			c.unlock()
			ok, err := approver.Confirm(ctx, "Allow "+string(effect.Kind)+" operation?",
				reasonOrTool(effect, call.Name)+"\n\n"+commandOr(effect, fp))
			c.lock()
			if err == nil && ok {
				d.Via = ViaAuthorizer
				break
			}
			if err == nil {
				d.Block, d.Kind, d.Reason = true, BlockAuthorization, declinedReason(effect)
				break
			}
		}
		if !contains(c.pending, fp) {
			c.pending = append(c.pending, fp)
		}
		d.Block, d.Kind, d.Reason = true, BlockAuthorization, authorizationBlockReason(call.Name, effect)
	case c.cfg.ScopeGuard && c.questionOnly && !c.scopeWarned && effect.Kind == EffectWrite:
		c.scopeWarned = true
		d.Block, d.Kind, d.Reason = true, BlockScope, scopeBlockReason
	}
	if d.Block {
		c.blockedIDs[call.ID] = true
		c.blocked = append(c.blocked, BlockedCall{ToolName: call.Name, Kind: d.Kind, Reason: d.Reason})
		if len(c.blocked) > maxBlockedKept {
			c.blocked = c.blocked[len(c.blocked)-maxBlockedKept:]
		}
		c.emit(Event{Type: EventToolBlocked, ToolName: call.Name, Effect: effect, Kind: d.Kind, Reason: d.Reason})
	} else {
		if d.Via != "" {
			c.emit(Event{Type: EventToolAuthorized, ToolName: call.Name, Effect: effect, Via: d.Via})
		}
		c.beforeChange(ctx, call.ID, effect)
	}
	c.unlock()
	return d
}

func reasonOrTool(e Effect, tool string) string {
	if e.Reason != "" {
		return e.Reason
	}
	return tool
}

func commandOr(e Effect, fp string) string {
	if e.Command != "" {
		return e.Command
	}
	return fp
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// beforeChange takes the request's change-size baseline before its first
// non-read call and the sizes of the files a write will touch.
func (c *Core) beforeChange(ctx context.Context, id string, e Effect) {
	s := c.slices
	if s == nil || e.Kind == EffectRead {
		return
	}
	if s.maxChanged > 0 && !s.unavailable && !s.baselineTaken {
		s.baselineTaken = true
		// An aborted run must not turn the signal off for the session.
		base, ok := s.probe.ChangedLines(context.WithoutCancel(ctx))
		if ok {
			s.baseline = base
		} else {
			s.unavailable = true
		}
	}
	if s.maxFile > 0 && e.Kind == EffectWrite {
		for _, p := range e.Paths {
			n, ok := s.probe.FileLines(p)
			if s.before == nil {
				s.before = map[string]fileBefore{}
			}
			s.before[id+"\x00"+p] = fileBefore{n, ok}
		}
	}
}

// AfterToolCall records the outcome of an executed tool call: changes,
// checks and their exit status, skill resource use, file sizes. Calls that
// BeforeToolCall blocked are ignored, so the caller may pass every result.
func (c *Core) AfterToolCall(call *llm.ToolCall, result *llm.ToolResultMessage) {
	if call == nil || result == nil {
		return
	}
	c.lock()
	defer c.unlock()
	if c.blockedIDs[call.ID] {
		delete(c.blockedIDs, call.ID)
		delete(c.effects, call.ID)
		return
	}
	e, ok := c.effects[call.ID]
	if !ok {
		e = c.classify(call)
	}
	delete(c.effects, call.ID)
	c.recordOutcome(e, result.IsError)
	c.afterChange(call.ID, e, result.IsError)
}

func (c *Core) recordOutcome(e Effect, isError bool) {
	c.evidence.record(e, isError)
	if c.cfg.Skills && c.cfg.SkillList != nil {
		c.skills.record(c.cfg.SkillList(), e, isError)
	}
}

func (c *Core) afterChange(id string, e Effect, isError bool) {
	s := c.slices
	if s == nil || e.Kind == EffectRead {
		return
	}
	if s.baseline != nil && !s.unavailable && s.maxChanged > 0 {
		s.generation++
		gen, done := s.generation, make(chan struct{})
		s.measuring = done
		go func() {
			defer close(done)
			ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
			defer cancel()
			cur, ok := s.probe.ChangedLines(ctx)
			c.mu.Lock()
			defer c.mu.Unlock()
			if ok && gen == s.generation && s.baseline != nil {
				s.changedLines, s.files = s.delta(cur)
			}
		}()
	}
	if e.Kind != EffectWrite {
		return
	}
	for _, p := range e.Paths {
		key := id + "\x00" + p
		before := s.before[key]
		delete(s.before, key)
		if isError || s.maxFile <= 0 {
			continue
		}
		n, ok := s.probe.FileLines(p)
		if !ok {
			n = 0
		}
		s.fileGrew(p, before, n)
	}
}

// waitMeasure waits for the change-size measurement started by the latest
// tool call, so the next request sees fresh numbers.
func (c *Core) waitMeasure() {
	c.mu.Lock()
	var ch chan struct{}
	if c.slices != nil {
		ch = c.slices.measuring
	}
	c.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

// NoteResponse records that the agent answered. The settle point sees
// only a turn without tool calls; a run can end in a failure after tool
// turns, which still count.
func (c *Core) NoteResponse(msg *llm.AssistantMessage) {
	if msg == nil || msg.StopReason == llm.StopError || msg.StopReason == llm.StopAborted {
		return
	}
	c.lock()
	defer c.unlock()
	c.agentResponded = true
}

// OnAssistantEnd assesses a finished assistant message. For a final message
// (stop reason stop, no tool calls) that claims completion without evidence,
// it returns, at most once per request, the "[harness:evidence]" request to
// send back as a steering user message, instead of ending the run.
func (c *Core) OnAssistantEnd(msg *llm.AssistantMessage) (followUp string, ok bool) {
	if msg == nil {
		return "", false
	}
	c.lock()
	defer c.unlock()
	c.agentResponded = true
	if !c.cfg.Evidence || msg.StopReason != llm.StopStop || len(msg.ToolCalls()) > 0 {
		return "", false
	}
	r := c.evidence.assess(msg.Text())
	gated := c.evidence.gate(r)
	rc := *r
	c.emit(Event{Type: EventCompletionAssessed, Report: &rc})
	if !gated {
		return "", false
	}
	return VerificationRequest(r, c.cfg.VerifyCommands), true
}

// PrepareRequest projects the messages of one provider request: old large
// tool results become stubs (in batches, for prompt-cache stability) and
// the harness state (correction reminder, constraints, pending changes,
// slice reminders, progress digest) is appended as a <harness_state> text
// block to the last message when it is a user or tool-result message. The
// input slice and its messages are never modified; the session keeps them
// whole.
func (c *Core) PrepareRequest(msgs []llm.Message) []llm.Message {
	c.waitMeasure()
	var el elision
	if c.cfg.Context {
		el = elide(msgs, c.cfg.ContextKeepRecent, c.cfg.ContextBatchSize, &c.memo)
	}
	out := el.apply(msgs)
	copied := len(el.stubs) > 0
	c.lock()
	defer c.unlock()
	if c.cfg.Context {
		if el.stats != c.lastStats && el.stats.ElidedResults != c.lastStats.ElidedResults {
			c.emit(Event{Type: EventContextElided, Stats: el.stats})
		}
		c.lastStats = el.stats
	}
	return appendState(out, c.renderState(el), copied)
}

// State returns the harness state text PrepareRequest would append for msgs
// ("" when there is nothing to restate).
func (c *Core) State(msgs []llm.Message) string {
	var el elision
	if c.cfg.Context {
		el = elide(msgs, c.cfg.ContextKeepRecent, c.cfg.ContextBatchSize, &c.memo)
	}
	c.lock()
	defer c.unlock()
	return c.renderState(el)
}

func (c *Core) renderState(el elision) string {
	var sections []string
	if c.cfg.Alignment {
		if c.correcting {
			sections = append(sections, correctionReminder)
		}
		if s := c.ledger.render(); s != "" {
			sections = append(sections, s)
		}
	}
	if c.cfg.Evidence {
		if p := c.evidence.pending(); len(p) > 0 {
			shown, more := p, ""
			if len(shown) > 8 {
				shown, more = shown[:8], ", ..."
			}
			sections = append(sections, "Changed since the last passing check: "+strings.Join(shown, ", ")+more+". Verify before reporting completion.")
		}
		if c.slices != nil {
			if s := c.slices.render(); s != "" {
				sections = append(sections, s)
			}
		}
	}
	if d := el.renderDigest(); d != "" {
		sections = append(sections, d)
	}
	if len(sections) == 0 {
		return ""
	}
	return "Generated by the harness, not written by the developer.\n\n" + strings.Join(sections, "\n\n")
}
