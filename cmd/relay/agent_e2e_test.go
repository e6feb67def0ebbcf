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

// rpcClient drives `relay --mode rpc` over pipes.
type rpcClient struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan map[string]any
	err   *bytes.Buffer
	seen  []map[string]any
}

func (e *env) rpc(args ...string) *rpcClient {
	e.t.Helper()
	pr, pw := io.Pipe()
	c := e.cmd(pr, append([]string{"--mode", "rpc"}, args...)...)
	stdout, _ := c.StdoutPipe()
	errBuf := &bytes.Buffer{}
	c.Stderr = errBuf
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	r := &rpcClient{t: e.t, cmd: c, in: pw, lines: make(chan map[string]any, 10000), err: errBuf}
	go func() {
		br := bufio.NewReader(stdout)
		for {
			l, err := br.ReadBytes('\n')
			if len(l) > 0 {
				var m map[string]any
				if json.Unmarshal(l, &m) == nil {
					r.lines <- m
				}
			}
			if err != nil {
				close(r.lines)
				return
			}
		}
	}()
	e.t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return r
}

func (r *rpcClient) send(s string) { io.WriteString(r.in, s+"\n") }

func (r *rpcClient) wait(what string, pred func(map[string]any) bool) map[string]any {
	r.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("stream closed waiting for %s; stderr: %s", what, r.err.String())
			}
			r.seen = append(r.seen, m)
			if pred(m) {
				return m
			}
		case <-timeout:
			r.t.Fatalf("timed out waiting for %s; stderr: %s", what, r.err.String())
		}
	}
}

func (r *rpcClient) response(cmd string) map[string]any {
	return r.wait("response "+cmd, func(m map[string]any) bool { return m["type"] == "response" && m["command"] == cmd })
}

func (r *rpcClient) event(typ string) map[string]any {
	return r.wait(typ, func(m map[string]any) bool { return m["type"] == typ })
}

func (r *rpcClient) close() {
	r.in.Close()
	done := make(chan error)
	go func() { done <- r.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		r.t.Fatal("relay did not exit after stdin closed")
	}
}

func userTexts(t *testing.T, reqs []llmtest.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, string(r.Raw))
	}
	return out
}

func TestRPCSteerAndFollowUp(t *testing.T) {
	slow := llmtest.Response{Text: "working on it slowly", ChunkSize: 2, Delay: llmtest.Duration(15 * time.Millisecond),
		ToolCalls: []llmtest.Block{tc("bash", `{"command":"echo step"}`)}}
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{slow, {Text: "after steer"}, {Text: "after follow-up"}}}, nil)
	r := e.rpc(model)
	r.send(`{"id":"1","type":"prompt","message":"start"}`)
	r.response("prompt")
	r.event("message_update")
	r.send(`{"id":"2","type":"steer","message":"STEER-NOW"}`)
	if d := r.response("steer")["data"].(map[string]any)["disposition"]; d != "queued" {
		t.Errorf("steer disposition %v", d)
	}
	r.send(`{"id":"3","type":"prompt","message":"LATER-ON","streamingBehavior":"followUp"}`)
	if d := r.response("prompt")["data"].(map[string]any)["disposition"]; d != "queued" {
		t.Errorf("follow-up disposition %v", d)
	}
	r.send(`{"id":"4","type":"prompt","message":"no behavior"}`)
	if resp := r.response("prompt"); resp["success"] != false {
		t.Errorf("prompt while streaming without streamingBehavior accepted: %v", resp)
	}
	q := r.event("queue_update")
	_ = q
	r.event("agent_settled")
	reqs := userTexts(t, e.fake.Requests())
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if !strings.Contains(reqs[1], "STEER-NOW") || strings.Contains(reqs[1], "LATER-ON") {
		t.Errorf("second request should carry the steering message only")
	}
	if !strings.Contains(reqs[2], "LATER-ON") {
		t.Errorf("third request lacks the follow-up")
	}
	r.close()
	e.checkSessions()
}

func TestRPCAbort(t *testing.T) {
	stall := llmtest.Response{Text: "partial answer", Fault: &llmtest.Fault{Stall: llmtest.Duration(20 * time.Second)}}
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{stall, {Text: "fresh"}}}, nil)
	r := e.rpc(model)
	r.send(`{"id":"1","type":"prompt","message":"go"}`)
	r.response("prompt")
	r.event("message_update")
	start := time.Now()
	r.send(`{"id":"2","type":"abort"}`)
	r.response("abort")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("abort took %v", d)
	}
	var last map[string]any
	settled := false
	for _, m := range r.seen {
		if m["type"] == "message_end" {
			last = m["message"].(map[string]any)
		}
		if m["type"] == "agent_settled" {
			settled = true
		}
	}
	if !settled {
		t.Errorf("abort answered before the agent settled")
	}
	if last["stopReason"] != "aborted" {
		t.Errorf("last message %v", last)
	}
	r.send(`{"id":"3","type":"prompt","message":"again"}`)
	r.response("prompt")
	r.event("agent_settled")
	r.send(`{"id":"4","type":"get_last_assistant_text"}`)
	if txt := r.response("get_last_assistant_text")["data"].(map[string]any)["text"]; txt != "fresh" {
		t.Errorf("after abort, answer %v", txt)
	}
	r.close()
	e.checkSessions()
}

// tinyModel registers a custom provider with a small context window on the
// fake provider.
func tinyModel(e *env, window int) string {
	models := fmt.Sprintf(`{"providers":{"anthropic":{"baseUrl":%q},"tiny":{"baseUrl":%q,"api":"anthropic-messages","apiKey":"k","models":[{"id":"tiny-1","contextWindow":%d,"maxTokens":2000}]}}}`, e.fake.URL, e.fake.URL, window)
	os.WriteFile(filepath.Join(e.agentDir, "models.json"), []byte(models), 0o644)
	return "--model=tiny/tiny-1"
}

func jsonEvents(out string) []map[string]any {
	var evs []map[string]any
	for _, l := range strings.Split(out, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			evs = append(evs, m)
		}
	}
	return evs
}

func sessionTypes(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		json.Unmarshal([]byte(l), &m)
		types = append(types, fmt.Sprint(m["type"]))
	}
	return types
}

func TestThresholdCompaction(t *testing.T) {
	summary := llmtest.Rule{When: llmtest.Match{Contains: "<conversation>"}, Response: llmtest.Response{Text: "## Goal\nsummarized history"}}
	long := strings.Repeat("history words ", 400)
	e := newEnv(t, &llmtest.Script{Rules: []llmtest.Rule{summary}, Responses: []llmtest.Response{
		{Text: long, Usage: &llmtest.Usage{Input: 3000, Output: 1000}},
		{Text: "answer after compaction"},
	}}, map[string]any{"compaction": map[string]any{"reserveTokens": 500, "keepRecentTokens": 100}})
	m := tinyModel(e, 4000)
	if out, errOut, code := e.run("-p", m, "first "+long); code != 0 {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	out, errOut, code := e.run("--mode", "json", "-c", m, "second")
	if code != 0 {
		t.Fatalf("%d %s", code, errOut)
	}
	var start, end map[string]any
	for _, ev := range jsonEvents(out) {
		switch ev["type"] {
		case "compaction_start":
			start = ev
		case "compaction_end":
			end = ev
		}
	}
	if start == nil || start["reason"] != "threshold" || end == nil || end["result"] == nil {
		t.Fatalf("compaction events start=%v end=%v\n%s", start, end, errOut)
	}
	files := e.sessionFiles()
	types := strings.Join(sessionTypes(t, files[0]), ",")
	if !strings.Contains(types, "compaction") {
		t.Errorf("no compaction entry: %s", types)
	}
	reqs := userTexts(t, e.fake.Requests())
	last := reqs[len(reqs)-1]
	if !strings.Contains(last, "summarized history") || strings.Contains(last, "first history") {
		t.Errorf("request after compaction does not use the summary")
	}
	e.checkSessions()
}

func TestOverflowRecovery(t *testing.T) {
	summary := llmtest.Rule{When: llmtest.Match{Contains: "<conversation>"}, Response: llmtest.Response{Text: "## Goal\nrecovered summary"}}
	overflow := llmtest.Response{Fault: &llmtest.Fault{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`}}
	e := newEnv(t, &llmtest.Script{Rules: []llmtest.Rule{summary}, Responses: []llmtest.Response{
		{Text: strings.Repeat("old ", 300)}, {Text: strings.Repeat("older ", 300)}, overflow, {Text: "fits now"},
	}}, map[string]any{"compaction": map[string]any{"keepRecentTokens": 50}})
	e.run("-p", model, "one")
	e.run("-p", "-c", model, "two")
	out, errOut, code := e.run("--mode", "json", "-c", model, "three")
	if code != 0 {
		t.Fatalf("%d %s", code, errOut)
	}
	var seq []string
	for _, ev := range jsonEvents(out) {
		switch ev["type"] {
		case "compaction_start", "compaction_end", "agent_end", "agent_settled":
			s := ev["type"].(string)
			if r, ok := ev["reason"].(string); ok {
				s += ":" + r
			}
			if wr, ok := ev["willRetry"].(bool); ok && wr {
				s += ":retry"
			}
			seq = append(seq, s)
		}
	}
	if got := strings.Join(seq, " "); got != "agent_end compaction_start:overflow compaction_end:overflow:retry agent_end agent_settled" {
		t.Errorf("sequence %s\n%s", got, errOut)
	}
	if !strings.Contains(out, "fits now") {
		t.Errorf("no final answer")
	}
	types := strings.Join(sessionTypes(t, e.sessionFiles()[0]), ",")
	if !strings.Contains(types, "context_edit") || !strings.Contains(types, "compaction") {
		t.Errorf("session lacks context_edit/compaction: %s", types)
	}
	e.checkSessions()
}

func TestHarnessScopeGuardEvidenceAndElision(t *testing.T) {
	t.Run("question-only turn blocks the first edit", func(t *testing.T) {
		e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{
			{ToolCalls: []llmtest.Block{tc("write", `{"path":"main.go","content":"package main\n"}`)}},
			{Text: "It prints hello."},
		}}, nil)
		out, errOut, code := e.run("-p", model, "what does main.go do?")
		if code != 0 {
			t.Fatalf("%d %q %q", code, out, errOut)
		}
		if _, err := os.Stat(filepath.Join(e.cwd, "main.go")); err == nil {
			t.Errorf("write ran in a question-only turn")
		}
		if !strings.Contains(string(e.fake.Requests()[1].Raw), `"is_error":true`) {
			t.Errorf("the model was not told the edit was blocked")
		}
	})
	t.Run("done without checks gets one verification request", func(t *testing.T) {
		e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{
			{ToolCalls: []llmtest.Block{tc("write", `{"path":"fix.go","content":"package fix\n"}`)}},
			{Text: "Done, the bug is fixed."},
			{Text: "I could not run tests; here is what I checked."},
		}}, nil)
		out, errOut, code := e.run("-p", model, "fix the bug in fix.go")
		if code != 0 {
			t.Fatalf("%d %q %q", code, out, errOut)
		}
		reqs := e.fake.Requests()
		if len(reqs) != 3 || !strings.Contains(string(reqs[2].Raw), "[harness:evidence]") {
			t.Fatalf("%d requests; verification request missing", len(reqs))
		}
	})
	t.Run("old large results are stubbed in the request, whole in the session", func(t *testing.T) {
		var rs []llmtest.Response
		for i := 0; i < 40; i++ {
			rs = append(rs, llmtest.Response{ToolCalls: []llmtest.Block{tc("bash", fmt.Sprintf(`{"command":"printf 'x%%.0s' $(seq 1 2000); echo %d"}`, i))}})
		}
		rs = append(rs, llmtest.Response{Text: "done reading"})
		e := newEnv(t, &llmtest.Script{Responses: rs, ZeroLatency: true}, nil)
		if out, errOut, code := e.run("-p", model, "read the logs"); code != 0 {
			t.Fatalf("%d %q %q", code, out, errOut)
		}
		reqs := e.fake.Requests()
		last := string(reqs[len(reqs)-1].Raw)
		if n := strings.Count(last, "[harness:context]"); n < 24 {
			t.Errorf("last request has %d stubs", n)
		}
		b, _ := os.ReadFile(e.sessionFiles()[0])
		if n := strings.Count(string(b), strings.Repeat("x", 2000)); n != 40 {
			t.Errorf("session keeps %d whole results, want 40", n)
		}
	})
}
