package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// These tests drive `relay --mode rpc` through every command of the RPC
// protocol (rpc-commands.md), with the fake provider answering at once.

// rpcStart is env.rpc whose stdin pipe is closed at cleanup, so a test
// that fails midway does not leave the process's stdin copier blocked.
func rpcStart(e *env, args ...string) *rpcClient {
	r := e.rpc(args...)
	e.t.Cleanup(func() { r.in.Close() })
	return r
}

// call sends cmd (a JSON object without id) with the given id and returns
// the response that carries that id.
func (r *rpcClient) call(id, cmd string) map[string]any {
	r.t.Helper()
	line := `{"id":"` + id + `",` + strings.TrimPrefix(cmd, "{")
	r.send(line)
	return r.wait("response id "+id, func(m map[string]any) bool { return m["type"] == "response" && m["id"] == id })
}

// ok is call that must succeed; it returns data (nil when absent).
func (r *rpcClient) ok(id, cmd string) any {
	r.t.Helper()
	resp := r.call(id, cmd)
	if resp["success"] != true {
		r.t.Fatalf("%s failed: %v", cmd, resp)
	}
	return resp["data"]
}

// fail is call that must fail; it returns the error text.
func (r *rpcClient) fail(id, cmd string) string {
	r.t.Helper()
	resp := r.call(id, cmd)
	if resp["success"] != false {
		r.t.Fatalf("%s succeeded: %v", cmd, resp)
	}
	if _, has := resp["data"]; has {
		r.t.Errorf("failure response carries data: %v", resp)
	}
	msg, _ := resp["error"].(string)
	if msg == "" {
		r.t.Errorf("failure without error text: %v", resp)
	}
	return msg
}

// settle prompts and waits for agent_settled.
func (r *rpcClient) promptSettled(id, text string) {
	r.t.Helper()
	mark := len(r.seen)
	d := obj(r.t, r.ok(id, `{"type":"prompt","message":`+jsonString(text)+`}`))
	if d["disposition"] != "started" {
		r.t.Fatalf("prompt disposition %v", d)
	}
	r.since(mark, "agent_settled")
}

// saw returns the newest record of type typ already read (events sent
// before a command's response are read while waiting for it).
func (r *rpcClient) saw(typ string) map[string]any {
	r.t.Helper()
	for i := len(r.seen) - 1; i >= 0; i-- {
		if r.seen[i]["type"] == typ {
			return r.seen[i]
		}
	}
	r.t.Fatalf("no %s record seen", typ)
	return nil
}

// since returns the first record of type typ read from index mark on,
// waiting for it when it has not arrived yet.
func (r *rpcClient) since(mark int, typ string) map[string]any {
	r.t.Helper()
	for _, m := range r.seen[mark:] {
		if m["type"] == typ {
			return m
		}
	}
	return r.event(typ)
}

// exitCode closes stdin and returns relay's exit code.
func (r *rpcClient) exitCode() int {
	r.t.Helper()
	r.close()
	return r.cmd.ProcessState.ExitCode()
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func obj(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("not an object: %#v", v)
	}
	return m
}

func list(t *testing.T, v any) []any {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("not an array: %#v", v)
	}
	return l
}

func hasKeys(t *testing.T, what string, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s lacks %q: %v", what, k, m)
		}
	}
}

func checkModel(t *testing.T, v any) map[string]any {
	t.Helper()
	m := obj(t, v)
	hasKeys(t, "model", m, "id", "name", "api", "provider", "baseUrl", "reasoning", "input", "contextWindow", "maxTokens", "cost")
	hasKeys(t, "model cost", obj(t, m["cost"]), "input", "output", "cacheRead", "cacheWrite")
	return m
}

func quick(texts ...string) *llmtest.Script {
	s := &llmtest.Script{ZeroLatency: true}
	for _, t := range texts {
		s.Responses = append(s.Responses, llmtest.Response{Text: t})
	}
	return s
}

func TestRPCFraming(t *testing.T) {
	e := newEnv(t, quick("first answer", "big answer"), nil)
	r := rpcStart(e, model)

	// Malformed JSON: a parse error, with the id when it can be read.
	r.send(`{"id":"x","type":`)
	resp := r.response("parse")
	if resp["success"] != false || !strings.HasPrefix(fmt.Sprint(resp["error"]), "Failed to parse command: ") {
		t.Errorf("parse error %v", resp)
	}
	if resp["id"] != "x" {
		t.Errorf("parse error without the readable id: %v", resp)
	}
	r.send(`{"type":`)
	if resp := r.response("parse"); resp["id"] != nil {
		t.Errorf("parse error invents an id: %v", resp)
	}

	// Unknown command type: error naming it, with the request's id so a
	// client waiting on it hears back.
	if msg := r.fail("u1", `{"type":"frobnicate"}`); msg != "Unknown command: frobnicate" {
		t.Errorf("unknown command %q", msg)
	}

	// Before any reply the text is absent (data {}), as from the original.
	if d := obj(t, r.ok("t0", `{"type":"get_last_assistant_text"}`)); len(d) != 0 {
		t.Errorf("last assistant text before any reply: %v", d)
	}

	// Valid JSON with a field of the wrong type answers the command by id.
	if msg := r.fail("w1", `{"type":"set_auto_retry","enabled":"yes"}`); !strings.Contains(msg, "enabled") {
		t.Errorf("wrong field type: %q", msg)
	}

	// CRLF line endings are accepted.
	io.WriteString(r.in, `{"id":"crlf","type":"get_state"}`+"\r\n")
	resp = r.wait("crlf response", func(m map[string]any) bool { return m["id"] == "crlf" })
	if resp["success"] != true || resp["command"] != "get_state" {
		t.Errorf("CRLF command %v", resp)
	}

	// U+2028 and U+2029 inside a message are not line separators.
	sep := "before\u2028middle\u2029after"
	r.promptSettled("p1", sep)
	if !strings.Contains(string(e.fake.Requests()[0].Raw), `before\u2028middle\u2029after`) &&
		!strings.Contains(string(e.fake.Requests()[0].Raw), sep) {
		t.Errorf("request lost the separators")
	}
	msgs := list(t, obj(t, r.ok("m1", `{"type":"get_messages"}`))["messages"])
	found := false
	for _, m := range msgs {
		mm := obj(t, m)
		if mm["role"] == "user" && mm["content"] == sep {
			found = true
		}
	}
	if !found {
		t.Errorf("user message with separators not in get_messages: %v", msgs)
	}

	// A 1 MB command line.
	big := strings.Repeat("0123456789abcdef", 1<<16)
	r.promptSettled("p2", big)
	reqs := e.fake.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Raw), big) {
		t.Errorf("1 MB prompt did not reach the model whole")
	}
	if d := obj(t, r.ok("t1", `{"type":"get_last_assistant_text"}`)); d["text"] != "big answer" {
		t.Errorf("after 1 MB prompt: %v", d)
	}

	// Closing stdin shuts down cleanly.
	if code := r.exitCode(); code != 0 {
		t.Errorf("exit code %d; stderr %s", code, r.err.String())
	}
	e.checkSessions()
}

// Stdout carries protocol records only, also when relay has notes and
// warnings to give (untrusted project resources, --resume listing).
func TestRPCStdoutIsProtocolOnly(t *testing.T) {
	e := newEnv(t, quick("fine"), nil)
	os.MkdirAll(filepath.Join(e.cwd, ".relay"), 0o755)
	os.WriteFile(filepath.Join(e.cwd, ".relay", "settings.json"), []byte(`{"theme":"dark"}`), 0o644)
	e.run("-p", model, "make a session")
	check := func(args []string, stdin string) {
		t.Helper()
		c := e.cmd(strings.NewReader(stdin), args...)
		var out, errOut bytes.Buffer
		c.Stdout, c.Stderr = &out, &errOut
		if err := c.Run(); err != nil {
			t.Fatalf("%v: %v %s", args, err, errOut.String())
		}
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["type"] == nil {
				t.Errorf("%v: non-protocol stdout line %q", args, sc.Text())
			}
		}
	}
	check([]string{"--mode", "rpc", model}, `{"id":"1","type":"get_state"}`+"\n")
	check([]string{"--mode", "rpc", "--resume", model}, "")
	check([]string{"--mode", "json", "--resume", model}, "")
	check([]string{"--mode", "json", model, "hello"}, "")
}

func TestRPCPromptQueueAndAbort(t *testing.T) {
	stall := llmtest.Response{Text: "thinking hard", Fault: &llmtest.Fault{Stall: llmtest.Duration(20 * time.Second)}}
	e := newEnv(t, &llmtest.Script{ZeroLatency: true, Responses: []llmtest.Response{{Text: "I see a red pixel."}, stall, {Text: "after abort"}}}, nil)
	r := rpcStart(e, model)

	// prompt with an image: started, and the image reaches the model.
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	mark := len(r.seen)
	d := obj(t, r.ok("p1", `{"type":"prompt","message":"what is this?","images":[{"type":"image","data":"`+png+`","mimeType":"image/png"}]}`))
	if d["disposition"] != "started" {
		t.Errorf("prompt disposition %v", d)
	}
	// The response comes before any event of the run it started.
	for _, m := range r.seen[mark : len(r.seen)-1] {
		t.Errorf("%v written before the prompt's response", m["type"])
	}
	r.since(mark, "agent_settled")
	if raw := string(e.fake.Requests()[0].Raw); !strings.Contains(raw, png) || !strings.Contains(raw, "image/png") {
		t.Errorf("image not sent to the model")
	}

	// A stalled run: queue commands while streaming.
	mark = len(r.seen)
	r.ok("p2", `{"type":"prompt","message":"long task"}`)
	r.since(mark, "message_update")
	if msg := r.fail("p3", `{"type":"prompt","message":"interrupting"}`); msg != "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message." {
		t.Errorf("prompt while streaming: %q", msg)
	}
	for i, cmd := range []string{
		`{"type":"prompt","message":"STEER-A","streamingBehavior":"steer"}`,
		`{"type":"prompt","message":"FOLLOW-A","streamingBehavior":"followUp"}`,
		`{"type":"steer","message":"STEER-B"}`,
		`{"type":"follow_up","message":"FOLLOW-B"}`,
	} {
		if d := obj(t, r.ok(fmt.Sprint("q", i), cmd)); d["disposition"] != "queued" {
			t.Errorf("%s disposition %v", cmd, d)
		}
	}
	st := obj(t, r.ok("s1", `{"type":"get_state"}`))
	if st["isStreaming"] != true || st["pendingMessageCount"] != float64(4) {
		t.Errorf("state while streaming %v", st)
	}
	// Session operations are refused while the agent works.
	r.fail("c0", `{"type":"clone"}`)
	// An extension command (/laya) is handled at once, even while streaming.
	mark = len(r.seen)
	if d := obj(t, r.ok("x1", `{"type":"prompt","message":"/laya status"}`)); d["disposition"] != "handled" {
		t.Errorf("/laya disposition %v", d)
	}
	if n := r.since(mark, "extension_ui_request"); n["method"] != "notify" || n["message"] == "" || n["notifyType"] == nil {
		t.Errorf("/laya output %v", n)
	}

	// Extension commands cannot be queued.
	if msg := r.fail("x2", `{"type":"steer","message":"/laya status"}`); msg != `Extension command "/laya" cannot be queued. Use prompt() or execute the command when not streaming.` {
		t.Errorf("queued extension command: %q", msg)
	}
	r.fail("x3", `{"type":"follow_up","message":"/laya"}`)

	// Esc emulation: clear_queue returns the texts, then abort.
	q := obj(t, r.ok("cq", `{"type":"clear_queue"}`))
	steer, follow := fmt.Sprint(q["steering"]), fmt.Sprint(q["followUp"])
	if steer != "[STEER-A STEER-B]" || follow != "[FOLLOW-A FOLLOW-B]" {
		t.Errorf("clear_queue %v", q)
	}
	mark = len(r.seen)
	r.ok("ab", `{"type":"abort"}`)
	settled := false
	for _, m := range r.seen[mark:] {
		if m["type"] == "agent_settled" {
			settled = true
		}
	}
	if !settled {
		t.Errorf("abort answered before the session was idle")
	}
	if st := obj(t, r.ok("s2", `{"type":"get_state"}`)); st["isStreaming"] != false || st["pendingMessageCount"] != float64(0) {
		t.Errorf("state after abort %v", st)
	}
	// The aborted reply is skipped by get_last_assistant_text only when it
	// has no content; here it has partial text.
	r.promptSettled("p4", "again")
	if d := obj(t, r.ok("t1", `{"type":"get_last_assistant_text"}`)); d["text"] != "after abort" {
		t.Errorf("last text %v", d)
	}
	if n := len(e.fake.Requests()); n != 3 {
		t.Errorf("%d requests: cleared queue messages were sent", n)
	}
	r.close()
	e.checkSessions()
}

func TestRPCModelsAndThinking(t *testing.T) {
	e := newEnv(t, quick(), nil)
	tiny := tinyModel(e, 100000)
	r := rpcStart(e, tiny)

	st := obj(t, r.ok("s1", `{"type":"get_state"}`))
	hasKeys(t, "state", st, "model", "thinkingLevel", "isStreaming", "isCompacting", "steeringMode", "followUpMode",
		"sessionId", "autoCompactionEnabled", "messageCount", "pendingMessageCount")
	if checkModel(t, st["model"])["id"] != "tiny-1" {
		t.Errorf("state model %v", st["model"])
	}
	if _, has := st["sessionName"]; has {
		t.Errorf("sessionName present before one is set")
	}

	// A model without reasoning: only "off", and no cycling.
	if l := fmt.Sprint(obj(t, r.ok("l1", `{"type":"get_available_thinking_levels"}`))["levels"]); l != "[off]" {
		t.Errorf("levels for non-reasoning model %s", l)
	}
	if resp := r.call("c1", `{"type":"cycle_thinking_level"}`); resp["success"] != true || resp["data"] != nil {
		t.Errorf("cycle_thinking_level on non-reasoning model %v", resp)
	} else if _, has := resp["data"]; !has {
		t.Errorf("cycle_thinking_level null data missing: %v", resp)
	}

	models := list(t, obj(t, r.ok("m1", `{"type":"get_available_models"}`))["models"])
	if len(models) < 2 {
		t.Fatalf("%d available models", len(models))
	}
	for _, m := range models {
		checkModel(t, m)
	}

	if msg := r.fail("sm0", `{"type":"set_model","provider":"nope","modelId":"missing"}`); msg != "Model not found: nope/missing" {
		t.Errorf("set_model error %q", msg)
	}
	m := checkModel(t, r.ok("sm1", `{"type":"set_model","provider":"anthropic","modelId":"claude-sonnet-4-5"}`))
	if m["id"] != "claude-sonnet-4-5" || m["reasoning"] != true {
		t.Errorf("set_model data %v", m)
	}
	levels := list(t, obj(t, r.ok("l2", `{"type":"get_available_thinking_levels"}`))["levels"])
	if len(levels) < 4 || levels[0] != "off" {
		t.Errorf("levels %v", levels)
	}

	r.ok("tl", `{"type":"set_thinking_level","level":"low"}`)
	ev := r.saw("thinking_level_changed")
	if ev["level"] != "low" {
		t.Errorf("thinking_level_changed %v", ev)
	}
	r.fail("tl2", `{"type":"set_thinking_level","level":"extreme"}`)
	c := obj(t, r.ok("c2", `{"type":"cycle_thinking_level"}`))
	if c["level"] != "medium" {
		t.Errorf("cycle from low gave %v", c)
	}
	if st := obj(t, r.ok("s2", `{"type":"get_state"}`)); st["thinkingLevel"] != "medium" {
		t.Errorf("state thinking %v", st["thinkingLevel"])
	}

	// cycle_model over every available model (not scoped).
	cm := obj(t, r.ok("cm", `{"type":"cycle_model"}`))
	hasKeys(t, "cycle_model", cm, "model", "thinkingLevel", "isScoped")
	checkModel(t, cm["model"])
	if cm["isScoped"] != false {
		t.Errorf("cycle_model isScoped %v", cm["isScoped"])
	}

	// Queue modes.
	r.ok("q1", `{"type":"set_steering_mode","mode":"all"}`)
	r.ok("q2", `{"type":"set_follow_up_mode","mode":"all"}`)
	r.fail("q3", `{"type":"set_steering_mode","mode":"sometimes"}`)
	r.fail("q4", `{"type":"set_follow_up_mode"}`)
	if st := obj(t, r.ok("s3", `{"type":"get_state"}`)); st["steeringMode"] != "all" || st["followUpMode"] != "all" {
		t.Errorf("modes %v %v", st["steeringMode"], st["followUpMode"])
	}

	// Auto compaction and retry switches.
	r.ok("ac", `{"type":"set_auto_compaction","enabled":false}`)
	r.fail("ac2", `{"type":"set_auto_compaction"}`)
	if st := obj(t, r.ok("s4", `{"type":"get_state"}`)); st["autoCompactionEnabled"] != false {
		t.Errorf("autoCompactionEnabled %v", st["autoCompactionEnabled"])
	}
	r.ok("ar", `{"type":"set_auto_retry","enabled":true}`)
	r.fail("ar2", `{"type":"set_auto_retry"}`)
	r.close()

	// With one scoped model, cycle_model answers null.
	r = rpcStart(e, "--models", "anthropic/claude-sonnet-4-5", model)
	if resp := r.call("cm", `{"type":"cycle_model"}`); resp["success"] != true || resp["data"] != nil {
		t.Errorf("cycle_model with one model %v", resp)
	}
	r.close()
	// With two scoped models it moves to the other and says so.
	r = rpcStart(e, "--models", "anthropic/claude-sonnet-4-5,tiny/tiny-1", model)
	cm = obj(t, r.ok("cm", `{"type":"cycle_model"}`))
	if obj(t, cm["model"])["id"] != "tiny-1" || cm["isScoped"] != true {
		t.Errorf("scoped cycle_model %v", cm)
	}
	r.close()
}

func TestRPCRetry(t *testing.T) {
	// Each prompt meets three 529s: the first and the provider client's two
	// invisible retries (Retry-After 0), then the agent-level retry.
	overloaded := llmtest.Response{Fault: &llmtest.Fault{Status: 529, RetryAfter: "0", Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}}
	e := newEnv(t, &llmtest.Script{ZeroLatency: true, Responses: []llmtest.Response{overloaded, overloaded, overloaded,
		overloaded, overloaded, overloaded, {Text: "unused"}}},
		map[string]any{"retry": map[string]any{"baseDelayMs": 30000, "maxRetries": 3}})
	r := rpcStart(e, model)
	mark := len(r.seen)
	r.ok("p1", `{"type":"prompt","message":"hi"}`)
	start := r.since(mark, "auto_retry_start")
	hasKeys(t, "auto_retry_start", start, "attempt", "maxAttempts", "delayMs", "errorMessage")
	began := time.Now()
	mark = len(r.seen)
	r.ok("ar", `{"type":"abort_retry"}`)
	end := r.since(mark, "auto_retry_end")
	if end["success"] != false || time.Since(began) > 10*time.Second {
		t.Errorf("abort_retry: %v", end)
	}
	r.since(mark, "agent_settled")

	// With auto retry off, a transient failure ends the run.
	r.ok("sr", `{"type":"set_auto_retry","enabled":false}`)
	mark = len(r.seen)
	r.ok("p2", `{"type":"prompt","message":"again"}`)
	ae := r.since(mark, "agent_end")
	if ae["willRetry"] != false {
		t.Errorf("agent_end with auto retry off %v", ae)
	}
	r.since(mark, "agent_settled")
	r.close()
}

// A passing 503 before any content never reaches an RPC client (issue 17:
// pi's RpcClient returns at the first agent_end): the provider client
// retries it, so the prompt yields one agent_end, one assistant message
// and no auto-retry events, with the default retry settings.
func TestRPCProviderRetryInvisible(t *testing.T) {
	down := llmtest.Response{Fault: &llmtest.Fault{Status: 503, RetryAfter: "0",
		Body: `{"type":"error","error":{"type":"api_error","message":"Service Unavailable"}}`}}
	e := newEnv(t, &llmtest.Script{ZeroLatency: true, Responses: []llmtest.Response{down, {Text: "hello"}}}, nil)
	r := rpcStart(e, model)
	mark := len(r.seen)
	r.promptSettled("p1", "hi")
	count := map[string]int{}
	for _, m := range r.seen[mark:] {
		count[fmt.Sprint(m["type"])]++
		if m["type"] == "message_end" {
			if msg := obj(t, m["message"]); msg["role"] == "assistant" && msg["stopReason"] != "stop" {
				t.Errorf("assistant message %v", msg)
			}
		}
	}
	if count["agent_end"] != 1 || count["auto_retry_start"] != 0 || count["message_end"] != 2 {
		t.Errorf("events %v", count)
	}
	if n := len(e.fake.Requests()); n != 2 {
		t.Errorf("%d requests", n)
	}
	r.close()
}

func TestRPCCompactAndStats(t *testing.T) {
	summary := llmtest.Rule{When: llmtest.Match{Contains: "<conversation>"}, Response: llmtest.Response{Text: "## Goal\nRPC summary", Usage: &llmtest.Usage{Input: 50, Output: 10}}}
	long := strings.Repeat("words and more words ", 200)
	e := newEnv(t, &llmtest.Script{ZeroLatency: true, Rules: []llmtest.Rule{summary}, Responses: []llmtest.Response{
		{Text: long, Usage: &llmtest.Usage{Input: 100, Output: 400}},
		{Text: long, Usage: &llmtest.Usage{Input: 600, Output: 400}, ToolCalls: []llmtest.Block{tc("bash", `{"command":"echo tool"}`)}},
		{Text: "done", Usage: &llmtest.Usage{Input: 1100, Output: 5}},
	}}, map[string]any{"compaction": map[string]any{"keepRecentTokens": 50}})
	r := rpcStart(e, model)
	if msg := r.fail("c0", `{"type":"compact"}`); !strings.Contains(msg, "Nothing to compact") {
		t.Errorf("compact on an empty session: %q", msg)
	}
	r.promptSettled("p1", "one "+long)
	r.promptSettled("p2", "two")

	stats := obj(t, r.ok("st", `{"type":"get_session_stats"}`))
	hasKeys(t, "stats", stats, "sessionFile", "sessionId", "userMessages", "assistantMessages", "toolCalls", "toolResults",
		"totalMessages", "tokens", "cost", "contextUsage")
	if stats["userMessages"] != float64(2) || stats["assistantMessages"] != float64(3) || stats["toolCalls"] != float64(1) ||
		stats["toolResults"] != float64(1) || stats["totalMessages"] != float64(6) {
		t.Errorf("stats counts %v", stats)
	}
	tok := obj(t, stats["tokens"])
	hasKeys(t, "tokens", tok, "input", "output", "cacheRead", "cacheWrite", "total")
	if tok["input"] != float64(1800) || tok["output"] != float64(805) || tok["total"] != float64(2605) {
		t.Errorf("tokens %v", tok)
	}
	cu := obj(t, stats["contextUsage"])
	if cu["contextWindow"] == nil || cu["tokens"] == nil || cu["percent"] == nil {
		t.Errorf("contextUsage %v", cu)
	}

	res := obj(t, r.ok("c1", `{"type":"compact","customInstructions":"focus on words"}`))
	hasKeys(t, "compaction result", res, "summary", "firstKeptEntryId", "tokensBefore", "estimatedTokensAfter", "usage", "details")
	if !strings.Contains(fmt.Sprint(res["summary"]), "RPC summary") {
		t.Errorf("summary %v", res["summary"])
	}
	if !strings.Contains(string(e.fake.Requests()[3].Raw), "focus on words") {
		t.Errorf("custom instructions not sent")
	}
	var startEv, endEv map[string]any
	for _, m := range r.seen {
		switch m["type"] {
		case "compaction_start":
			startEv = m
		case "compaction_end":
			endEv = m
		}
	}
	if startEv == nil || startEv["reason"] != "manual" || endEv == nil || endEv["result"] == nil {
		t.Errorf("compaction events %v %v", startEv, endEv)
	}
	// Right after compaction the context tokens are unknown.
	cu = obj(t, obj(t, r.ok("st2", `{"type":"get_session_stats"}`))["contextUsage"])
	if cu["tokens"] != nil || cu["percent"] != nil {
		t.Errorf("contextUsage right after compaction %v", cu)
	}
	if msg := r.fail("c2", `{"type":"compact"}`); msg == "" {
		t.Errorf("second compact")
	}
	r.close()
	e.checkSessions()
}

func TestRPCBash(t *testing.T) {
	e := newEnv(t, quick("noted"), nil)
	r := rpcStart(e, model)
	res := obj(t, r.ok("b1", `{"type":"bash","command":"echo one; echo two >&2; exit 3"}`))
	if res["output"] != "one\ntwo\n" && res["output"] != "one\ntwo" {
		t.Errorf("bash output %q", res["output"])
	}
	if res["exitCode"] != float64(3) || res["cancelled"] != false || res["truncated"] != false {
		t.Errorf("bash result %v", res)
	}
	var streamed string
	for _, m := range r.seen {
		if m["type"] == "bash_execution_update" {
			if m["id"] != "b1" {
				t.Errorf("bash_execution_update id %v", m["id"])
			}
			streamed += fmt.Sprint(m["delta"])
		}
	}
	if !strings.Contains(streamed, "one") || !strings.Contains(streamed, "two") {
		t.Errorf("streamed %q", streamed)
	}
	r.ok("b2", `{"type":"bash","command":"echo SECRET-OUTPUT","excludeFromContext":true}`)
	r.fail("b3", `{"type":"bash","command":"  "}`)

	// abort_bash cancels a running command: no exit code.
	r.send(`{"id":"b4","type":"bash","command":"echo started; sleep 20"}`)
	r.wait("bash output", func(m map[string]any) bool { return m["type"] == "bash_execution_update" && m["id"] == "b4" })
	r.ok("ab", `{"type":"abort_bash"}`)
	resp := r.wait("cancelled bash", func(m map[string]any) bool { return m["type"] == "response" && m["id"] == "b4" })
	d := obj(t, resp["data"])
	if d["cancelled"] != true {
		t.Errorf("aborted bash %v", d)
	}
	if _, has := d["exitCode"]; has {
		t.Errorf("cancelled bash has an exit code: %v", d)
	}

	// Stored as bashExecution messages; the included ones reach the model
	// with the next prompt.
	entries := list(t, obj(t, r.ok("e1", `{"type":"get_entries"}`))["entries"])
	var bashes []map[string]any
	for _, en := range entries {
		if m, ok := obj(t, en)["message"].(map[string]any); ok && m["role"] == "bashExecution" {
			bashes = append(bashes, m)
		}
	}
	if len(bashes) != 3 || bashes[1]["excludeFromContext"] != true {
		t.Errorf("stored bash messages %v", bashes)
	}
	if len(e.fake.Requests()) != 0 {
		t.Errorf("bash called the model")
	}
	r.promptSettled("p1", "what did the commands print?")
	raw := string(e.fake.Requests()[0].Raw)
	if !strings.Contains(raw, "Ran `echo one; echo two >&2; exit 3`") || strings.Contains(raw, "SECRET-OUTPUT") {
		t.Errorf("bash context in request wrong: %s", raw)
	}
	r.close()
	e.checkSessions()
}

// A bash command that finishes during a run is stored after the run, so
// it never lands between an assistant message and its tool results.
func TestRPCBashDuringRun(t *testing.T) {
	slowTool := llmtest.Response{ToolCalls: []llmtest.Block{tc("bash", `{"command":"sleep 1; echo tool-done"}`)}}
	e := newEnv(t, &llmtest.Script{ZeroLatency: true, Responses: []llmtest.Response{slowTool, {Text: "finished"}, {Text: "second"}}}, nil)
	r := rpcStart(e, model)
	mark := len(r.seen)
	r.ok("p1", `{"type":"prompt","message":"run the tool"}`)
	r.since(mark, "tool_execution_start")
	r.ok("b1", `{"type":"bash","command":"echo DURING-RUN"}`)
	r.since(mark, "agent_settled")
	r.promptSettled("p2", "next")
	reqs := e.fake.Requests()
	if strings.Contains(string(reqs[1].Raw), "DURING-RUN") || !strings.Contains(string(reqs[2].Raw), "DURING-RUN") {
		t.Errorf("bash during a run reached the wrong request")
	}
	r.close()
	e.checkSessions()
}

func TestRPCSessionCommands(t *testing.T) {
	e := newEnv(t, quick("answer one", "answer two", "answer three", "answer four"), nil)
	os.MkdirAll(filepath.Join(e.agentDir, "prompts"), 0o755)
	os.WriteFile(filepath.Join(e.agentDir, "prompts", "fix-tests.md"), []byte("---\ndescription: Fix failing tests\n---\nFix the tests.\n"), 0o644)
	r := rpcStart(e, model)

	// get_commands lists the prompt template with its source.
	cmds := list(t, obj(t, r.ok("gc", `{"type":"get_commands"}`))["commands"])
	if len(cmds) != 1 {
		t.Fatalf("commands %v", cmds)
	}
	c := obj(t, cmds[0])
	if c["name"] != "fix-tests" || c["description"] != "Fix failing tests" || c["source"] != "prompt" {
		t.Errorf("command %v", c)
	}
	hasKeys(t, "sourceInfo", obj(t, c["sourceInfo"]), "path", "source", "scope", "origin")

	if d := obj(t, r.ok("la0", `{"type":"get_last_assistant_text"}`)); d["text"] != nil {
		t.Errorf("last text before any answer %v", d)
	}
	r.promptSettled("p1", "first question")
	r.promptSettled("p2", "second question")

	// set_session_name: event, state; empty names are refused.
	r.ok("n1", `{"type":"set_session_name","name":"  my work  "}`)
	if ev := r.saw("session_info_changed"); ev["name"] != "my work" {
		t.Errorf("session_info_changed %v", ev)
	}
	r.fail("n2", `{"type":"set_session_name","name":"   "}`)
	st := obj(t, r.ok("s1", `{"type":"get_state"}`))
	if st["sessionName"] != "my work" || st["sessionFile"] == nil {
		t.Errorf("state %v", st)
	}
	firstFile := st["sessionFile"].(string)

	// get_entries with and without a cursor; leafId.
	ge := obj(t, r.ok("e1", `{"type":"get_entries"}`))
	entries := list(t, ge["entries"])
	last := obj(t, entries[len(entries)-1])
	if ge["leafId"] != last["id"] {
		t.Errorf("leafId %v, last entry %v", ge["leafId"], last["id"])
	}
	for _, en := range entries {
		if obj(t, en)["type"] == "session" {
			t.Errorf("get_entries includes the header")
		}
	}
	mid := obj(t, entries[len(entries)-3])["id"].(string)
	since := list(t, obj(t, r.ok("e2", `{"type":"get_entries","since":"`+mid+`"}`))["entries"])
	if len(since) != 2 || obj(t, since[0])["id"] != obj(t, entries[len(entries)-2])["id"] {
		t.Errorf("entries since %s: %v", mid, since)
	}
	if msg := r.fail("e3", `{"type":"get_entries","since":"nosuchid"}`); !strings.Contains(msg, "nosuchid") {
		t.Errorf("unknown cursor %q", msg)
	}

	// get_fork_messages, fork, clone.
	fm := list(t, obj(t, r.ok("f0", `{"type":"get_fork_messages"}`))["messages"])
	if len(fm) != 2 || obj(t, fm[1])["text"] != "second question" {
		t.Fatalf("fork messages %v", fm)
	}
	second := obj(t, fm[1])["entryId"].(string)
	r.fail("f1", `{"type":"fork","entryId":"nosuchid"}`)
	fk := obj(t, r.ok("f2", `{"type":"fork","entryId":"`+second+`"}`))
	if fk["text"] != "second question" || fk["cancelled"] != false {
		t.Errorf("fork %v", fk)
	}
	if d := obj(t, r.ok("la1", `{"type":"get_last_assistant_text"}`)); d["text"] != "answer one" {
		t.Errorf("after fork, last text %v", d)
	}
	r.promptSettled("p3", "third question")
	forkFile := obj(t, r.ok("s2", `{"type":"get_state"}`))["sessionFile"]
	if forkFile == firstFile {
		t.Errorf("fork kept the session file")
	}
	cl := obj(t, r.ok("cl", `{"type":"clone"}`))
	if cl["cancelled"] != false {
		t.Errorf("clone %v", cl)
	}
	st = obj(t, r.ok("s3", `{"type":"get_state"}`))
	if st["sessionFile"] == forkFile || st["messageCount"] == float64(0) {
		t.Errorf("clone state %v", st)
	}

	// export_html.
	out := filepath.Join(t.TempDir(), "s.html")
	if p := obj(t, r.ok("x1", `{"type":"export_html","outputPath":"`+out+`"}`))["path"]; p != out {
		t.Errorf("export path %v", p)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "third question") {
		t.Errorf("export file: %v", err)
	}
	r.fail("x2", `{"type":"export_html","outputPath":"/nonexistent-dir/x/s.html"}`)

	// switch_session back to the first file.
	// A missing path becomes a new session there (as the original); a file
	// that is not a session is refused.
	notSession := filepath.Join(e.cwd, "notes.jsonl")
	os.WriteFile(notSession, []byte(`{"type":"message"}`+"\n"), 0o644)
	r.fail("sw0", `{"type":"switch_session","sessionPath":"`+notSession+`"}`)
	if d := obj(t, r.ok("sw", `{"type":"switch_session","sessionPath":"`+firstFile+`"}`)); d["cancelled"] != false {
		t.Errorf("switch_session %v", d)
	}
	if d := obj(t, r.ok("la2", `{"type":"get_last_assistant_text"}`)); d["text"] != "answer two" {
		t.Errorf("after switch, last text %v", d)
	}

	// new_session with a parent.
	ns := obj(t, r.ok("ns", `{"type":"new_session","parentSession":"`+firstFile+`"}`))
	if ns["cancelled"] != false {
		t.Errorf("new_session %v", ns)
	}
	st = obj(t, r.ok("s4", `{"type":"get_state"}`))
	if st["messageCount"] != float64(0) {
		t.Errorf("new session not empty: %v", st)
	}
	if msgs := list(t, obj(t, r.ok("gm", `{"type":"get_messages"}`))["messages"]); len(msgs) != 0 {
		t.Errorf("messages in a new session %v", msgs)
	}
	r.promptSettled("p4", "fresh start")
	newFile := obj(t, r.ok("s5", `{"type":"get_state"}`))["sessionFile"].(string)
	b, _ := os.ReadFile(newFile)
	var header map[string]any
	json.Unmarshal(bytes.SplitN(b, []byte("\n"), 2)[0], &header)
	if header["parentSession"] != firstFile {
		t.Errorf("new session header %v", header)
	}
	r.close()
	e.checkSessions()
}

// get_tree of a hand-written session with an orphan (two roots) and a label.
func TestRPCTree(t *testing.T) {
	e := newEnv(t, quick(), nil)
	path := filepath.Join(e.cwd, "tree.jsonl")
	lines := []string{
		`{"type":"session","version":3,"id":"0192f3a0-0000-7000-8000-0000000000aa","timestamp":"2024-12-03T14:00:00.000Z","cwd":"` + e.cwd + `"}`,
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2024-12-03T14:00:01.000Z","message":{"role":"user","content":"Hello","timestamp":1733234401000}}`,
		`{"type":"message","id":"b1","parentId":"a1","timestamp":"2024-12-03T14:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Hi!"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1733234402000}}`,
		`{"type":"message","id":"c1","parentId":"a1","timestamp":"2024-12-03T14:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Other branch"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1733234403000}}`,
		`{"type":"message","id":"d1","parentId":"gone","timestamp":"2024-12-03T14:00:04.000Z","message":{"role":"user","content":"Orphan","timestamp":1733234404000}}`,
		`{"type":"label","id":"l1","parentId":"d1","timestamp":"2024-12-03T14:30:00.000Z","targetId":"b1","label":"checkpoint-1"}`,
	}
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	r := rpcStart(e, model, "--session", path)
	tr := obj(t, r.ok("t", `{"type":"get_tree"}`))
	if tr["leafId"] != "l1" {
		t.Errorf("leafId %v", tr["leafId"])
	}
	roots := list(t, tr["tree"])
	if len(roots) != 2 {
		t.Fatalf("%d roots: %v", len(roots), roots)
	}
	a := obj(t, roots[0])
	if obj(t, a["entry"])["id"] != "a1" {
		t.Errorf("first root %v", a["entry"])
	}
	kids := list(t, a["children"])
	if len(kids) != 2 || obj(t, obj(t, kids[0])["entry"])["id"] != "b1" {
		t.Fatalf("children %v", kids)
	}
	if k := obj(t, kids[0]); k["label"] != "checkpoint-1" || k["labelTimestamp"] == nil {
		t.Errorf("label on b1: %v", k)
	}
	if _, has := obj(t, kids[1])["label"]; has {
		t.Errorf("label on an unlabeled node")
	}
	if obj(t, obj(t, roots[1])["entry"])["id"] != "d1" {
		t.Errorf("orphan root %v", roots[1])
	}
	r.close()
}

// The harness authorization gate asks through an extension UI confirm
// dialog; the client's answer decides.
func TestRPCAuthorizationConfirm(t *testing.T) {
	for _, allow := range []bool{true, false} {
		t.Run(fmt.Sprint("confirmed=", allow), func(t *testing.T) {
			e := newEnv(t, &llmtest.Script{ZeroLatency: true, Responses: []llmtest.Response{
				{ToolCalls: []llmtest.Block{tc("bash", `{"command":"rm -rf build"}`)}},
				{Text: "ok"},
			}}, nil)
			os.MkdirAll(filepath.Join(e.cwd, "build"), 0o755)
			r := rpcStart(e, model)
			r.ok("p1", `{"type":"prompt","message":"tidy up the project"}`)
			req := r.since(0, "extension_ui_request")
			if req["method"] != "confirm" || req["id"] == nil || !strings.Contains(fmt.Sprint(req["message"]), "rm -rf build") ||
				fmt.Sprint(req["title"]) == "" {
				t.Fatalf("confirm request %v", req)
			}
			// A stray answer for another id is ignored; no response record.
			r.send(`{"type":"extension_ui_response","id":"not-pending","confirmed":true}`)
			r.send(fmt.Sprintf(`{"type":"extension_ui_response","id":%q,"confirmed":%v}`, req["id"], allow))
			end := r.event("tool_execution_end")
			r.event("agent_settled")
			for _, m := range r.seen {
				if m["type"] == "response" && m["command"] == "extension_ui_response" {
					t.Errorf("extension_ui_response produced a response: %v", m)
				}
			}
			_, err := os.Stat(filepath.Join(e.cwd, "build"))
			if allow && (err == nil || end["isError"] != false) {
				t.Errorf("confirmed command did not run: %v", end)
			}
			if !allow && (err != nil || end["isError"] != true) {
				t.Errorf("declined command ran: %v", end)
			}
			r.close()
		})
	}
}

// Closing stdin while a confirm dialog is open does not hang: the dialog
// resolves as cancelled and relay exits.
func TestRPCCloseWithOpenDialog(t *testing.T) {
	e := newEnv(t, &llmtest.Script{ZeroLatency: true, Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{tc("bash", `{"command":"rm -rf build"}`)}},
		{Text: "ok"},
	}}, nil)
	os.MkdirAll(filepath.Join(e.cwd, "build"), 0o755)
	r := rpcStart(e, model)
	r.ok("p1", `{"type":"prompt","message":"tidy up the project"}`)
	r.since(0, "extension_ui_request")
	if code := r.exitCode(); code != 0 {
		t.Errorf("exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(e.cwd, "build")); err != nil {
		t.Errorf("unanswered dialog allowed the command")
	}
}

// Closing stdin during a run stops it promptly and keeps the session whole.
func TestRPCCloseDuringRun(t *testing.T) {
	stall := llmtest.Response{Text: "partial", Fault: &llmtest.Fault{Stall: llmtest.Duration(20 * time.Second)}}
	e := newEnv(t, &llmtest.Script{ZeroLatency: true, Responses: []llmtest.Response{stall}}, nil)
	r := rpcStart(e, model)
	mark := len(r.seen)
	r.ok("p1", `{"type":"prompt","message":"go"}`)
	r.since(mark, "message_update")
	r.send(`{"id":"b1","type":"bash","command":"sleep 20"}`)
	began := time.Now()
	if code := r.exitCode(); code != 0 {
		t.Errorf("exit %d", code)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("shutdown took %v", d)
	}
	e.checkSessions()
}

// new_session during a run stops the run first, as the original does.
func TestRPCNewSessionStopsRun(t *testing.T) {
	stall := llmtest.Response{Text: "partial", Fault: &llmtest.Fault{Stall: llmtest.Duration(20 * time.Second)}}
	e := newEnv(t, &llmtest.Script{ZeroLatency: true, Responses: []llmtest.Response{stall}}, nil)
	r := rpcStart(e, model)
	mark := len(r.seen)
	r.ok("p1", `{"type":"prompt","message":"go"}`)
	r.since(mark, "message_update")
	old := obj(t, r.ok("s0", `{"type":"get_state"}`))["sessionId"]
	if d := obj(t, r.ok("ns", `{"type":"new_session"}`)); d["cancelled"] != false {
		t.Errorf("new_session %v", d)
	}
	st := obj(t, r.ok("s1", `{"type":"get_state"}`))
	if st["isStreaming"] != false || st["messageCount"] != float64(0) || st["sessionId"] == old {
		t.Errorf("state after new_session %v", st)
	}
	r.close()
	e.checkSessions()
}

// compact on a short session compacts what there is (the original's
// rpc.test.ts "should handle manual compaction"); get_entries keeps the
// entries from before it.
func TestRPCCompactShortSession(t *testing.T) {
	e := newEnv(t, quick("hello", "## Goal\nsay hello"), nil)
	r := rpcStart(e, model)
	r.promptSettled("p1", "Say hello")
	before := list(t, obj(t, r.ok("e1", `{"type":"get_entries"}`))["entries"])
	res := obj(t, r.ok("c1", `{"type":"compact"}`))
	if !strings.HasPrefix(fmt.Sprint(res["summary"]), "## Goal") || res["tokensBefore"].(float64) <= 0 {
		t.Errorf("compaction result %v", res)
	}
	after := list(t, obj(t, r.ok("e2", `{"type":"get_entries"}`))["entries"])
	if len(after) != len(before)+1 || obj(t, after[len(after)-1])["type"] != "compaction" {
		t.Errorf("entries before %d, after %d", len(before), len(after))
	}
	r.close()
	e.checkSessions()
}
