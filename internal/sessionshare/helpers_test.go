package sessionshare

import (
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/app/apptest"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/llm"
)

type testEnv struct {
	rt       *app.Runtime
	cmds     *commands.Registry
	f        *Feature
	cwd      string
	agentDir string
}

// newEnv builds a runtime over a persisted session in a temporary agent
// directory, with the commands registered.
func newEnv(t *testing.T) *testEnv {
	t.Helper()
	sess, cwd, agentDir := apptest.NewSession(t)
	model := &llm.Model{ID: "m1", Name: "Model One", Provider: "fake", API: "fake-api", ContextWindow: 100000, MaxTokens: 8000}
	cmds := commands.New()
	rt, err := app.New(app.Config{Commands: cmds, Cwd: cwd, AgentDir: agentDir, Session: sess, NoContext: true,
		Models: &apptest.Models{LLM: &apptest.FakeClient{}, Model: model}, Model: model,
		Now: func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	o := Options{Cwd: cwd, AgentDir: agentDir}
	if err := Register(rt, cmds, o); err != nil {
		t.Fatal(err)
	}
	return &testEnv{rt: rt, cmds: cmds, f: &Feature{rt: rt, o: o}, cwd: cwd, agentDir: agentDir}
}

func (e *testEnv) seed(t *testing.T) {
	t.Helper()
	if err := apptest.SeedConversation(e.rt.Session()); err != nil {
		t.Fatal(err)
	}
}

func fakeCommand(t *testing.T, dir, name, script string) {
	t.Helper()
	if err := apptest.FakeCommand(dir, name, script); err != nil {
		t.Fatal(err)
	}
}

func userText(s string) llm.Message {
	return &llm.UserMessage{Content: llm.StringContent(s), Timestamp: 1}
}
