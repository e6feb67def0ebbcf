package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

func userEntryID(t *testing.T, rt *Runtime) string {
	t.Helper()
	for _, e := range rt.Session().Entries() {
		if e.Role() == llm.RoleUser {
			return e.ID
		}
	}
	t.Fatal("no user entry")
	return ""
}

// agent_before_settle from a Go registrant: the drafts are appended before
// the agent settles (custom state, a custom message the next request
// carries, a context edit of the prompt) and continue makes one more
// request; the second settle compacts and stops.
func TestSettleDraftsAndContinue(t *testing.T) {
	rt, fc := newRuntime(t, say("first"), say("second"))
	round := 0
	rt.hooks.Settle.On("test", func(_ context.Context, e *hooks.Settle) (hooks.SettleResult, error) {
		round++
		if round == 1 {
			note := llm.StringContent("a note for the model")
			edited := llm.StringContent("the edited prompt")
			return hooks.SettleResult{Continue: true, Entries: []hooks.EntryDraft{
				{Type: hooks.DraftCustom, CustomType: "state", Data: json.RawMessage(`{"round":1}`)},
				{Type: hooks.DraftCustomMessage, CustomType: "note", Content: &note, Display: true},
				{Type: hooks.DraftContextEdit, TargetID: userEntryID(t, rt), Replacement: &hooks.Replacement{Content: edited}},
			}}, nil
		}
		return hooks.SettleResult{Entries: []hooks.EntryDraft{{Type: hooks.DraftCompaction, Summary: "what happened"}}}, nil
	})
	var shown []string
	rt.Subscribe(func(e agent.Event) {
		if c, ok := e.Message.(*llm.CustomMessage); ok && e.Type == agent.MessageEnd {
			shown = append(shown, c.CustomType)
		}
	})
	if err := rt.Prompt(context.Background(), "the prompt", nil); err != nil {
		t.Fatal(err)
	}
	if len(fc.Reqs) != 2 {
		t.Fatalf("%d requests, want 2 (continue makes one more)", len(fc.Reqs))
	}
	raw, _ := json.Marshal(fc.Reqs[1].Messages)
	second := string(raw)
	if !strings.Contains(second, "a note for the model") || !strings.Contains(second, "the edited prompt") || strings.Contains(second, `"the prompt"`) {
		t.Errorf("second request messages %s: want the note and the edited prompt", second)
	}
	var types []string
	for _, e := range rt.Session().Entries() {
		switch e.Type {
		case session.TypeCustom, session.TypeCustomMessage, session.TypeContextEdit, session.TypeCompaction:
			types = append(types, e.Type)
		}
	}
	if got := strings.Join(types, ","); got != "custom,custom_message,context_edit,compaction" {
		t.Errorf("appended entries %s", got)
	}
	if len(shown) != 1 || shown[0] != "note" {
		t.Errorf("custom message events %v", shown)
	}
	if c := rt.Session().LeafEntry().Compaction(); c == nil || c.Summary != "what happened" {
		t.Errorf("leaf is not the compaction: %+v", rt.Session().LeafEntry())
	}
}

// A draft the session refuses is reported and the run settles without
// the continuation.
func TestSettleRefusedDraft(t *testing.T) {
	rt, fc := newRuntime(t, say("first"), say("never"))
	rt.hooks.Settle.On("test", func(context.Context, *hooks.Settle) (hooks.SettleResult, error) {
		return hooks.SettleResult{Continue: true, Entries: []hooks.EntryDraft{{Type: hooks.DraftContextEdit, TargetID: "nope"}}}, nil
	})
	var errs []string
	rt.Subscribe(func(e agent.Event) {
		if e.Type == agent.ExtensionError {
			errs = append(errs, e.Event+": "+e.Error)
		}
	})
	if err := rt.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	if len(fc.Reqs) != 1 {
		t.Errorf("%d requests, want 1", len(fc.Reqs))
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "agent_before_settle") || !strings.Contains(errs[0], `"nope" does not exist`) {
		t.Errorf("errors %v", errs)
	}
}
