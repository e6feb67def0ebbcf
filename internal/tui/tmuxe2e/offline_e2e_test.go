package tmuxe2e_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// TestE2EOffline: laya/auto in the TUI installs its Docker runtime in the
// background (docker is called at start); with --offline or RELAY_OFFLINE=1
// nothing automatic goes out — docker is never called — while the prompt
// still reaches the model.
func TestE2EOffline(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     []string
		args    []string
		offline bool
	}{
		{"online calls docker", []string{"RELAY_OFFLINE="}, nil, false},
		{"--offline", []string{"RELAY_OFFLINE="}, []string{"--offline"}, true},
		{"RELAY_OFFLINE=1", []string{"RELAY_OFFLINE=1"}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "routed answer"}}, Repeat: true}, nil)
			bin := t.TempDir()
			log := filepath.Join(t.TempDir(), "docker.log")
			script := "#!/bin/sh\necho \"$@\" >> " + log + "\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n"
			if err := os.WriteFile(filepath.Join(bin, "docker"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			e.extraEnv = append(tc.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			e.start(append([]string{"--model", "laya/auto"}, tc.args...)...)
			if !tc.offline {
				deadline := time.Now().Add(15 * time.Second)
				for {
					if _, err := os.Stat(log); err == nil {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("docker was never called without --offline; screen:\n%s", e.screen())
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			e.text("say hi")
			e.keys("Enter")
			e.waitFor("routed answer", 15*time.Second)
			if b, err := os.ReadFile(log); err == nil {
				t.Fatalf("offline relay called docker:\n%s", b)
			}
		})
	}
}
