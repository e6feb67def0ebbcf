package hooks

import (
	"context"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// agent_before_settle chains: each handler sees the drafts and the
// continue decision so far; a returned list replaces the drafts, the last
// continue / stop wins, invalid drafts void the result unless replaced.
func TestRunSettle(t *testing.T) {
	content := llm.StringContent("note")
	custom := EntryDraft{Type: DraftCustom, CustomType: "state"}
	msg := EntryDraft{Type: DraftCustomMessage, CustomType: "note", Content: &content, Display: true}
	bad := EntryDraft{Type: "bogus"}
	type h func(e *Settle) SettleResult
	for _, tc := range []struct {
		name      string
		handlers  []h
		continues bool
		followUp  string
		entries   []string // draft types
		errs      int
	}{
		{name: "none"},
		{name: "one draft, no continue", handlers: []h{func(*Settle) SettleResult { return SettleResult{Entries: []EntryDraft{custom}} }},
			entries: []string{"custom"}},
		{name: "later handler sees and extends the drafts", handlers: []h{
			func(*Settle) SettleResult { return SettleResult{Entries: []EntryDraft{custom}, Continue: true} },
			func(e *Settle) SettleResult {
				if !e.Continue || len(e.Entries) != 1 {
					return SettleResult{Entries: []EntryDraft{}}
				}
				return SettleResult{Entries: append(append([]EntryDraft(nil), e.Entries...), msg)}
			},
		}, continues: true, entries: []string{"custom", "custom_message"}},
		{name: "a later stop wins over continue and drops the follow-up", handlers: []h{
			func(*Settle) SettleResult { return SettleResult{Continue: true, FollowUp: "verify"} },
			func(*Settle) SettleResult { return SettleResult{Stop: true} },
		}},
		{name: "a later continue wins over stop, first follow-up kept", handlers: []h{
			func(*Settle) SettleResult { return SettleResult{Stop: true} },
			func(*Settle) SettleResult { return SettleResult{Continue: true, FollowUp: "a"} },
			func(*Settle) SettleResult { return SettleResult{Continue: true, FollowUp: "b"} },
		}, continues: true, followUp: "a"},
		{name: "invalid drafts void the result", handlers: []h{
			func(*Settle) SettleResult { return SettleResult{Entries: []EntryDraft{custom, bad}, Continue: true} },
		}, errs: 1},
		{name: "a later handler can repair invalid drafts", handlers: []h{
			func(*Settle) SettleResult { return SettleResult{Entries: []EntryDraft{bad}} },
			func(*Settle) SettleResult { return SettleResult{Entries: []EntryDraft{msg}, Continue: true} },
		}, continues: true, entries: []string{"custom_message"}, errs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New()
			var errs []*HandlerError
			s.OnError = func(e *HandlerError) { errs = append(errs, e) }
			for i, fn := range tc.handlers {
				fn := fn
				s.Settle.On(string(rune('a'+i)), func(_ context.Context, e *Settle) (SettleResult, error) { return fn(e), nil })
			}
			r := s.RunSettle(context.Background(), Settle{Outcome: "completed"})
			var types []string
			for _, d := range r.Entries {
				types = append(types, d.Type)
			}
			if r.Continue != tc.continues || r.FollowUp != tc.followUp || strings.Join(types, ",") != strings.Join(tc.entries, ",") {
				t.Errorf("got continue=%v followUp=%q entries=%v, want %v %q %v", r.Continue, r.FollowUp, types, tc.continues, tc.followUp, tc.entries)
			}
			if len(errs) != tc.errs {
				t.Errorf("errors %v, want %d", errs, tc.errs)
			}
			for _, e := range errs {
				if e.Event != "agent_before_settle" || !strings.Contains(e.Error(), "unknown entry type") {
					t.Errorf("error %v does not name the event and the bad draft", e)
				}
			}
		})
	}
}

// context_with_system handlers chain on the whole transcript; dropping the
// leading system message is reported but stands.
func TestRunContextWithSystem(t *testing.T) {
	s := New()
	var errs []*HandlerError
	s.OnError = func(e *HandlerError) { errs = append(errs, e) }
	sys := &llm.SystemMessage{Content: llm.StringContent("prompt")}
	user := &llm.UserMessage{Content: llm.StringContent("hi")}
	s.ContextWithSystem.On("add", func(_ context.Context, e *Context) (ContextResult, error) {
		if len(e.Messages) != 2 {
			t.Errorf("first handler saw %d messages", len(e.Messages))
		}
		return ContextResult{Messages: append(append([]llm.Message(nil), e.Messages...), user)}, nil
	})
	s.ContextWithSystem.On("none", func(context.Context, *Context) (ContextResult, error) { return ContextResult{}, nil })
	out := s.RunContextWithSystem(context.Background(), nil, []llm.Message{sys, user})
	if len(out) != 3 || out[0] != sys || len(errs) != 0 {
		t.Fatalf("out %d messages, errors %v", len(out), errs)
	}
	s.ContextWithSystem.On("drop", func(_ context.Context, e *Context) (ContextResult, error) {
		return ContextResult{Messages: e.Messages[1:]}, nil
	})
	out = s.RunContextWithSystem(context.Background(), nil, []llm.Message{sys, user})
	if len(out) != 2 || len(errs) != 1 || errs[0].Source != "drop" || errs[0].Event != "context_with_system" {
		t.Fatalf("dropping the system message: out %d, errors %v", len(out), errs)
	}
}
