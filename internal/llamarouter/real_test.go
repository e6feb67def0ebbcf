package llamarouter

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm/llamacpp"
)

// TestRealLlamaServer drives the real llama-server: /llama start runs a
// router over a models directory holding the GGUF named by
// RELAY_TEST_LLAMA_GGUF, /llama load loads it, the model answers
// classification questions through llama-cpp-classify, and the quit stops
// the router. It skips, saying why, without llama-server on PATH or the
// variable (Debian packages no llama.cpp; CI runs the fake server).
func TestRealLlamaServer(t *testing.T) {
	gguf := os.Getenv("RELAY_TEST_LLAMA_GGUF")
	if gguf == "" {
		t.Skip("set RELAY_TEST_LLAMA_GGUF to a GGUF chat model (e.g. Qwen3-0.6B-Q4_K_M.gguf) to run against the real llama-server")
	}
	if _, err := (execRunner{}).LookPath(); err != nil {
		t.Skip("llama-server is not on PATH: install llama.cpp to run this test")
	}
	if testing.Short() {
		t.Skip("loads a model: not in -short")
	}
	dir := t.TempDir()
	id := strings.TrimSuffix(filepath.Base(gguf), ".gguf")
	abs, _ := filepath.Abs(gguf)
	if err := os.Symlink(abs, filepath.Join(dir, filepath.Base(gguf))); err != nil {
		t.Fatal(err)
	}
	root := "http://" + freePort(t)
	cmds, seam := commands.New(), hooks.New()
	if _, err := Register(cmds, seam, Options{Root: root, AgentDir: t.TempDir(), Home: t.TempDir(), StartTimeout: 2 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	run := func(line string) string {
		t.Helper()
		out, _, err := cmds.Run(context.Background(), line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return out.Text
	}
	defer seam.SessionShutdown.Notify(context.Background(), &hooks.SessionChange{Reason: hooks.ReasonQuit})
	run("/llama start " + dir)
	if out := run("/llama"); !strings.Contains(out, "- "+id+": unloaded") {
		t.Fatalf("list:\n%s", out)
	}
	run("/llama load " + id)
	c := &llamacpp.Classifier{Root: root, Model: id, Timeout: 2 * time.Minute}
	qs := []llamacpp.Question{
		{ID: "kind", Type: llamacpp.QChoice, Instructions: "What does the request ask for?", Options: []string{"question", "bug_fix", "feature"},
			Descriptions: []string{"an answer, no change", "fix wrong behavior", "new behavior"}},
		{ID: "size", Type: llamacpp.QScore, Instructions: "How large is the change?", Descriptions: []string{"none", "small", "large"}},
		{ID: "writes", Type: llamacpp.QBool, Instructions: "Does it require editing files?", Descriptions: []string{"yes", "no"}},
	}
	got, st, err := c.Classify(context.Background(), map[string]string{"request": "Fix the crash when the config file is empty"}, qs, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, p := range got["kind"].Probabilities {
		sum += p
	}
	if math.Abs(sum-1) > 1e-6 || got["size"].Score < 0 || got["size"].Score > 2 || got["writes"].Probability < 0 || got["writes"].Probability > 1 {
		t.Errorf("answers %+v", got)
	}
	t.Logf("real model %s: %+v (calls %+v)", id, got, st)
	run("/llama unload " + id)
	seam.SessionShutdown.Notify(context.Background(), &hooks.SessionChange{Reason: hooks.ReasonQuit})
	if _, err := (&llamacpp.Client{Root: root}).Models(context.Background()); err == nil {
		t.Error("the router still answers after the quit")
	}
}
