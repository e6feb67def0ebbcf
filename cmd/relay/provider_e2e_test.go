package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// Provider extensions end to end: registerProvider with a custom
// streamSimple, selected with --model at start-up, listed by
// --list-models.

// scriptedExt is internal/ext's provider extension (a streamSimple that
// answers from the last user message).
func scriptedExt(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "internal", "ext", "testdata", "provider.ts"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (e *env) runEnv(extra []string, args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	c := e.cmd(nil, args...)
	c.Env = append(c.Env, extra...)
	var o, er bytes.Buffer
	c.Stdout, c.Stderr = &o, &er
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return o.String(), er.String(), code
}

func TestExtensionProviderStartupModel(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "unused"}}}, nil)
	key := []string{"SCRIPTED_KEY=sk-e2e"}
	// -p --model names the extension's model: resolved once it loaded.
	out, errOut, code := e.runEnv(key, "-p", "--model", "scripted/echo", "-e", scriptedExt(t), "hello there")
	if code != 0 || out != "echo: hello there\n" {
		t.Fatalf("exit %d stdout %q stderr %s", code, out, errOut)
	}
	if n := len(e.fake.Requests()); n != 0 {
		t.Errorf("%d requests reached the fake provider; the extension's stream should answer", n)
	}
	// JSON mode: the stream's events reach the event stream.
	out, errOut, code = e.runEnv(key, "--mode", "json", "--model", "scripted/echo", "-e", scriptedExt(t), "think")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errOut)
	}
	var kinds []string
	for _, ev := range eventsOf(out, "message_update") {
		if ae, _ := ev["assistantMessageEvent"].(map[string]any); ae != nil {
			kinds = append(kinds, fmt.Sprint(ae["type"]))
		}
	}
	if got := strings.Join(kinds, ","); !strings.Contains(got, "thinking_start,thinking_delta,thinking_end,text_start") {
		t.Errorf("message_update events %s", got)
	}
	// --list-models lists the extension's provider.
	out, errOut, code = e.runEnv(key, "--list-models", "scripted", "-e", scriptedExt(t))
	if code != 0 || !strings.Contains(out, "scripted") || !strings.Contains(out, "echo") {
		t.Errorf("--list-models: exit %d stdout %q stderr %s", code, out, errOut)
	}
	// An unknown model is still an error, saying the extensions were asked.
	_, errOut, code = e.runEnv(key, "-p", "--model", "nosuchprovider/nope-xyz", "-e", scriptedExt(t), "hi")
	if code == 0 || !strings.Contains(errOut, "nope-xyz") || !strings.Contains(errOut, "extensions loaded did not register it") {
		t.Errorf("unknown model: exit %d stderr %s", code, errOut)
	}
}

func TestExtensionProviderRPCModels(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "unused"}}}, nil)
	c := e.cmd(strings.NewReader(`{"id":"1","type":"get_available_models"}`+"\n"), "--mode", "rpc", "-e", scriptedExt(t))
	c.Env = append(c.Env, "SCRIPTED_KEY=sk-e2e")
	out, err := c.Output()
	if err != nil {
		t.Fatalf("rpc: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"provider":"scripted"`) || !strings.Contains(string(out), `"id":"echo"`) {
		t.Errorf("get_available_models lacks scripted/echo:\n%s", out)
	}
}

func TestExtensionProviderPiExample(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "custom stream ok"}}}, nil)
	// pi's example, unchanged, with its own dependency (the Anthropic
	// SDK) installed in a copy as its user would.
	src := piExample(t, "custom-provider-anthropic")
	ex := filepath.Join(t.TempDir(), "custom-provider-anthropic")
	if err := os.CopyFS(ex, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	install := exec.Command("npm", "install", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=error")
	install.Dir = ex
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("npm install in the example failed (registry unreachable?): %v\n%s", err, out)
	}
	extra := []string{"CUSTOM_ANTHROPIC_API_KEY=sk-ant-e2e", "RELAY_TEST_PROVIDER_URL=" + e.fake.URL}
	out, errOut, code := e.runEnv(extra, "-p", "--model", "custom-anthropic/claude-sonnet-4-5", "-e", ex, "-e", extPath(t, "redirect-provider.ts"), "say hi")
	if code != 0 || out != "custom stream ok\n" {
		t.Fatalf("exit %d stdout %q stderr %s", code, out, errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "sk-ant-e2e" || r.Body["model"] != "claude-sonnet-4-5" {
		t.Errorf("request %s key %q model %v", r.Path, r.Header.Get("X-Api-Key"), r.Body["model"])
	}
	b, _ := json.Marshal(r.Body["messages"])
	if !strings.Contains(string(b), "say hi") {
		t.Errorf("the example's request lacks the prompt: %s", b)
	}
	// The session records the answer under the extension's provider.
	e.checkSessions()
	s, _ := os.ReadFile(e.sessionFiles()[0])
	if !strings.Contains(string(s), `"provider":"custom-anthropic"`) || !strings.Contains(string(s), "custom stream ok") {
		t.Errorf("session does not hold the custom provider's answer")
	}
}

func TestExtensionVirtualModelAtStartup(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "routed"}}, Repeat: true}, nil)
	out, errOut, code := e.run("-p", "--model", "ext/auto", "-e", routerExt(t), "hi")
	if code != 0 || out != "routed\n" {
		t.Fatalf("exit %d stdout %q stderr %s", code, out, errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 1 || reqs[0].Body["model"] != "claude-haiku-4-5" {
		t.Fatalf("requests %d, model %v (want the route's claude-haiku-4-5)", len(reqs), reqs[0].Body["model"])
	}
	// Without the extension the name is unknown.
	if _, errOut, code := e.run("-p", "--model", "ext/auto", "hi"); code == 0 || !strings.Contains(errOut, "ext/auto") {
		t.Errorf("without the extension: exit %d stderr %s", code, errOut)
	}
}

func TestExtensionModelRegistry(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "unused"}}}, nil)
	_, errOut, code := e.runEnv([]string{"SCRIPTED_KEY=sk-e2e", "MISTRAL_API_KEY="}, "-p", model, "-e", scriptedExt(t), "-e", extPath(t, "registry.ts"), "/registry")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(e.cwd, "registry.json"))
	if err != nil {
		t.Fatalf("the command wrote nothing: %v (stderr %s)", err, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	auth, _ := got["echoAuth"].(map[string]any)
	unknown, _ := got["unknown"].(map[string]any)
	if got["echo"] != "scripted/echo scripted-api 32000" || got["all"].(float64) < 50 || got["availableHasEcho"] != true || got["configured"] != true ||
		auth["ok"] != true || auth["apiKey"] != "sk-e2e" || got["sonnetKey"] != "test-key" || got["anthropicKey"] != "test-key" ||
		unknown["ok"] != false || !strings.Contains(fmt.Sprint(unknown["error"]), "nope/x") || got["noKey"] != nil ||
		got["current"] != "anthropic/claude-sonnet-4-5" {
		t.Errorf("ctx.modelRegistry answered %s", b)
	}
}

// A project that needs a trust decision preloads the -e extensions before
// the model registry exists: their providers still land in it.
func TestExtensionProviderPreloadedForTrust(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "unused"}}}, map[string]any{"defaultProjectTrust": "always"})
	if err := os.MkdirAll(filepath.Join(e.cwd, ".relay", "extensions"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e.runEnv([]string{"SCRIPTED_KEY=sk-e2e"}, "-p", "--model", "scripted/echo", "-e", scriptedExt(t), "preloaded")
	if code != 0 || out != "echo: preloaded\n" {
		t.Fatalf("exit %d stdout %q stderr %s", code, out, errOut)
	}
}

// pi's tool-override.ts, unchanged: its read replaces relay's, blocks
// .env files and reads the others.
func TestPiExampleToolOverride(t *testing.T) {
	ext := piExample(t, "tool-override.ts")
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{
		toolCall("r1", "read", `{"path":".env"}`), toolCall("r2", "read", `{"path":"notes.txt"}`), {Text: "done"}}}, nil)
	os.WriteFile(filepath.Join(e.cwd, ".env"), []byte("SECRET=1\n"), 0o644)
	os.WriteFile(filepath.Join(e.cwd, "notes.txt"), []byte("line one\nline two\n"), 0o644)
	out, errOut, code := e.run("--mode", "json", model, "-e", ext, "read my files")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	ends := toolEnds(out)
	if got := ends["read#r1"]; !strings.Contains(got, `Access denied: ".env" matches a blocked pattern`) {
		t.Errorf(".env read %q", got)
	}
	if got := ends["read#r2"]; got != "line one\nline two\n" {
		t.Errorf("notes.txt read %q", got)
	}
	reqs := e.fake.Requests()
	raw := string(reqs[0].Raw)
	if !strings.Contains(raw, "Read the contents of a file with access logging") || strings.Count(raw, `"name":"read"`) != 1 {
		t.Errorf("the model was not offered exactly the overriding read")
	}
	// The example logs each access in the agent dir.
	log, _ := os.ReadFile(filepath.Join(e.agentDir, "read-access.log"))
	if !strings.Contains(string(log), "BLOCKED") || !strings.Contains(string(log), "ALLOWED") {
		t.Errorf("read-access.log: %q", log)
	}
}

// pi's shutdown-command.ts, unchanged: ctx.shutdown() ends RPC mode once
// the agent is idle (stdin still open), after the run that asked for it
// finished; in print mode it is a no-op.
func TestPiExampleShutdown(t *testing.T) {
	ext := piExample(t, "shutdown-command.ts")
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{toolCall("x1", "finish_and_exit", `{}`), {Text: "all finished"}}, Repeat: false}, nil)
	c := e.cmd(nil, "--mode", "rpc", "-e", ext, model)
	c.Stdin = nil
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if _, err := io.WriteString(stdin, `{"id":"1","type":"prompt","message":"wrap up"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("relay exited with %v\n%s", err, errOut.String())
		}
	case <-time.After(2 * time.Minute):
		_ = c.Process.Kill()
		t.Fatalf("ctx.shutdown() did not end RPC mode (stdin open)\nstdout %s\nstderr %s", out.String(), errOut.String())
	}
	// The run that asked finished first: the tool's result and the last
	// answer are out.
	if got := toolEnds(out.String())["finish_and_exit#x1"]; got != "Shutdown requested. Exiting after this response." {
		t.Errorf("finish_and_exit result %q", got)
	}
	if !strings.Contains(out.String(), "all finished") {
		t.Errorf("the answer after the tool is missing:\n%s", out.String())
	}
	e.checkSessions()

	// Print mode: a no-op, the run goes on to its answer.
	e2 := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{toolCall("x1", "finish_and_exit", `{}`), {Text: "print finished"}}}, nil)
	stdout, stderr, code := e2.run("-p", model, "-e", ext, "wrap up")
	if code != 0 || stdout != "print finished\n" {
		t.Errorf("print mode: exit %d stdout %q stderr %s", code, stdout, stderr)
	}
}
