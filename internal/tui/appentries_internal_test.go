package tui

import (
	"testing"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/app/apptest"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui/transcript"
)

// A resumed session's custom entries reach the transcript at their place
// among the messages, for entry renderers.
func TestContextMessagesCarryCustomEntries(t *testing.T) {
	sess, cwd, agentDir := apptest.NewSession(t)
	model := &llm.Model{ID: "m1", Provider: "fake", API: "fake-api", ContextWindow: 100000, MaxTokens: 8000}
	if _, err := sess.AppendMessage(&llm.UserMessage{Content: llm.StringContent("first")}); err != nil {
		t.Fatal(err)
	}
	id, err := sess.AppendCustom("note", map[string]string{"text": "kept"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.AppendMessage(&llm.UserMessage{Content: llm.StringContent("second")}); err != nil {
		t.Fatal(err)
	}
	rt, err := app.New(app.Config{Cwd: cwd, AgentDir: agentDir, Session: sess, NoContext: true,
		Models: &apptest.Models{LLM: &apptest.FakeClient{}, Model: model}, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	msgs := (&AppRuntime{Runtime: rt}).ContextMessages()
	var got []string
	for _, m := range msgs {
		switch m := m.(type) {
		case *llm.UserMessage:
			got = append(got, "user:"+m.Content.Text)
		case *transcript.EntryMessage:
			got = append(got, "entry:"+m.ID+":"+m.CustomType+":"+string(m.Data))
		}
	}
	want := []string{"user:first", "entry:" + id + `:note:{"text":"kept"}`, "user:second"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %q, want %q", got, want)
			break
		}
	}
}
