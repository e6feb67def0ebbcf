package apikeys

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/app/apptest"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm"
)

type testEnv struct {
	rt       *app.Runtime
	cmds     *commands.Registry
	k        *Keys
	models   *apptest.Models
	agentDir string
}

func newEnv(t *testing.T) *testEnv {
	t.Helper()
	sess, cwd, agentDir := apptest.NewSession(t)
	model := &llm.Model{ID: "m1", Provider: "fake", API: "fake-api", ContextWindow: 100000}
	ms := &apptest.Models{LLM: &apptest.FakeClient{}, Model: model}
	cmds := commands.New()
	rt, err := app.New(app.Config{Commands: cmds, Cwd: cwd, AgentDir: agentDir, Session: sess, NoContext: true, Models: ms, Model: model,
		Now: func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	o := Options{AgentDir: agentDir, Models: ms}
	if err := Register(rt, cmds, o); err != nil {
		t.Fatal(err)
	}
	return &testEnv{rt: rt, cmds: cmds, k: &Keys{rt: rt, o: o}, models: ms, agentDir: agentDir}
}

func TestCommands(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, tt := range []struct{ line, want string }{
		{"/login groq gsk-abc", "Saved API key for groq"},
		{"/logout groq", "Removed the auth.json credential of groq"},
	} {
		out, handled, err := e.cmds.Run(ctx, tt.line)
		if !handled || err != nil || !strings.Contains(out.Text, tt.want) {
			t.Errorf("%s: %+v handled=%v err=%v", tt.line, out, handled, err)
		}
	}
}

func TestLoginLogoutAuthJSON(t *testing.T) {
	e := newEnv(t)
	t.Setenv("OPENAI_API_KEY", "")
	e.k.o.Env = config.ReadEnv()
	if _, err := e.k.Login("openai", ""); err == nil {
		t.Error("login without a key accepted")
	}
	msg, err := e.k.Login("openai", "sk-test-123")
	if err != nil || !strings.Contains(msg, "Saved API key for openai") {
		t.Fatalf("login: %q, %v", msg, err)
	}
	path := filepath.Join(e.agentDir, "auth.json")
	var auth map[string]map[string]string
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &auth); err != nil || auth["openai"]["key"] != "sk-test-123" || auth["openai"]["type"] != "api_key" {
		t.Fatalf("auth.json = %s (%v)", b, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("auth.json mode %v", st.Mode().Perm())
	}
	e.k.Login("groq", "gsk-1")
	if ps, _ := e.k.loggedInProviders(); strings.Join(ps, ",") != "groq,openai" {
		t.Errorf("logged in: %v", ps)
	}
	if _, err := e.k.Logout(""); err == nil || !strings.Contains(err.Error(), "groq, openai") {
		t.Errorf("logout without provider: %v", err)
	}
	if _, err := e.k.Logout("mistral"); err == nil {
		t.Error("logout of a provider without credential succeeded")
	}
	t.Setenv("OPENAI_API_KEY", "from-env")
	e.k.o.Env = config.ReadEnv()
	msg, err = e.k.Logout("openai")
	if err != nil || !strings.Contains(msg, "Removed") || !strings.Contains(msg, "OPENAI_API_KEY is still set") {
		t.Errorf("logout: %q, %v", msg, err)
	}
	if ps, _ := e.k.loggedInProviders(); strings.Join(ps, ",") != "groq" {
		t.Errorf("after logout: %v", ps)
	}
}

// storeModels is a Models source that persists credentials itself.
type storeModels struct {
	*apptest.Models
	calls []string
}

func (s *storeModels) Login(p, k string) error {
	s.calls = append(s.calls, "login "+p+" "+k)
	return nil
}
func (s *storeModels) Logout(p string) error { s.calls = append(s.calls, "logout "+p); return nil }

func TestLoginUsesTheModelsStore(t *testing.T) {
	e := newEnv(t)
	sm := &storeModels{Models: e.models}
	e.k.o.Models = sm
	if _, err := e.k.Login("openai", "k1"); err != nil {
		t.Fatal(err)
	}
	if len(sm.calls) != 1 || sm.calls[0] != "login openai k1" {
		t.Errorf("calls %v", sm.calls)
	}
	if _, err := os.Stat(filepath.Join(e.agentDir, "auth.json")); err == nil {
		t.Error("auth.json written behind the store's back")
	}
}
