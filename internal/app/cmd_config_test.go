package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/settings"
)

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
