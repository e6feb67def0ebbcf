package bugreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteDebugLog(t *testing.T) {
	e := newCmdRuntime(t)
	e.seed(t)
	path, err := e.f.WriteDebugLog()
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
	if strings.Contains(log, "sk-fake-runtime-key") || e.models.AuthCalls != 0 {
		t.Error("debug log resolved credentials")
	}
	// Nothing was persisted by rendering the prompt.
	for _, en := range e.rt.Session().Entries() {
		if en.Role() == "system" {
			t.Error("WriteDebugLog appended a system message")
		}
	}
}
