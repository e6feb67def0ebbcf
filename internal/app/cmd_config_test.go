package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/settings"
)

func TestLoginLogoutAuthJSON(t *testing.T) {
	e := newCmdRuntime(t)
	t.Setenv("OPENAI_API_KEY", "")
	e.rt.cfg.Env = config.ReadEnv()
	if _, err := e.rt.Login("openai", ""); err == nil {
		t.Error("login without a key accepted")
	}
	msg, err := e.rt.Login("openai", "sk-test-123")
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
	e.rt.Login("groq", "gsk-1")
	if ps, _ := e.rt.loggedInProviders(); strings.Join(ps, ",") != "groq,openai" {
		t.Errorf("logged in: %v", ps)
	}
	if _, err := e.rt.Logout(""); err == nil || !strings.Contains(err.Error(), "groq, openai") {
		t.Errorf("logout without provider: %v", err)
	}
	if _, err := e.rt.Logout("mistral"); err == nil {
		t.Error("logout of a provider without credential succeeded")
	}
	t.Setenv("OPENAI_API_KEY", "from-env")
	e.rt.cfg.Env = config.ReadEnv()
	msg, err = e.rt.Logout("openai")
	if err != nil || !strings.Contains(msg, "Removed") || !strings.Contains(msg, "OPENAI_API_KEY is still set") {
		t.Errorf("logout: %q, %v", msg, err)
	}
	if ps, _ := e.rt.loggedInProviders(); strings.Join(ps, ",") != "groq" {
		t.Errorf("after logout: %v", ps)
	}
}

// storeModels is a Models source that persists credentials itself.
type storeModels struct {
	*cmdModels
	calls []string
}

func (s *storeModels) Login(p, k string) error {
	s.calls = append(s.calls, "login "+p+" "+k)
	return nil
}
func (s *storeModels) Logout(p string) error { s.calls = append(s.calls, "logout "+p); return nil }

func TestLoginUsesTheModelsStore(t *testing.T) {
	e := newCmdRuntime(t)
	sm := &storeModels{cmdModels: e.models}
	e.rt.cfg.Models = sm
	if _, err := e.rt.Login("openai", "k1"); err != nil {
		t.Fatal(err)
	}
	if len(sm.calls) != 1 || sm.calls[0] != "login openai k1" {
		t.Errorf("calls %v", sm.calls)
	}
	if _, err := os.Stat(filepath.Join(e.agentDir, "auth.json")); err == nil {
		t.Error("auth.json written behind the store's back")
	}
}

func TestWriteDebugLog(t *testing.T) {
	e := newCmdRuntime(t)
	e.seed(t)
	path, err := e.rt.writeDebugLog()
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(e.agentDir, "relay-debug.log") {
		t.Errorf("path %s", path)
	}
	b, _ := os.ReadFile(path)
	log := string(b)
	for _, want := range []string{
		"model: fake/m1 (api fake-api, base URL https://api.example.test/v1",
		"=== System prompt (",
		"Current working directory: " + e.cwd,
		"=== Tools (1) ===\n- probe: probe the system\n  parameters: {\"type\":\"object\"",
		"=== Messages (5 sent to the model",
		"user       ~",
		"please check the build",
		"call probe {\"path\":\"main.go\"}",
		"probe (ok) probed",
		"The build passes.",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("debug log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "sk-fake-runtime-key") || e.models.authCalls != 0 {
		t.Error("debug log resolved credentials")
	}
	// Nothing was persisted by rendering the prompt.
	for _, en := range e.rt.Session().Entries() {
		if en.Role() == "system" {
			t.Error("WriteDebugLog appended a system message")
		}
	}
}

func TestTrust(t *testing.T) {
	e := newCmdRuntime(t)
	info := TrustState(e.rt.cfg.Cwd, e.rt.cfg.AgentDir)
	if info.Needed || info.Saved != nil || info.Default != settings.TrustAsk || len(info.Choices) < 3 {
		t.Fatalf("initial state %+v", info)
	}
	if !strings.Contains(info.Format(), "counts as trusted") {
		t.Errorf("format: %s", info.Format())
	}
	os.MkdirAll(filepath.Join(e.cwd, ".relay"), 0o755)
	os.WriteFile(filepath.Join(e.cwd, ".relay", "settings.json"), []byte(`{}`), 0o644)
	info = TrustState(e.rt.cfg.Cwd, e.rt.cfg.AgentDir)
	if !info.Needed || info.Choices[0].Label != "Trust" {
		t.Fatalf("with .relay/settings.json: %+v", info)
	}
	msg, err := e.rt.setTrust(0)
	if err != nil || !strings.Contains(msg, "Saved: Trust.") {
		t.Fatalf("SetTrust(0): %q, %v", msg, err)
	}
	info = TrustState(e.rt.cfg.Cwd, e.rt.cfg.AgentDir)
	if info.Saved == nil || !info.Saved.Trusted || info.Saved.Dir != config.Canonical(e.cwd) {
		t.Fatalf("saved %+v", info.Saved)
	}
	if !strings.Contains(info.Format(), "Saved decision: trusted") {
		t.Errorf("format: %s", info.Format())
	}
	last := len(info.Choices) - 1
	if !strings.HasPrefix(info.Choices[last].Label, "Forget the saved decision") {
		t.Fatalf("choices %+v", info.Choices)
	}
	if _, err := e.rt.setTrust(last); err != nil {
		t.Fatal(err)
	}
	if info = TrustState(e.rt.cfg.Cwd, e.rt.cfg.AgentDir); info.Saved != nil {
		t.Errorf("decision not forgotten: %+v", info.Saved)
	}
	// "Do not trust" saves false.
	for i, c := range info.Choices {
		if c.Label == "Do not trust" {
			e.rt.setTrust(i)
		}
	}
	if info = TrustState(e.rt.cfg.Cwd, e.rt.cfg.AgentDir); info.Saved == nil || info.Saved.Trusted {
		t.Errorf("do not trust: %+v", info.Saved)
	}
	if _, err := e.rt.setTrust(99); err == nil {
		t.Error("out-of-range choice accepted")
	}
}
