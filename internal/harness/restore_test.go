package harness

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/relay-agent/relay/internal/llm"
)

// replay drives a live core through msgs the way the agent loop would and
// returns it; the same msgs then feed Restore on a fresh core.
func TestRestoreMatchesLiveState(t *testing.T) {
	var snaps []LedgerSnapshot
	live := newCore(t, func(cfg *Config) { cfg.OnLedgerChange = func(s LedgerSnapshot) { snaps = append(snaps, s) } })

	var msgs []llm.Message
	say := func(text string, newRequest bool) {
		msgs = append(msgs, user(text))
		live.OnUserMessage(text, newRequest)
	}
	do := func(call *llm.ToolCall) {
		msgs = append(msgs, calling(call))
		d := live.BeforeToolCall(t.Context(), call, nil)
		text, isErr := "output", false
		if d.Block {
			text, isErr = d.Reason, true
		}
		r := result(call, text, isErr)
		live.AfterToolCall(call, r)
		msgs = append(msgs, r)
	}
	end := func(text string) string {
		m := final(text)
		msgs = append(msgs, m)
		follow, _ := live.OnAssistantEnd(m)
		return follow
	}

	say("Fix the parser. Never use panics.", true)
	do(toolCall("1", "edit", map[string]any{"path": "parser.go"}))
	if f := end("Done."); f == "" {
		t.Fatal("expected a verification request")
	} else {
		say(f, false)
	}
	do(bashCall("2", "go test ./... | tail"))
	end("Done, tests pass.")
	say("No, that's too complex. Also clean the build dir.", true)
	do(bashCall("3", "rm -rf out"))
	end("May I delete out/?")

	ledger, _ := json.Marshal(snaps[len(snaps)-1])
	restored := newCore(t, nil)
	if err := restored.Restore(msgs, ledger); err != nil {
		t.Fatal(err)
	}
	a, b := live.Status(), restored.Status()
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("restored status differs (-live +restored):\n%s", diff)
	}
	if restored.State(msgs) != live.State(msgs) {
		t.Fatalf("state differs:\n%s\n---\n%s", live.State(msgs), restored.State(msgs))
	}

	// The pending operation survives: "yes" grants it once in both.
	for _, c := range []*Core{live, restored} {
		c.OnUserMessage("yes", true)
		if d := c.BeforeToolCall(t.Context(), bashCall("4", "rm -rf out"), nil); d.Block || d.Via != ViaGrant {
			t.Fatalf("after yes: %+v", d)
		}
	}
}

func TestRestoreWithoutLedgerEntry(t *testing.T) {
	msgs := []llm.Message{
		user("Nunca use panics. Corrija o parser."),
		final("Corrigido."),
		user("Não, simplifica."),
	}
	c := newCore(t, nil)
	if err := c.Restore(msgs, nil); err != nil {
		t.Fatal(err)
	}
	st := c.Status().Alignment
	if len(st.Constraints) != 1 || st.Constraints[0].Text != "Nunca use panics." || len(st.Corrections) != 1 {
		t.Fatalf("alignment %+v", st)
	}
	if err := c.Restore(msgs, json.RawMessage(`{"constraints":[{"id":"c7","text":"Keep it small","source":"api","timestamp":1}]}`)); err != nil {
		t.Fatal(err)
	}
	st = c.Status().Alignment
	if len(st.Constraints) != 1 || st.Constraints[0].ID != "c7" || len(st.Corrections) != 0 {
		t.Fatalf("ledger entry wins: %+v", st)
	}
	if err := c.Restore(msgs, json.RawMessage(`{`)); err == nil {
		t.Fatal("bad ledger data accepted")
	}
}

func TestRestoreScopeAndGrantConsumed(t *testing.T) {
	edit := toolCall("1", "edit", map[string]any{"path": "a.go"})
	rm1, rm2 := bashCall("2", "rm -rf x"), bashCall("3", "rm -rf x")
	msgs := []llm.Message{
		user("Why is a.go slow?"),
		calling(edit), result(edit, scopeBlockReason, true),
		final("Because of X. Shall I remove x?"),
		user("Delete it please"), // no target named: still pending after the block below
		calling(rm1), result(rm1, authorizationBlockReason("bash", ClassifyCommand("rm -rf x", nil)), true),
		final("Confirm?"),
		user("ok"),
		calling(rm2), result(rm2, "", false), // the grant was used
	}
	c := newCore(t, nil)
	if err := c.Restore(msgs, nil); err != nil {
		t.Fatal(err)
	}
	if d := c.BeforeToolCall(t.Context(), bashCall("4", "rm -rf x"), nil); !d.Block {
		t.Fatal("a consumed grant must not be reusable after restore")
	}
	st := c.Status().Alignment
	if len(st.Blocked) != 3 || st.Blocked[0].Kind != BlockScope {
		t.Fatalf("blocked %+v", st.Blocked)
	}
}
