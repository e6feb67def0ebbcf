package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/settings"
)

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
