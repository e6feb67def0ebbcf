package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/ext"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// The extension tests run the built binary with the extensions of
// testdata/extensions against the fake provider. They need node (>= 20)
// and npm: relay installs its TypeScript loader (jiti) with npm on first
// use; the tests install it once and share it between their agent dirs.

var (
	jitiOnce sync.Once
	jitiHome string // a directory holding node_modules/jiti
	jitiErr  error
)

func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed (extensions need Node.js >= 20; CI installs it)")
	}
	if out, err := exec.Command("node", "--version").Output(); err == nil {
		var major int
		if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "v%d.", &major); err == nil && major < ext.MinNode {
			t.Skipf("node is %s; extensions need Node.js >= %d", strings.TrimSpace(string(out)), ext.MinNode)
		}
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed (relay installs its TypeScript loader with npm; CI installs it)")
	}
	jitiOnce.Do(func() {
		dir, err := os.MkdirTemp("", "relay-e2e-jiti")
		if err != nil {
			jitiErr = err
			return
		}
		out, err := exec.Command("npm", "install", "--prefix", dir, "--no-save", "--no-audit", "--no-fund", "--loglevel=error",
			"jiti@"+ext.JitiVersion).CombinedOutput()
		if err != nil {
			jitiErr = fmt.Errorf("npm install jiti: %v\n%s", err, out)
			return
		}
		jitiHome = dir
	})
	if jitiErr != nil {
		t.Skipf("cannot install jiti for the extension tests: %v", jitiErr)
	}
}

// extEnv is newEnv with the shared jiti in place of a first-use install.
func extEnv(t *testing.T, script *llmtest.Script, settings map[string]any) *env {
	t.Helper()
	needNode(t)
	e := newEnv(t, script, settings)
	if err := os.MkdirAll(filepath.Join(e.agentDir, "ext-host", "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(jitiHome, "node_modules", "jiti"), filepath.Join(e.agentDir, "ext-host", "node_modules", "jiti")); err != nil {
		t.Fatal(err)
	}
	return e
}

// extPath is an extension of testdata/extensions, absolute.
func extPath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "extensions", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// routerExt is the virtual-model extension internal/ext's tests use too
// (one copy of the fixture).
func routerExt(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "internal", "ext", "testdata", "router.ts"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// events returns the JSON-mode events of type typ.
func eventsOf(out, typ string) []map[string]any {
	var r []map[string]any
	for _, ev := range jsonEvents(out) {
		if ev["type"] == typ {
			r = append(r, ev)
		}
	}
	return r
}

func resultText(ev map[string]any) string {
	res, _ := ev["result"].(map[string]any)
	var b strings.Builder
	blocks, _ := res["content"].([]any)
	for _, c := range blocks {
		if m, _ := c.(map[string]any); m["type"] == "text" {
			b.WriteString(fmt.Sprint(m["text"]))
		}
	}
	return b.String()
}

func toolEnds(out string) map[string]string {
	r := map[string]string{}
	for _, ev := range eventsOf(out, "tool_execution_end") {
		r[fmt.Sprint(ev["toolName"])+"#"+fmt.Sprint(ev["toolCallId"])] = resultText(ev)
	}
	return r
}

func TestExtensionToolAndGate(t *testing.T) {
	toolResult := true
	e := extEnv(t, &llmtest.Script{
		Rules: []llmtest.Rule{{Times: 1, When: llmtest.Match{ToolResult: &toolResult, Contains: "gated [seen by gate]"}, Response: llmtest.Response{
			ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "c3", Name: "bash", Args: json.RawMessage(`{"command":"echo forbidden"}`)}}}}},
		Responses: []llmtest.Response{
			{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "c1", Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`)}}},
			{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "c2", Name: "bash", Args: json.RawMessage(`{"command":"echo hi"}`)}}},
			{Text: "all done"},
		}}, nil)
	out, errOut, code := e.run("--mode", "json", model, "-e", extPath(t, "greet.ts"), "-e", extPath(t, "gate.ts"), "go")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	ends := toolEnds(out)
	if got := ends["greet#c1"]; got != "Hello, Ada! (call c1, aborted=false)" {
		t.Errorf("greet result %q (all: %v)", got, ends)
	}
	// The streamed update reached the event stream.
	updated := false
	for _, ev := range eventsOf(out, "tool_execution_update") {
		if ev["toolName"] == "greet" && strings.Contains(fmt.Sprint(ev["partialResult"]), "working on Ada") {
			updated = true
		}
	}
	if !updated {
		t.Errorf("no tool_execution_update from greet's onUpdate:\n%s", out)
	}
	// tool_call changed the input, tool_result the content.
	if got := ends["bash#c2"]; got != "hi gated [seen by gate]" {
		t.Errorf("gated bash result %q", got)
	}
	if got := ends["bash#c3"]; !strings.Contains(got, "gate.ts refused: echo forbidden") {
		t.Errorf("blocked bash result %q", got)
	}
	// The model saw the tool (its schema, with the optional property not
	// required).
	reqs := e.fake.Requests()
	if len(reqs) == 0 || !strings.Contains(string(reqs[0].Raw), `"name":"greet"`) || !strings.Contains(string(reqs[0].Raw), `"required":["name"]`) {
		t.Errorf("first request does not declare greet with required [name]: %s", reqs[0].Raw)
	}
	e.checkSessions()
	// The session holds the rewritten result (tool_result runs before it
	// is recorded).
	b, _ := os.ReadFile(e.sessionFiles()[0])
	if !strings.Contains(string(b), "hi gated [seen by gate]") {
		t.Errorf("session does not hold the tool_result handler's content")
	}
}

func TestExtensionInputAndSystemPrompt(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "one line"}}, Repeat: true}, nil)
	out, errOut, code := e.run("-p", model, "-e", extPath(t, "transform.ts"), "-e", extPath(t, "sysprompt.ts"), "?short what is Go")
	if code != 0 || out != "one line\n" {
		t.Fatalf("exit %d stdout %q stderr %s", code, out, errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	raw := string(reqs[0].Raw)
	for _, want := range []string{"Answer in one line: what is Go", "EXTENSION RULE: always mention tangerines.", "note from sysprompt.ts"} {
		if !strings.Contains(raw, want) {
			t.Errorf("request lacks %q:\n%s", want, raw)
		}
	}
	if strings.Contains(raw, "?short") {
		t.Errorf("the untransformed input reached the model")
	}
	// "ping" is handled by the extension: no request at all.
	if _, errOut, code := e.run("-p", model, "-e", extPath(t, "transform.ts"), "ping"); code != 0 {
		t.Fatalf("ping: exit %d: %s", code, errOut)
	}
	if n := len(e.fake.Requests()); n != 1 {
		t.Errorf("handled input still reached the model (%d requests)", n)
	}
}

func TestExtensionProviderPayload(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}}, nil)
	if _, errOut, code := e.run("-p", model, "-e", extPath(t, "payload.ts"), "hi"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Raw), `"user_id":"payload-ext"`) {
		t.Fatalf("payload not replaced: %v", reqs)
	}
	b, err := os.ReadFile(filepath.Join(e.cwd, "responses.log"))
	if err != nil || strings.TrimSpace(string(b)) != "status 200" {
		t.Errorf("after_provider_response log %q (%v)", b, err)
	}
}

func TestExtensionCommandNamesSession(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}}, nil)
	if _, errOut, code := e.run("-p", model, "-e", extPath(t, "stamp.ts"), "/stamp alpha", "hello"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := len(e.fake.Requests()); n != 1 {
		t.Errorf("%d requests: the command must not reach the model", n)
	}
	e.checkSessions()
	b, _ := os.ReadFile(e.sessionFiles()[0])
	s := string(b)
	if !strings.Contains(s, `"name":"stamped alpha"`) {
		t.Errorf("session not named by setSessionName:\n%s", s)
	}
	if !strings.Contains(s, `"customType":"stamp"`) || !strings.Contains(s, `"hasUI":false`) {
		t.Errorf("appendEntry missing or ctx wrong:\n%s", s)
	}
}

func TestExtensionTerminatingTool(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "s1", Name: "submit", Args: json.RawMessage(`{"answer":"42"}`)}}},
		{Text: "must not be asked"},
	}}, nil)
	out, errOut, code := e.run("--mode", "json", model, "-e", extPath(t, "submit.ts"), "answer")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := toolEnds(out)["submit#s1"]; got != "submitted 42" {
		t.Errorf("submit result %q", got)
	}
	if n := len(e.fake.Requests()); n != 1 {
		t.Errorf("%d model requests; a terminating tool ends the run after its batch", n)
	}
	e.checkSessions()
}

func TestExtensionOwnDependencyAndDiscovery(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "p1", Name: "pad", Args: json.RawMessage(`{"word":"hey"}`)}}},
		{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "g1", Name: "greet", Args: json.RawMessage(`{"name":"Bo","shout":true}`)}}},
		{Text: "done"},
	}}, map[string]any{"extensions": []string{extPath(t, "withdeps")}})
	// The agent dir's extensions/ is discovered.
	dir := filepath.Join(e.agentDir, "extensions")
	os.MkdirAll(dir, 0o755)
	src, _ := os.ReadFile(extPath(t, "greet.ts"))
	os.WriteFile(filepath.Join(dir, "greet.ts"), src, 0o644)
	out, errOut, code := e.run("--mode", "json", model, "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	ends := toolEnds(out)
	if ends["pad#p1"] != "*******hey" {
		t.Errorf("pad (own node_modules dependency) = %q", ends["pad#p1"])
	}
	if ends["greet#g1"] != "HELLO, BO!" {
		t.Errorf("greet from the agent dir's extensions/ = %q", ends["greet#g1"])
	}
	// --no-extensions drops discovery and settings.
	out, _, _ = e.run("--mode", "json", model, "-ne", "again")
	if reqs := e.fake.Requests(); strings.Contains(string(reqs[len(reqs)-1].Raw), `"name":"greet"`) {
		t.Errorf("--no-extensions still declared greet")
	}
	_ = out
}

func TestExtensionBadInput(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "d1", Name: "dupok", Args: json.RawMessage(`{}`)}}},
		{Text: "fine"},
	}}, nil)
	args := []string{"--mode", "json", model}
	for _, f := range []string{"faults/syntax.ts", "faults/nodefault.ts", "faults/loadthrow.ts", "faults/badschema.ts", "faults/dup.ts", "stamp.ts"} {
		args = append(args, "-e", extPath(t, f))
	}
	out, errOut, code := e.run(append(args, "go")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		extPath(t, "faults/syntax.ts") + ": ParseError",
		extPath(t, "faults/nodefault.ts") + ": nodefault.ts has no default export function",
		extPath(t, "faults/loadthrow.ts") + ": factory exploded",
		extPath(t, "faults/badschema.ts") + ": registerTool bad: parameters must be an object schema",
		extPath(t, "stamp.ts") + ": command /stamp: already registered by " + extPath(t, "faults/dup.ts"),
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// What failed left nothing behind; what loaded works.
	raw := string(e.fake.Requests()[0].Raw)
	if strings.Contains(raw, `"name":"half"`) {
		t.Errorf("a failed registration reached the model: %s", raw)
	}
	// A tool named like a built-in replaces it (the original's rule).
	if !strings.Contains(raw, `"description":"shadow"`) || strings.Contains(errOut, "tool read") {
		t.Errorf("dup.ts's read did not replace the built-in quietly (stderr %s)", errOut)
	}
	if got := toolEnds(out)["dupok#d1"]; got != "dupok ran" {
		t.Errorf("dupok (the rest of dup.ts) = %q", got)
	}
	e.checkSessions()
}

func TestExtensionFaults(t *testing.T) {
	toolResult := true
	e := extEnv(t, &llmtest.Script{
		Rules: []llmtest.Rule{{When: llmtest.Match{ToolResult: &toolResult}, Response: llmtest.Response{Text: "noted"}}},
		Responses: []llmtest.Response{
			{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "b1", Name: "boom", Args: json.RawMessage(`{}`)}}},
			{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "b2", Name: "bash", Args: json.RawMessage(`{"command":"echo x"}`)}}},
			{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "k1", Name: "crash", Args: json.RawMessage(`{}`)}}},
			{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "a1", Name: "alive", Args: json.RawMessage(`{}`)}}},
		}}, nil)
	throws, crash := extPath(t, "faults/throws.ts"), extPath(t, "faults/crash.ts")
	out, errOut, code := e.run("--mode", "json", model, "-e", throws, "-e", crash, "one", "two", "three", "four")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	errs := map[string]int{}
	for _, ev := range eventsOf(out, "extension_error") {
		errs[fmt.Sprintf("%s|%s|%s", ev["extensionPath"], ev["event"], ev["error"])]++
	}
	for _, want := range []string{
		throws + "|input|input handler broke",
		throws + "|tool:boom|boom failed",
		throws + "|tool_call|gate broke",
	} {
		if errs[want] == 0 {
			t.Errorf("no extension_error %q in %v", want, errs)
		}
	}
	exits := 0
	for k, n := range errs {
		if strings.Contains(k, "|host_exit|") {
			exits += n
			if !strings.Contains(k, "restarting it") {
				t.Errorf("host exit report %q", k)
			}
		}
	}
	if exits != 1 {
		t.Errorf("host crash reported %d times, want once: %v", exits, errs)
	}
	ends := toolEnds(out)
	if !strings.Contains(ends["boom#b1"], "boom failed") {
		t.Errorf("boom = %q", ends["boom#b1"])
	}
	if !strings.Contains(ends["bash#b2"], "Blocked by "+throws+": gate broke") {
		t.Errorf("a failing tool_call handler must block: %q", ends["bash#b2"])
	}
	if ends["alive#a1"] != "alive again" {
		t.Errorf("after the host crash, alive = %q", ends["alive#a1"])
	}
	// Four prompts answered: the input handler's failure skipped it.
	if n := len(e.fake.Requests()); n < 8 {
		t.Errorf("%d requests, want 8", n)
	}
	e.checkSessions()
}

func TestExtensionHandlerTimeout(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{{Type: "toolCall", ID: "h1", Name: "bash", Args: json.RawMessage(`{"command":"echo x"}`)}}},
		{Text: "after"},
	}}, nil)
	c := e.cmd(nil, "--mode", "json", model, "-e", extPath(t, "faults/hang.ts"), "go")
	c.Env = append(c.Env, "RELAY_EXTENSION_TIMEOUT_MS=300")
	out, errOut, code := runTimed(t, c, 2*time.Minute)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := toolEnds(out)["bash#h1"]; !strings.Contains(got, "did not return within 300ms") {
		t.Errorf("hung tool_call handler: %q", got)
	}
	e.checkSessions()
}

func TestNoExtensionsNoHost(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}}, nil)
	if _, errOut, code := e.run("-p", model, "hi"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, p := range []string{"ext-host", "extensions.log"} {
		if _, err := os.Stat(filepath.Join(e.agentDir, p)); err == nil {
			t.Errorf("%s exists: the extension host was prepared with no extension configured", p)
		}
	}
}

func TestExtensionVirtualModel(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "routed"}}, Repeat: true}, nil)
	out, errOut, code := e.run("-p", model, "-e", routerExt(t), "/use-auto", "hi")
	if code != 0 || out != "routed\n" {
		t.Fatalf("exit %d stdout %q stderr %s", code, out, errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 1 || requestModel(t, reqs[0]) != "claude-haiku-4-5" {
		t.Fatalf("requests %d, model %q: the virtual model's route() did not pick the physical model", len(reqs), requestModel(t, reqs[0]))
	}
	e.checkSessions()
}

func TestExtensionFlags(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true}, nil)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "FLAGS plan=false persona=engineer"},
		{[]string{"--plan=true", "--persona=pirate"}, "FLAGS plan=true persona=pirate"},
	} {
		args := append([]string{"-p", model, "--no-session", "-e", extPath(t, "flags.ts")}, tc.args...)
		if _, errOut, code := e.run(append(args, "hi")...); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		reqs := e.fake.Requests()
		if raw := string(reqs[len(reqs)-1].Raw); !strings.Contains(raw, tc.want) {
			t.Errorf("%v: request lacks %q", tc.args, tc.want)
		}
	}
}

// complete and streamSimple of pi-ai reach the model through relay's
// provider and credentials (the fake provider answers both), with the
// extension's system prompt and messages.
func TestExtensionCompleteThroughRelay(t *testing.T) {
	e := extEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "first answer"}, {Text: "second answer"}, {Text: "ok"}}}, nil)
	// The prompt after the command makes the session file.
	if _, errOut, code := e.run("-p", model, "-e", extPath(t, "ask.ts"), "/ask what is up", "hello"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want complete's, streamSimple's and the prompt's", len(reqs))
	}
	if raw := string(reqs[0].Raw); !strings.Contains(raw, "You answer questions.") || !strings.Contains(raw, "what is up") {
		t.Errorf("complete's request lacks the extension's system prompt or message:\n%s", raw)
	}
	if raw := string(reqs[1].Raw); !strings.Contains(raw, "first answer") || !strings.Contains(raw, "again") {
		t.Errorf("streamSimple's request lacks the conversation:\n%s", raw)
	}
	b, _ := os.ReadFile(e.sessionFiles()[0])
	s := string(b)
	for _, want := range []string{`"first":"first answer"`, `"second":"second answer"`, `"stopReason":"stop"`, `"events":["start","text_start","text_delta","text_end","done"]`} {
		if !strings.Contains(s, want) {
			t.Errorf("session lacks %s:\n%s", want, s)
		}
	}
}
