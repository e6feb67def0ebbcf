package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// Without any key the error says where to read on, including how to run
// on a local server without an account, and the pages it names exist.
func TestNoKeyMessagePointsToDocs(t *testing.T) {
	e := newEnv(t, &llmtest.Script{}, nil)
	c := e.cmd(nil, "-p", "hello")
	c.Env = append(c.Env, "ANTHROPIC_API_KEY=")
	out, err := c.CombinedOutput()
	if err == nil {
		t.Fatalf("ran without a key: %s", out)
	}
	for _, want := range []string{"no model available", "relay help models", "docs/providers.md", "llama.cpp"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no-key message lacks %q: %s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join("..", "..", "docs", "providers.md")); err != nil {
		t.Errorf("the page it names: %v", err)
	}
	help, _, code := e.run("help", "models")
	if code != 0 || !strings.Contains(help, "docs/providers.md") {
		t.Errorf("relay help models: exit %d\n%s", code, help)
	}
}
