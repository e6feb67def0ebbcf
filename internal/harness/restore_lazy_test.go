package harness

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// restoreFull is the straightforward Restore: every message replayed in
// full, every tool call classified. The lazy Restore must end in the same
// state.
func restoreFull(c *Core, msgs []llm.Message, ledgerData json.RawMessage) {
	var snap *LedgerSnapshot
	if len(ledgerData) > 0 {
		snap = &LedgerSnapshot{}
		if err := json.Unmarshal(ledgerData, snap); err != nil {
			panic(err)
		}
	}
	c.lock()
	defer c.unlock()
	c.resetLocked()
	if snap != nil {
		c.ledger.restore(snap.Constraints)
		c.corrections = append([]Correction(nil), snap.Corrections...)
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
			c.observeDeveloper(text, m.Timestamp, !midRun, snap == nil, true, nil)
		case *llm.AssistantMessage:
			c.agentResponded = true
			for _, tc := range m.ToolCalls() {
				calls[tc.ID] = tc
			}
			if c.cfg.Evidence && m.StopReason == llm.StopStop && len(m.ToolCalls()) == 0 {
				c.evidence.assess(m.Text())
			}
		case *llm.ToolResultMessage:
			tc := calls[m.ToolCallID]
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
				break
			}
			if e.Kind.NeedsAuthorization() {
				delete(c.grants, Fingerprint(tc.Name, e))
			}
			c.recordOutcome(e, m.IsError)
		default:
			continue
		}
		prev = m
	}
	c.queue = nil
}

// coreState is everything Restore sets, for comparison.
type coreState struct {
	Ledger         constraintLedger
	Corrections    []Correction
	LatestRequest  string
	QuestionOnly   bool
	ScopeWarned    bool
	Correcting     bool
	Pending        []string
	Grants         map[string]bool
	Blocked        []BlockedCall
	AgentResponded bool
	Evidence       evidenceLedger
	Skills         skillTracker
	LastUsage      []SkillUsage
}

func stateOf(c *Core) coreState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return coreState{c.ledger, c.corrections, c.latestRequest, c.questionOnly, c.scopeWarned, c.correcting,
		c.pending, c.grants, c.blocked, c.agentResponded, c.evidence, c.skills, c.lastUsage}
}

var (
	skillFixture = []SkillInfo{{Name: "pdf", BaseDir: "/home/u/.relay/skills/pdf", FilePath: "/home/u/.relay/skills/pdf/SKILL.md"}}
	devTexts     = []string{
		"Fix the parser. Never use panics.", "Why is the build slow?", "No, that's too complex. Simplify it.",
		"yes", "ok", "Delete the out directory please", "Push the branch.", "Não, simplifica.",
		"Always run go vet before committing.", "Can you add a test?", "go ahead but not with force",
		"Actually, revert that.", "Use slog instead of log for the new code.", "what does this do?",
	}
	harnessTexts = []string{"[harness:evidence] Completion check: ...", "[laya:plan] route", "[harness:context] note"}
	finalTexts   = []string{"Done.", "Done, tests pass.", "May I delete out/?", "All tests pass.", "I could not run the tests.", "Here is the answer."}
	callMakers   = []func(id string) *llm.ToolCall{
		func(id string) *llm.ToolCall { return toolCall(id, "read", map[string]any{"path": "pkg/a.go"}) },
		func(id string) *llm.ToolCall { return toolCall(id, "edit", map[string]any{"path": "pkg/a.go"}) },
		func(id string) *llm.ToolCall { return toolCall(id, "write", map[string]any{"path": "README.md"}) },
		func(id string) *llm.ToolCall {
			return toolCall(id, "read", map[string]any{"path": "/home/u/.relay/skills/pdf/SKILL.md"})
		},
		func(id string) *llm.ToolCall {
			return toolCall(id, "read", map[string]any{"path": `C:\Users\u\.relay\skills\pdf\ref.md`})
		},
		func(id string) *llm.ToolCall { return bashCall(id, "/home/u/.relay/skills/pdf/extract.sh in.pdf") },
		func(id string) *llm.ToolCall { return bashCall(id, "go test ./...") },
		func(id string) *llm.ToolCall { return bashCall(id, "go test ./... | tail") },
		func(id string) *llm.ToolCall { return bashCall(id, "rm -rf out") },
		func(id string) *llm.ToolCall { return bashCall(id, "git push --force") },
		func(id string) *llm.ToolCall { return bashCall(id, "git push") },
		func(id string) *llm.ToolCall { return toolCall(id, "mcp__x__y", map[string]any{"q": 1}) },
	}
)

// randomBranch is a plausible-looking branch: requests of tool turns with
// refusals, grants, steering and harness messages mixed in.
func randomBranch(r *rand.Rand, n int) []llm.Message {
	var msgs []llm.Message
	id := 0
	for len(msgs) < n {
		switch k := r.IntN(10); {
		case k < 2:
			msgs = append(msgs, user(devTexts[r.IntN(len(devTexts))]))
		case k < 3:
			msgs = append(msgs, user(harnessTexts[r.IntN(len(harnessTexts))]))
		case k < 4:
			msgs = append(msgs, final(finalTexts[r.IntN(len(finalTexts))]))
		default:
			id++
			tc := callMakers[r.IntN(len(callMakers))](fmt.Sprint(id))
			msgs = append(msgs, calling(tc))
			if r.IntN(8) == 0 {
				continue // a call without a result
			}
			e := Classify(tc.Name, tc.Arguments, nil)
			switch j := r.IntN(10); {
			case j == 0:
				msgs = append(msgs, result(tc, authorizationBlockReason(tc.Name, e), true))
			case j == 1:
				msgs = append(msgs, result(tc, scopeBlockReason, true))
			case j == 2:
				msgs = append(msgs, result(tc, declinedReason(e), true))
			case j < 5:
				msgs = append(msgs, result(tc, "exit status 1", true))
			default:
				msgs = append(msgs, result(tc, "output", false))
			}
		}
	}
	return msgs
}

func TestRestoreLazyMatchesFullReplay(t *testing.T) {
	ledger := json.RawMessage(`{"constraints":[{"id":"c4","text":"Keep it small","source":"api","timestamp":1}],"corrections":[{"text":"no","timestamp":2}]}`)
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 5 + r.IntN(120)
		if seed%10 == 0 {
			n = 400 + r.IntN(400) // enough developer messages for the parallel classification
		}
		msgs := randomBranch(r, n)
		for _, data := range []json.RawMessage{nil, ledger} {
			mod := func(cfg *Config) { cfg.SkillList = func() []SkillInfo { return skillFixture } }
			lazy, full := newCore(t, mod), newCore(t, mod)
			if err := lazy.Restore(msgs, data); err != nil {
				t.Fatal(err)
			}
			restoreFull(full, msgs, data)
			if a, b := stateOf(full), stateOf(lazy); !reflect.DeepEqual(a, b) {
				t.Fatalf("seed %d (ledger %v): lazy restore differs\nfull: %+v\nlazy: %+v", seed, data != nil, a, b)
			}
			if a, b := full.State(msgs), lazy.State(msgs); a != b {
				t.Fatalf("seed %d: state text differs:\n%s\n---\n%s", seed, a, b)
			}
		}
	}
}

// Restore classifies the calls of the current request, not those of the
// requests before it (a long session has thousands).
func TestRestoreClassifiesOnlyTheCurrentRequest(t *testing.T) {
	var msgs []llm.Message
	for i := range 200 {
		msgs = append(msgs, user(fmt.Sprintf("Fix bug %d.", i)))
		for j := range 5 {
			tc := bashCall(fmt.Sprintf("%d-%d", i, j), "go test ./...")
			msgs = append(msgs, calling(tc), result(tc, "ok", false))
		}
		msgs = append(msgs, final("Fixed."))
	}
	classified := 0
	c := newCore(t, func(cfg *Config) {
		cfg.ClassifyTool = func(string, json.RawMessage) (Effect, bool) { classified++; return Effect{}, false }
	})
	if err := c.Restore(msgs, nil); err != nil {
		t.Fatal(err)
	}
	if classified != 5 {
		t.Fatalf("%d calls classified, want the current request's 5", classified)
	}
	if n := c.Status().Evidence.Checks; len(n) != 5 {
		t.Fatalf("checks of the current request: %d, want 5", len(n))
	}
}

func BenchmarkRestore(b *testing.B) {
	var msgs []llm.Message
	prose := strings.Repeat("The storage layer keeps pages in a log; compaction rewrites them. ", 30)
	for i := range 2000 {
		msgs = append(msgs, user(fmt.Sprintf("Step %d. %s", i, prose)))
		for j := range 3 {
			tc := bashCall(fmt.Sprintf("%d-%d", i, j), "cd pkg && go test ./... -run TestStorage 2>&1 | tail -50")
			msgs = append(msgs, calling(tc), result(tc, prose, false))
		}
		msgs = append(msgs, final("Done, tests pass."))
	}
	c := New(DefaultConfig())
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Restore(msgs, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// A request of hundreds of tool turns (a long autonomous run) is replayed
// in full, its calls classified ahead in parallel: the state must be the
// sequential replay's.
func TestRestoreLongRunMatchesFullReplay(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 11))
		msgs := []llm.Message{user("Fix the failing tests, then commit.")}
		for id := range 200 + r.IntN(200) {
			tc := callMakers[r.IntN(len(callMakers))](fmt.Sprint(id))
			msgs = append(msgs, calling(tc))
			if r.IntN(4) == 0 {
				msgs = append(msgs, result(tc, "exit status 1", true))
			} else {
				msgs = append(msgs, result(tc, "output", false))
			}
		}
		msgs = append(msgs, final("Done: all tests pass."))
		lazy, full := newCore(t, nil), newCore(t, nil)
		if err := lazy.Restore(msgs, nil); err != nil {
			t.Fatal(err)
		}
		restoreFull(full, msgs, nil)
		if a, b := stateOf(full), stateOf(lazy); !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: restore differs\nfull: %+v\nlazy: %+v", seed, a, b)
		}
		if a, b := full.State(msgs), lazy.State(msgs); a != b {
			t.Fatalf("seed %d: state text differs:\n%s\n---\n%s", seed, a, b)
		}
	}
}
