package main

import (
	"bufio"
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

// The end-to-end tests run the built binary against the fake provider.

var relayBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "relay-e2e-bin")
	if err != nil {
		panic(err)
	}
	relayBin = filepath.Join(dir, "relay")
	out, err := exec.Command("go", "build", "-o", relayBin, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build relay: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one isolated relay installation: agent dir, project dir and a
// fake provider that every built-in Anthropic model points at.
type env struct {
	t        *testing.T
	agentDir string
	cwd      string
	fake     *llmtest.Server
}

func newEnv(t *testing.T, script *llmtest.Script, settings map[string]any) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, agentDir: filepath.Join(root, "agent"), cwd: filepath.Join(root, "proj"), fake: llmtest.NewServer(script)}
	t.Cleanup(e.fake.Close)
	os.MkdirAll(e.agentDir, 0o755)
	os.MkdirAll(e.cwd, 0o755)
	models := fmt.Sprintf(`{"providers":{"anthropic":{"baseUrl":%q}}}`, e.fake.URL)
	os.WriteFile(filepath.Join(e.agentDir, "models.json"), []byte(models), 0o644)
	if settings == nil {
		settings = map[string]any{}
	}
	if _, ok := settings["retry"]; !ok {
		settings["retry"] = map[string]any{"baseDelayMs": 1, "maxRetries": 2}
	}
	b, _ := json.Marshal(settings)
	os.WriteFile(filepath.Join(e.agentDir, "settings.json"), b, 0o644)
	return e
}

func (e *env) cmd(stdin io.Reader, args ...string) *exec.Cmd {
	c := exec.Command(relayBin, args...)
	c.Dir = e.cwd
	c.Env = append(os.Environ(), "RELAY_CODING_AGENT_DIR="+e.agentDir, "ANTHROPIC_API_KEY=test-key", "RELAY_OFFLINE=1",
		"OPENAI_API_KEY=", "GEMINI_API_KEY=", "RELAY_CODING_AGENT_SESSION_DIR=")
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	c.Stdin = stdin
	return c
}

func (e *env) run(args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	c := e.cmd(nil, args...)
	var o, er bytes.Buffer
	c.Stdout, c.Stderr = &o, &er
	err := c.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return o.String(), er.String(), code
}

const model = "--model=anthropic/claude-sonnet-4-5"

func (e *env) sessionFiles() []string {
	var out []string
	filepath.Walk(filepath.Join(e.agentDir, "sessions"), func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func (e *env) checkSessions() {
	e.t.Helper()
	files := e.sessionFiles()
	if len(files) == 0 {
		e.t.Fatal("no session file written")
	}
	for _, f := range files {
		out, errOut, code := e.run("sessions", "check", f)
		if code != 0 {
			e.t.Errorf("sessions check %s: exit %d\n%s%s", f, code, out, errOut)
		}
	}
}

func tc(name, args string) llmtest.Block {
	return llmtest.Block{Type: "toolCall", Name: name, Args: json.RawMessage(args)}
}

func TestPrintPlainAnswer(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "Hello from the fake model.", ChunkSize: 4, Usage: &llmtest.Usage{Input: 12, Output: 7}}}}, nil)
	out, errOut, code := e.run("-p", model, "say hello")
	if code != 0 || out != "Hello from the fake model.\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Raw), "say hello") {
		t.Fatalf("requests %+v", reqs)
	}
	if got := reqs[0].Header.Get("x-api-key"); got != "test-key" {
		t.Errorf("api key header %q", got)
	}
	e.checkSessions()
}

func TestPrintMultiToolTask(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{tc("write", `{"path":"hello.txt","content":"one\ntwo\n"}`)}},
		{ToolCalls: []llmtest.Block{tc("read", `{"path":"hello.txt"}`)}},
		{ToolCalls: []llmtest.Block{tc("edit", `{"path":"hello.txt","edits":[{"oldText":"two","newText":"three"}]}`)}},
		{ToolCalls: []llmtest.Block{tc("bash", `{"command":"cat hello.txt && echo ran"}`)}},
		{Text: "All done."},
	}}, nil)
	out, errOut, code := e.run("-p", model, "make a file")
	if code != 0 || out != "All done.\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	b, err := os.ReadFile(filepath.Join(e.cwd, "hello.txt"))
	if err != nil || string(b) != "one\nthree\n" {
		t.Fatalf("hello.txt = %q, %v", b, err)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !strings.Contains(string(reqs[4].Raw), "ran") || !strings.Contains(string(reqs[2].Raw), "one\\ntwo") {
		t.Errorf("tool results not sent back to the model")
	}
	e.checkSessions()
}

func TestJSONModeStream(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{tc("bash", `{"command":"echo hi"}`)}},
		{Text: "Hello world", ChunkSize: 3},
	}}, nil)
	out, errOut, code := e.run("--mode", "json", model, "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var header map[string]any
	json.Unmarshal([]byte(lines[0]), &header)
	if header["type"] != "session" || header["version"] != float64(3) {
		t.Fatalf("first record %s", lines[0])
	}
	var types []string
	text := ""
	for _, l := range lines[1:] {
		var ev map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("bad record %q: %v", l, err)
		}
		var typ string
		json.Unmarshal(ev["type"], &typ)
		types = append(types, typ)
		if typ == "message_update" {
			if _, ok := ev["message"]; ok {
				t.Fatalf("message_update carries a message snapshot: %s", l)
			}
			var ame struct {
				Type    string `json:"type"`
				Delta   string `json:"delta"`
				Partial any    `json:"partial"`
			}
			json.Unmarshal(ev["assistantMessageEvent"], &ame)
			if ame.Partial != nil {
				t.Fatalf("partial on the wire: %s", l)
			}
			if ame.Type == "text_delta" {
				text += ame.Delta
			}
		}
	}
	if text != "Hello world" {
		t.Errorf("deltas join to %q", text)
	}
	joined := strings.Join(types, " ")
	for _, want := range []string{"agent_start turn_start message_start message_end message_start", "tool_execution_start", "tool_execution_end", "turn_end", "agent_end agent_settled"} {
		if !strings.Contains(joined, want) {
			t.Errorf("event sequence lacks %q:\n%s", want, joined)
		}
	}
	if types[len(types)-1] != "agent_settled" {
		t.Errorf("last event %s", types[len(types)-1])
	}
	e.checkSessions()
}

func TestTwentyToolTurns(t *testing.T) {
	var rs []llmtest.Response
	for i := 0; i < 20; i++ {
		rs = append(rs, llmtest.Response{ToolCalls: []llmtest.Block{tc("bash", fmt.Sprintf(`{"command":"echo %d"}`, i))}})
	}
	rs = append(rs, llmtest.Response{Text: "twenty"})
	e := newEnv(t, &llmtest.Script{Responses: rs, ZeroLatency: true}, nil)
	out, errOut, code := e.run("-p", model, "loop")
	if code != 0 || out != "twenty\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if n := len(e.fake.Requests()); n != 21 {
		t.Errorf("%d requests", n)
	}
	e.checkSessions()
}

func TestProviderFaults(t *testing.T) {
	tests := []struct {
		name     string
		resp     []llmtest.Response
		wantOut  string
		wantCode int
		wantErr  string
	}{
		{"529 then success", []llmtest.Response{{Fault: &llmtest.Fault{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}}, {Text: "recovered"}}, "recovered\n", 0, ""},
		{"overloaded inside the stream", []llmtest.Response{{Text: "partial ", Fault: &llmtest.Fault{ErrorType: "overloaded_error", ErrorMessage: "Overloaded"}}, {Text: "second try"}}, "second try\n", 0, ""},
		{"connection cut", []llmtest.Response{{Text: "some long text that will be cut", Fault: &llmtest.Fault{CutAfter: 200}}, {Text: "after cut"}}, "after cut\n", 0, ""},
		{"auth error is final", []llmtest.Response{{Fault: &llmtest.Fault{Status: 401, Body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`}}}, "", 1, "invalid x-api-key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, &llmtest.Script{Responses: tt.resp}, nil)
			out, errOut, code := e.run("-p", model, "hi")
			if code != tt.wantCode || out != tt.wantOut || !strings.Contains(errOut, tt.wantErr) {
				t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
			}
			e.checkSessions()
		})
	}
}

func TestContinueResumesSession(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "first"}, {Text: "second"}}}, nil)
	if out, errOut, code := e.run("-p", model, "one"); code != 0 || out != "first\n" {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	if out, errOut, code := e.run("-p", "-c", "two"); code != 0 || out != "second\n" {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	reqs := e.fake.Requests()
	body := string(reqs[1].Raw)
	if !strings.Contains(body, `"one"`) || !strings.Contains(body, "first") {
		t.Errorf("continued request lacks history: %s", body)
	}
	if files := e.sessionFiles(); len(files) != 1 {
		t.Errorf("%d session files, want 1", len(files))
	}
	e.checkSessions()
}

func TestResumeHandWrittenSession(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "resumed fine"}}}, nil)
	dir := filepath.Join(e.agentDir, "sessions", "--"+strings.ReplaceAll(strings.TrimPrefix(e.cwd, "/"), "/", "-")+"--")
	os.MkdirAll(dir, 0o755)
	lines := []string{
		`{"type":"session","version":3,"id":"0192f3a0-0000-7000-8000-000000000001","timestamp":"2024-12-03T14:00:00.000Z","cwd":"` + e.cwd + `"}`,
		`{"type":"message","id":"a0b1c2d3","parentId":null,"timestamp":"2024-12-03T14:00:00.000Z","message":{"role":"system","content":"","sections":{"preamble":"You are an expert coding assistant...","cwd":"/project"},"toolsAdded":[{"name":"read","description":"...","parameters":{}}],"timestamp":1733234400000}}`,
		`{"type":"message","id":"a1b2c3d4","parentId":"a0b1c2d3","timestamp":"2024-12-03T14:00:01.000Z","message":{"role":"user","content":"Hello","timestamp":1733234401000}}`,
		`{"type":"message","id":"b2c3d4e5","parentId":"a1b2c3d4","timestamp":"2024-12-03T14:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Hi!"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1733234402000}}`,
		`{"type":"model_change","id":"d4e5f6a7","parentId":"b2c3d4e5","timestamp":"2024-12-03T14:05:00.000Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}`,
		`{"type":"label","id":"j0k1l2m3","parentId":"d4e5f6a7","timestamp":"2024-12-03T14:30:00.000Z","targetId":"a1b2c3d4","label":"checkpoint-1"}`,
	}
	path := filepath.Join(dir, "2024-12-03T14-00-00-000Z_0192f3a0-0000-7000-8000-000000000001.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	out, errOut, code := e.run("-p", "--session", path, "again")
	if code != 0 || out != "resumed fine\n" {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	body := string(e.fake.Requests()[0].Raw)
	if !strings.Contains(body, "Hello") || !strings.Contains(body, "Hi!") || !strings.Contains(body, "again") {
		t.Errorf("request lacks the resumed history: %s", body)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), strings.Join(lines, "\n")+"\n") {
		t.Errorf("existing lines were rewritten")
	}
	e.checkSessions()
}

func TestHarnessRefusesDestructiveCommandInJSONMode(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{tc("bash", `{"command":"rm -rf build"}`)}},
		{Text: "I need your approval to delete build."},
	}}, nil)
	os.MkdirAll(filepath.Join(e.cwd, "build"), 0o755)
	out, errOut, code := e.run("--mode", "json", model, "tidy up the project")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(e.cwd, "build")); err != nil {
		t.Fatalf("build was deleted without approval")
	}
	found := false
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `"type":"tool_execution_end"`) && strings.Contains(l, `"isError":true`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no refused tool result in the stream:\n%s", out)
	}
}

func TestRPCMode(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "rpc answer"}}}, nil)
	pr, pw := io.Pipe()
	c := e.cmd(pr, "--mode", "rpc", model)
	stdout, _ := c.StdoutPipe()
	var errBuf bytes.Buffer
	c.Stderr = &errBuf
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan map[string]any, 1000)
	go func() {
		r := bufio.NewReader(stdout)
		for {
			l, err := r.ReadBytes('\n')
			if len(l) > 0 {
				var m map[string]any
				if json.Unmarshal(l, &m) == nil {
					lines <- m
				}
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	send := func(s string) { io.WriteString(pw, s+"\n") }
	wait := func(pred func(map[string]any) bool) map[string]any {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatalf("stream closed; stderr: %s", errBuf.String())
				}
				if pred(m) {
					return m
				}
			case <-timeout:
				t.Fatalf("timed out; stderr: %s", errBuf.String())
			}
		}
	}
	isResp := func(cmd string) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["type"] == "response" && m["command"] == cmd }
	}
	send(`not json`)
	if r := wait(isResp("parse")); r["success"] != false || !strings.HasPrefix(r["error"].(string), "Failed to parse command") {
		t.Errorf("parse error response %v", r)
	}
	send(`{"id":"s1","type":"get_state"}`)
	st := wait(isResp("get_state"))
	if st["id"] != "s1" || st["success"] != true {
		t.Errorf("get_state %v", st)
	}
	send(`{"id":"p1","type":"prompt","message":"hello rpc"}`)
	if r := wait(isResp("prompt")); r["data"].(map[string]any)["disposition"] != "started" {
		t.Errorf("prompt response %v", r)
	}
	wait(func(m map[string]any) bool { return m["type"] == "agent_settled" })
	send(`{"id":"t1","type":"get_last_assistant_text"}`)
	if r := wait(isResp("get_last_assistant_text")); r["data"].(map[string]any)["text"] != "rpc answer" {
		t.Errorf("last text %v", r)
	}
	send(`{"id":"e1","type":"get_entries"}`)
	if r := wait(isResp("get_entries")); len(r["data"].(map[string]any)["entries"].([]any)) < 3 {
		t.Errorf("entries %v", r)
	}
	send(`{"id":"u1","type":"no_such_command"}`)
	if r := wait(isResp("no_such_command")); r["success"] != false {
		t.Errorf("unknown command %v", r)
	}
	pw.Close()
	done := make(chan error)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("rpc exit: %v %s", err, errBuf.String())
		}
	case <-time.After(10 * time.Second):
		c.Process.Kill()
		t.Fatal("relay did not exit after stdin closed")
	}
	e.checkSessions()
}

func TestArgumentErrors(t *testing.T) {
	e := newEnv(t, &llmtest.Script{}, nil)
	for _, args := range [][]string{{"-x"}, {"--mode", "xml"}, {"--fork", "a", "-c"}, {"-p", "@missing.txt"}} {
		_, errOut, code := e.run(args...)
		if code != 1 || !strings.HasPrefix(errOut, "Error: ") {
			t.Errorf("%v: exit %d stderr %q", args, code, errOut)
		}
	}
	out, _, code := e.run("--version")
	if code != 0 || strings.TrimSpace(out) == "" {
		t.Errorf("--version: %d %q", code, out)
	}
}
