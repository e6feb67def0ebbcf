package app

import (
	"context"
	"testing"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/anthropic"
	"github.com/relay-agent/relay/internal/llm/llmtest"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/tool"
)

// wireModels serves one model through the real Anthropic client.
type wireModels struct{ model *llm.Model }

func (w wireModels) Client(*llm.Model) (llm.Client, error) { return anthropic.New(), nil }
func (w wireModels) Auth(context.Context, *llm.Model) (string, map[string]string, error) {
	return "sk-test", nil, nil
}
func (w wireModels) Find(p, id string) *llm.Model {
	if p == w.model.Provider && id == w.model.ID {
		return w.model
	}
	return nil
}
func (w wireModels) Available() []*llm.Model { return []*llm.Model{w.model} }

func wireRuntime(t *testing.T, srv *llmtest.Server, retry agent.RetryPolicy) *Runtime {
	t.Helper()
	model := &llm.Model{ID: "claude-test", Provider: "anthropic", API: llm.APIAnthropicMessages, BaseURL: srv.URL,
		ContextWindow: 200000, MaxTokens: 8000}
	reg, _ := tool.NewRegistry()
	rt, err := New(Config{Cwd: t.TempDir(), Session: session.InMemory("/proj"), Models: wireModels{model}, Model: model,
		Tools: reg, NoContext: true,
		Compaction:      compaction.Settings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000},
		Retry:           retry,
		ProviderRetries: llm.DefaultProviderRetries})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// A transient 503 before anything streamed is retried inside the provider
// client: the session sees one assistant message, no error message, no
// auto-retry, and one agent_end (issue 17: pi's RpcClient waits for it).
func TestProviderRetryIsInvisible(t *testing.T) {
	down := &llmtest.Fault{Status: 503, RetryAfter: "0",
		Body: `{"type":"error","error":{"type":"api_error","message":"Service Unavailable"}}`}
	overloaded := &llmtest.Fault{Status: 529, RetryAfter: "0",
		Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Fault: down}, {Fault: overloaded}, {Text: "hello"}}})
	defer srv.Close()
	rt := wireRuntime(t, srv, agent.RetryPolicy{Enabled: true, MaxRetries: 3})
	var types []string
	var assistants []*llm.AssistantMessage
	rt.Subscribe(func(e agent.Event) {
		types = append(types, e.Type)
		if a, ok := e.Message.(*llm.AssistantMessage); ok && e.Type == agent.MessageEnd {
			assistants = append(assistants, a)
		}
	})
	if err := rt.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	if len(assistants) != 1 || assistants[0].StopReason != llm.StopStop || assistants[0].Text() != "hello" {
		for _, a := range assistants {
			t.Logf("assistant %s %q %q", a.StopReason, a.Text(), a.ErrorMessage)
		}
		t.Fatalf("%d assistant messages, want one answer", len(assistants))
	}
	count := map[string]int{}
	for _, ty := range types {
		count[ty]++
	}
	if count[agent.AgentEnd] != 1 || count[agent.AutoRetryStart] != 0 {
		t.Errorf("events %v", types)
	}
	for _, e := range rt.Session().Entries() {
		m, _ := e.Message()
		if a, ok := m.(*llm.AssistantMessage); ok && a.StopReason == llm.StopError {
			t.Errorf("session holds an error message %q", a.ErrorMessage)
		}
	}
}

// When the provider client's retries run out, the failure reaches the
// session as before: one error message with the server's words, then the
// agent-level retry decides (off here).
func TestProviderRetryExhausted(t *testing.T) {
	down := llmtest.Response{Fault: &llmtest.Fault{Status: 503, RetryAfter: "0",
		Body: `{"type":"error","error":{"type":"api_error","message":"Service Unavailable"}}`}}
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{down, down, down, {Text: "late"}}})
	defer srv.Close()
	rt := wireRuntime(t, srv, agent.RetryPolicy{})
	var assistants []*llm.AssistantMessage
	rt.Subscribe(func(e agent.Event) {
		if a, ok := e.Message.(*llm.AssistantMessage); ok && e.Type == agent.MessageEnd {
			assistants = append(assistants, a)
		}
	})
	if err := rt.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 1+llm.DefaultProviderRetries {
		t.Errorf("%d requests, want %d", n, 1+llm.DefaultProviderRetries)
	}
	if len(assistants) != 1 || assistants[0].StopReason != llm.StopError ||
		assistants[0].ErrorMessage != "503 api_error: Service Unavailable" || !assistants[0].Err.Retryable() {
		t.Fatalf("assistants %+v", assistants)
	}
}
