package tmuxe2e_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// shutdown-command.ts (pi's, unchanged): its finish_and_exit tool calls
// ctx.shutdown(); the TUI quits once the run that called it answered.
func TestE2EExtensionShutdown(t *testing.T) {
	ext := piExample(t, "shutdown-command.ts")
	e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "x1", Name: "finish_and_exit", Args: json.RawMessage(`{}`)}}},
		{Text: "all finished"},
	}}, map[string]any{"tuiMode": "regular"})
	e.withJiti()
	e.start("-e", ext)
	e.text("wrap up")
	e.keys("Enter")
	deadline := time.Now().Add(90 * time.Second)
	for {
		if out, _ := e.tmux("list-panes", "-t", e.session, "-F", "#{pane_dead}").Output(); strings.TrimSpace(string(out)) == "1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ctx.shutdown() did not quit the TUI; screen:\n%s", e.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	files := e.sessionFiles()
	if len(files) != 1 {
		t.Fatalf("%d session files", len(files))
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), "Shutdown requested. Exiting after this response.") || !strings.Contains(string(b), "all finished") {
		t.Errorf("the run did not finish before the quit:\n%s", b)
	}
}
