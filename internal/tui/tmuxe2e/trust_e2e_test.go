package tmuxe2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// launch starts relay in tmux without waiting for the editor (the trust
// prompt comes first).
func (e *tmuxEnv) launch(args ...string) {
	e.t.Helper()
	cmd := "env " + strings.Join(quoteAll(e.env()), " ") + " " + e.bin + " " + strings.Join(quoteAll(args), " ")
	if out, err := e.tmux("new-session", "-d", "-s", e.session, "-x", "100", "-y", "30", "-c", e.cwd, "sleep 600").CombinedOutput(); err != nil {
		e.t.Fatalf("tmux: %v %s", err, out)
	}
	e.t.Cleanup(func() { e.tmux("kill-server").Run() })
	e.tmux("set-option", "-t", e.session, "remain-on-exit", "on").Run()
	if out, err := e.tmux("respawn-pane", "-k", "-t", e.session, "-c", e.cwd, cmd).CombinedOutput(); err != nil {
		e.t.Fatalf("tmux respawn: %v %s", err, out)
	}
}

// TestE2ETrustPrompt: defaultProjectTrust "ask" asks before the TUI
// starts; the project's prompt template loads only when the answer trusts
// the project, and "Trust" is saved in trust.json.
func TestE2ETrustPrompt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		choice  string
		trusted bool
		saved   bool
	}{
		{"trust and save", "1", true, true},
		{"trust for this session", "3", true, false},
		{"do not trust for this session", "5", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "answered"}}, Repeat: true}, nil)
			if err := os.MkdirAll(filepath.Join(e.cwd, ".relay", "prompts"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(e.cwd, ".relay", "prompts", "projtmpl.md"), []byte("Expanded project template"), 0o644); err != nil {
				t.Fatal(err)
			}
			e.launch()
			e.waitFor("Trust this project?", 15*time.Second)
			e.waitFor("Do not trust (this session only)", 5*time.Second)
			e.text(tc.choice)
			e.keys("Enter")
			e.waitFor("────", 15*time.Second)
			e.text("/projtmpl")
			e.keys("Enter")
			e.waitFor("answered", 15*time.Second)
			reqs := e.fake.Requests()
			if len(reqs) == 0 {
				t.Fatalf("no request")
			}
			body, _ := json.Marshal(reqs[len(reqs)-1].Body)
			if got := strings.Contains(string(body), "Expanded project template"); got != tc.trusted {
				t.Errorf("project template expanded = %v, want %v", got, tc.trusted)
			}
			data, err := os.ReadFile(filepath.Join(e.agentDir, "trust.json"))
			if saved := err == nil && strings.Contains(string(data), "true"); saved != tc.saved {
				t.Errorf("trust.json saved = %v (%s), want %v", saved, data, tc.saved)
			}
		})
	}
}
