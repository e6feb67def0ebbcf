package main

import (
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// Print mode reads the command registry: a registered command runs and
// prints its output instead of going to the model as a prompt; an unknown
// slash word is still a prompt.
func TestPrintModeRunsRegisteredCommands(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "answered"}}}, nil)
	out, errOut, code := e.run("-p", model, "/session")
	if code != 0 || !strings.Contains(out, "Session Info") {
		t.Fatalf("/session: exit %d stdout %q stderr %q", code, out, errOut)
	}
	out, errOut, code = e.run("-p", model, "/harness")
	if code != 0 || !strings.Contains(out, "Alignment") {
		t.Fatalf("/harness: exit %d stdout %q stderr %q", code, out, errOut)
	}
	if n := len(e.fake.Requests()); n != 0 {
		t.Fatalf("registered commands reached the model: %d requests", n)
	}
	out, _, code = e.run("-p", model, "/not-a-command please")
	if code != 0 || out != "answered\n" || len(e.fake.Requests()) != 1 {
		t.Fatalf("unknown slash word: exit %d stdout %q requests %d", code, out, len(e.fake.Requests()))
	}
}
