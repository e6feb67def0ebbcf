package main

import (
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// context_with_system: the extension sees the system message first and
// what it returns is the request: its prompt, the tools it kept, its
// extra message.
func TestExtensionContextWithSystem(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "aye"}}}, nil)
	out, errOut, code := e.run("--mode", "json", model, "-e", extPath(t, "ctxsys.ts"), "hello")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	raw := string(reqs[0].Raw)
	if !strings.Contains(raw, "You are a pirate.") || strings.Contains(raw, "expert coding assistant") {
		t.Errorf("the system prompt is not the extension's: %.600s", raw)
	}
	if !strings.Contains(raw, "Arr, one more thing.") || !strings.Contains(raw, "hello") {
		t.Errorf("messages are not the extension's: %.600s", raw)
	}
	if !strings.Contains(raw, `"name":"bash"`) {
		t.Errorf("the tool declarations of the system message were lost")
	}
	if strings.Contains(out, `"type":"extension_error"`) {
		t.Errorf("extension errors: %s", out)
	}
}
