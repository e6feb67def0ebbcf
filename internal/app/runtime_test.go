package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/app/apptest"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/tool"
)

type (
	reply      = apptest.Reply
	fakeClient = apptest.FakeClient
	echoTool   = apptest.EchoTool
)

var (
	say  = apptest.Say
	call = apptest.Call
)

type fakeModels struct {
	client *fakeClient
	model  *llm.Model
}

func (f *fakeModels) Client(*llm.Model) (llm.Client, error) { return f.client, nil }
func (f *fakeModels) Auth(context.Context, *llm.Model) (string, map[string]string, error) {
	return "key", nil, nil
}
func (f *fakeModels) Find(p, id string) *llm.Model {
	if p == f.model.Provider && id == f.model.ID {
		return f.model
	}
	return nil
}
func (f *fakeModels) Available() []*llm.Model { return []*llm.Model{f.model} }

func newRuntime(t *testing.T, replies ...reply) (*Runtime, *fakeClient) {
	t.Helper()
	fc := &fakeClient{Replies: replies}
	model := &llm.Model{ID: "m1", Provider: "fake", API: "fake-api", ContextWindow: 100000, MaxTokens: 8000}
	reg, _ := tool.NewRegistry(echoTool{})
	rt, err := New(Config{Cwd: t.TempDir(), Session: session.InMemory("/proj"), Models: &fakeModels{fc, model}, Model: model,
		Tools: reg, Active: tool.NewActive([]string{"echo"}), NoContext: true,
		Compaction: compaction.Settings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000}})
	if err != nil {
		t.Fatal(err)
	}
	return rt, fc
}

func TestPromptPersistsSystemUserAssistant(t *testing.T) {
	rt, fc := newRuntime(t, call("echo", `{"x":1}`), say("done"))
	var types []string
	rt.Subscribe(func(e agent.Event) { types = append(types, e.Type) })
	if err := rt.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	roles := []string{}
	for _, e := range rt.Session().Entries() {
		roles = append(roles, e.Role())
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,toolResult,assistant" {
		t.Errorf("entry roles %s", got)
	}
	if len(fc.Reqs) != 2 {
		t.Fatalf("%d requests", len(fc.Reqs))
	}
	r := fc.Reqs[1]
	if !strings.Contains(r.SystemPrompt, "Current working directory: /") || len(r.Tools) != 1 || r.Tools[0].Name != "echo" {
		t.Errorf("request system/tools wrong: %q %v", r.SystemPrompt, r.Tools)
	}
	if len(r.Messages) != 3 {
		t.Errorf("second request has %d messages, want 3", len(r.Messages))
	}
	tr := rt.ContextMessages()[3].(*llm.ToolResultMessage)
	if tr.Content.PlainText() != `echo:{"x":1}` {
		t.Errorf("tool result %q", tr.Content.PlainText())
	}
	if types[len(types)-1] != agent.AgentSettled {
		t.Errorf("last event %s", types[len(types)-1])
	}
	st := Stats(rt)
	if st.UserMessages != 1 || st.AssistantMessages != 2 || st.ToolCalls != 1 || st.Tokens.Input != 100 {
		t.Errorf("stats %+v", st)
	}
}

func TestSecondPromptDoesNotRepeatSystem(t *testing.T) {
	rt, _ := newRuntime(t, say("a"), say("b"))
	rt.Prompt(context.Background(), "one", nil)
	rt.Prompt(context.Background(), "two", nil)
	n := 0
	for _, e := range rt.Session().Entries() {
		if e.Role() == llm.RoleSystem {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d system messages, want 1", n)
	}
}

func TestManualCompaction(t *testing.T) {
	big := strings.Repeat("word ", 20000)
	rt, fc := newRuntime(t, say(big), say(big), say("## Goal\nsummary"), say("prefix"))
	rt.cfg.Compaction.KeepRecentTokens = 1000
	rt.Prompt(context.Background(), "first "+big, nil)
	rt.Prompt(context.Background(), "second", nil)
	var ends []agent.Event
	rt.Subscribe(func(e agent.Event) {
		if e.Type == agent.CompactionEnd {
			ends = append(ends, e)
		}
	})
	res, err := rt.Compact(context.Background(), "focus on tests")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Summary, "## Goal\nsummary") || res.TokensBefore == 0 {
		t.Errorf("result %+v", res)
	}
	last := fc.Reqs[len(fc.Reqs)-2]
	if last.SystemPrompt != compaction.SystemPrompt || !strings.Contains(last.Messages[0].(*llm.UserMessage).Content.PlainText(), "Additional focus: focus on tests") {
		t.Errorf("summary request wrong")
	}
	msgs := rt.ContextMessages()
	if _, ok := msgs[0].(*llm.SystemMessage); !ok {
		t.Errorf("compacted context does not start with the system checkpoint: %T", msgs[0])
	}
	if _, ok := msgs[1].(*llm.CompactionSummaryMessage); !ok {
		t.Errorf("second message %T", msgs[1])
	}
	if len(ends) != 1 || ends[0].Result == nil {
		t.Errorf("compaction_end events %+v", ends)
	}
}

func TestOverflowRecovery(t *testing.T) {
	overflow := func(_ *llm.Request, b *llm.MessageBuilder) *llm.AssistantMessage {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrContextOverflow, Status: 400, Message: "prompt is too long: 300000 tokens > 200000 maximum"})
	}
	rt, _ := newRuntime(t, say(strings.Repeat("x ", 5000)), overflow, say("## Goal\ns"), say("ok"))
	rt.Prompt(context.Background(), "first", nil)
	rt.cfg.Compaction.KeepRecentTokens = 10
	var seq []string
	rt.Subscribe(func(e agent.Event) {
		switch e.Type {
		case agent.AgentEnd, agent.CompactionStart, agent.AgentSettled:
			seq = append(seq, e.Type)
		case agent.CompactionEnd:
			seq = append(seq, e.Type)
			if !e.WillRetry || e.Reason != "overflow" {
				t.Errorf("compaction_end %+v", e)
			}
		}
	})
	rt.Prompt(context.Background(), "second", nil)
	if got := strings.Join(seq, " "); got != "agent_end compaction_start compaction_end agent_end agent_settled" {
		t.Errorf("sequence %s", got)
	}
	msgs := rt.ContextMessages()
	if last, _ := msgs[len(msgs)-1].(*llm.AssistantMessage); last == nil || last.Text() != "ok" {
		t.Errorf("last answer %+v", last)
	}
	edits := 0
	for _, e := range rt.Session().Entries() {
		if e.Type == session.TypeContextEdit {
			edits++
		}
	}
	if edits != 1 {
		t.Errorf("%d context edits, want 1", edits)
	}
}

// Request-building failures are classified by cause, not all as auth: the
// agent's retry and the front ends read the kind.
func TestFailureKinds(t *testing.T) {
	rt, _ := newRuntime(t)
	tests := []struct {
		name string
		err  error
		want llm.ErrorKind
	}{
		{"no model", &requestError{llm.ErrInvalidRequest, ErrNoModel}, llm.ErrInvalidRequest},
		{"missing key keeps the provider's kind", &llm.ProviderError{Kind: llm.ErrAuth, Message: "No API key for provider: x"}, llm.ErrAuth},
		{"wrapped credential command failure", fmt.Errorf("request: %w", &requestError{llm.ErrAuth, errors.New("!cmd exited 1")}), llm.ErrAuth},
		{"router or session failure", errors.New("persist system prompt: disk full"), llm.ErrOther},
	}
	for _, tt := range tests {
		if got := rt.failure(tt.err); got.Err == nil || got.Err.Kind != tt.want || got.ErrorMessage != tt.err.Error() {
			t.Errorf("%s: kind %v message %q", tt.name, got.Err, got.ErrorMessage)
		}
	}
}
