package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// The example extensions published in pi's npm package (the same API as
// the original under the @mariozechner/pi-* names), run unchanged from
// the package .ci/run extracts: the "examples run unchanged" list
// — a tool, a tool_call gate, an input transform, a system-prompt change
// behind a command, provider payload hooks, session naming, a terminating
// tool and an extension with its own npm dependency.

// piExample is the absolute path of one of pi's examples; the test skips
// when the package is not there (CI fetches it).
func piExample(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(piPackage(), "examples", "extensions", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("pi's example %s not found (set RELAY_PI_PACKAGE, or see .ci/run): %v", name, err)
	}
	return p
}

func toolCall(id, name, args string) llmtest.Response {
	return llmtest.Response{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: id, Name: name, Args: json.RawMessage(args)}}}
}

func TestPiExampleHelloTool(t *testing.T) {
	ext := piExample(t, "hello.ts")
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{toolCall("h1", "hello", `{"name":"Bo"}`), {Text: "done"}}}, nil)
	out, errOut, code := e.run("--mode", "json", model, "-e", ext, "greet Bo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := toolEnds(out)["hello#h1"]; got != "Hello, Bo!" {
		t.Errorf("hello result %q\n%s", got, errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) == 0 || !strings.Contains(string(reqs[0].Raw), `"A simple greeting tool"`) {
		t.Errorf("the hello tool was not offered to the model")
	}
	e.checkSessions()
}

func TestPiExamplePermissionGate(t *testing.T) {
	ext := piExample(t, "permission-gate.ts")
	victim := filepath.Join(t.TempDir(), "keep")
	if err := os.WriteFile(victim, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(victim)
	if err != nil {
		t.Fatal(err)
	}
	// chmod 777 is the example's pattern that relay's own harness lets
	// through (it stops rm -rf first).
	args, _ := json.Marshal(map[string]string{"command": "chmod 777 " + victim})
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{toolCall("b1", "bash", string(args)), {Text: "ok"}}}, nil)
	out, errOut, code := e.run("--mode", "json", model, "-e", ext, "clean up")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := toolEnds(out)["bash#b1"]; !strings.Contains(got, "Dangerous command blocked (no UI for confirmation)") {
		t.Errorf("bash result %q: the gate did not block", got)
	}
	if after, err := os.Stat(victim); err != nil {
		t.Error(err)
	} else if after.Mode() != before.Mode() {
		t.Errorf("the blocked command ran: mode %v, was %v", after.Mode(), before.Mode())
	}
}

func TestPiExampleInputTransform(t *testing.T) {
	ext := piExample(t, "input-transform.ts")
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "brief"}}, Repeat: true}, nil)
	if _, errOut, code := e.run("-p", model, "-e", ext, "?quick what is a goroutine"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Raw), "Respond briefly in 1-2 sentences: what is a goroutine") {
		t.Fatalf("input not transformed: %d requests", len(reqs))
	}
	// "ping" is handled by the extension: nothing reaches the model.
	if _, errOut, code := e.run("-p", model, "-e", ext, "ping"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := len(e.fake.Requests()); n != 1 {
		t.Errorf("%d requests after a handled input, want 1", n)
	}
}

func TestPiExamplePirateCommandChangesSystemPrompt(t *testing.T) {
	ext := piExample(t, "pirate.ts")
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "Arrr"}}, Repeat: true}, nil)
	if _, errOut, code := e.run("-p", model, "-e", ext, "/pirate", "hello"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests; /pirate must not reach the model", len(reqs))
	}
	sys, _ := json.Marshal(reqs[0].Body["system"])
	if !strings.Contains(string(sys), "PIRATE MODE") {
		t.Errorf("system prompt not changed by before_agent_start: %s", sys)
	}
	// Without the command the prompt is relay's own.
	if _, errOut, code := e.run("-p", model, "-e", ext, "hello"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs = e.fake.Requests()
	sys, _ = json.Marshal(reqs[len(reqs)-1].Body["system"])
	if strings.Contains(string(sys), "PIRATE MODE") {
		t.Errorf("pirate mode on without /pirate")
	}
}

func TestPiExampleProviderPayload(t *testing.T) {
	ext := piExample(t, "provider-payload.ts")
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}}, nil)
	if err := os.MkdirAll(filepath.Join(e.cwd, ".pi"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := e.run("-p", model, "-e", ext, "log me"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(e.cwd, ".pi", "provider-payload.log"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, `"model": "claude-sonnet-4-5"`) || !strings.Contains(s, "log me") {
		t.Errorf("before_provider_request payload not logged:\n%.400s", s)
	}
	if !strings.Contains(s, "[200] {") {
		t.Errorf("after_provider_response not logged:\n%.400s", s)
	}
}

func TestPiExampleSessionName(t *testing.T) {
	ext := piExample(t, "session-name.ts")
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}}, nil)
	if _, errOut, code := e.run("-p", model, "-e", ext, "/session-name release prep", "hello"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	e.checkSessions()
	files := e.sessionFiles()
	if len(files) != 1 {
		t.Fatalf("%d session files", len(files))
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), `"name":"release prep"`) {
		t.Errorf("session not named:\n%s", b)
	}
}

func TestPiExampleStructuredOutputTerminates(t *testing.T) {
	ext := piExample(t, "structured-output.ts")
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{
		toolCall("s1", "structured_output", `{"headline":"Ship it","summary":"All green.","actionItems":["tag","announce"]}`),
		{Text: "must not be asked"},
	}}, nil)
	out, errOut, code := e.run("--mode", "json", model, "-e", ext, "summarize as structured output")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := toolEnds(out)["structured_output#s1"]; got != "Saved structured output: Ship it" {
		t.Errorf("structured_output result %q", got)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 1 {
		t.Errorf("%d model requests; a terminating tool ends the run", len(reqs))
	}
	if len(reqs) > 0 && !strings.Contains(string(reqs[0].Raw), "Emit a final structured answer as a terminating tool result") {
		t.Errorf("promptSnippet not in the system prompt")
	}
}

func TestPiExampleWithOwnDependency(t *testing.T) {
	src := piExample(t, "with-deps")
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{toolCall("d1", "parse_duration", `{"duration":"2 days"}`), {Text: "ok"}}}, nil)
	// The published example ships without node_modules: install its own
	// dependency (ms) in a copy, as its user would.
	dir := filepath.Join(t.TempDir(), "with-deps")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	install := exec.Command("npm", "install", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=error")
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("npm install in the example failed (registry unreachable?): %v\n%s", err, out)
	}
	out, errOut, code := e.run("--mode", "json", model, "-e", dir, "how long is 2 days")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := toolEnds(out)["parse_duration#d1"]; got != "2 days = 172800000 milliseconds" {
		t.Errorf("parse_duration result %q\n%s", got, errOut)
	}
}
