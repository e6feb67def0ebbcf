package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/codemode"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/harness"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/tool"
	"github.com/relay-agent/relay/internal/tool/builtin"
)

// echo returns its "text" argument; "fail": true makes it an error result.
type echo struct {
	name     string
	exposure tool.Exposure
	ns       string
	calls    atomic.Int32
	ids      []string
}

func (e *echo) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: e.name, Description: "Echo the text back.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"what to echo"},"fail":{"type":"boolean"}},"required":["text"]}`)}
}
func (e *echo) Exposure() tool.Exposure { return e.exposure }
func (e *echo) Namespace() string       { return e.ns }
func (e *echo) Execute(ctx context.Context, args json.RawMessage, _ func(tool.Result)) tool.Result {
	e.calls.Add(1)
	e.ids = append(e.ids, tool.CallID(ctx))
	var in struct {
		Text string `json:"text"`
		Fail bool   `json:"fail"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tool.Errorf("invalid arguments: %v", err)
	}
	if in.Fail {
		return tool.Error("echo failed: " + in.Text)
	}
	return tool.Text(in.Text)
}

type fixture struct {
	tool  *codemode.Tool
	echo  *echo
	seam  *hooks.Set
	sess  *session.Manager
	reg   *tool.Registry
	dir   string
	extra []tool.Tool
}

func newFixture(t testing.TB, extra ...tool.Tool) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{echo: &echo{name: "echo"}, seam: hooks.New(), dir: dir}
	ts := append([]tool.Tool{f.echo}, extra...)
	bash, err := builtin.New("bash", builtin.Env{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	ts = append(ts, bash)
	f.reg, err = tool.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	f.sess = session.InMemory(dir)
	f.tool = codemode.New(codemode.Config{Tools: f.reg, Hooks: f.seam, TempDir: dir})
	if err := f.reg.Add(f.tool); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) run(t testing.TB, args string) (tool.Result, string) {
	t.Helper()
	// The runtime puts the session on every call's context (store/load).
	ctx := session.NewContext(tool.WithCallID(context.Background(), "call_1"), f.sess)
	r := f.tool.Execute(ctx, json.RawMessage(args), nil)
	var sb strings.Builder
	for _, b := range r.Content {
		if tc, ok := b.(*llm.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return r, sb.String()
}

func code(src string) string {
	b, _ := json.Marshal(map[string]string{"code": src})
	return string(b)
}

// wallTime hides the measured time so texts compare exactly.
func wallTime(s string) string {
	i := strings.Index(s, "Wall time ")
	if i < 0 {
		return s
	}
	j := strings.Index(s[i:], " seconds")
	return s[:i] + "Wall time X seconds" + s[i+j+len(" seconds"):]
}

func TestInputShapes(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct{ name, args, want string }{
		{"code", code(`text("hi")`), "hi"},
		{"alias script", `{"script":"return 1+1"}`, "2"},
		{"alias source", `{"source":"return 'src'"}`, "src"},
		{"bare JSON string", `"return 'bare'"`, "bare"},
		{"raw source, not JSON", `return "raw"`, "raw"},
		{"fenced", code("```javascript\nreturn 'fenced'\n```"), "fenced"},
		{"fenced no language", code("```\nreturn 'plain fence'\n```"), "plain fence"},
		{"options line", code("// @options: {\"max_output_tokens\": 100, \"timeout_ms\": 5000}\nreturn 'opts'"), "opts"},
		{"JSON program object", code(`{"tool":"echo","args":{"text":"from program"}}`), "from program"},
		{"JSON program list", code(`[{"name":"echo","arguments":{"text":"a"}},{"name":"echo","arguments":"{\"text\":\"b\"}"}]`), "a\nb"},
		{"JSON program as arguments", `{"tool_calls":[{"function":{"name":"echo","arguments":"{\"text\":\"oa\"}"}}]}`, "oa"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, text := f.run(t, c.args)
			want := "Script completed\nWall time X seconds\nOutput:\n" + c.want
			if r.IsError || wallTime(text) != want {
				t.Errorf("got %q (error %v), want %q", wallTime(text), r.IsError, want)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct{ args, want string }{
		{`{}`, "missing argument code"},
		{`{"code": 5}`, "argument code must be a string"},
		{code("   "), "empty script"},
		{code(`// @options: {"timeout_ms": 10}`), "must be followed by code"},
		{code("// @options: {\"nope\": 1}\nreturn 1"), `unknown field "nope"`},
		{code("// @options: {\"timeout_ms\": -4}\nreturn 1"), "timeout_ms must be a positive integer"},
		{code("// @options: {bad json\nreturn 1"), "invalid // @options: line"},
	} {
		r, text := f.run(t, c.args)
		if !r.IsError || !strings.HasPrefix(text, "codemode: ") || !strings.Contains(text, c.want) {
			t.Errorf("args %s: got %q, want an error containing %q", c.args, text, c.want)
		}
	}
}

func TestResultTexts(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		name, src, want string
		isErr           bool
	}{
		{"no output", `;`, "Script completed\nWall time X seconds\nOutput:\n", false},
		{"text and console", `text("a"); console.log("b", 1, {x: 2}); console.error([1]); text({k: "v"})`,
			"Script completed\nWall time X seconds\nOutput:\na\nb 1 {\"x\":2}\n[1]\n{\"k\":\"v\"}", false},
		{"return object", `return {a: [1, 2]}`, "Script completed\nWall time X seconds\nOutput:\n{\"a\":[1,2]}", false},
		{"await tool", `const r = await tools.echo({text: "hello"}); return r.toUpperCase()`,
			"Script completed\nWall time X seconds\nOutput:\nHELLO", false},
		{"exit keeps output", `text("before"); exit(); text("after")`, "Script completed\nWall time X seconds\nOutput:\nbefore", false},
		{"throw", `text("partial"); throw new TypeError("bad thing")`,
			"Script failed\nWall time X seconds\nOutput:\npartial\nScript error:\nTypeError: bad thing\n", true},
		{"syntax error", `return (`, "Script failed\nWall time X seconds\nOutput:\nScript error:\nSyntaxError", true},
		{"tool error rejects", `await tools.echo({text: "x", fail: true})`,
			"Script failed\nWall time X seconds\nOutput:\nScript error:\nError: echo failed: x\n", true},
		{"allSettled keeps going", `const r = await Promise.allSettled([tools.echo({text: "ok"}), tools.echo({text: "no", fail: true})]); return r.map(x => x.status)`,
			"Script completed\nWall time X seconds\nOutput:\n[\"fulfilled\",\"rejected\"]", false},
		{"unknown tool", `await tools.nope({})`,
			"Script failed\nWall time X seconds\nOutput:\nScript error:\nError: Unknown tool \"nope\". Find tools with searchTools(query) or ALL_TOOLS.", true},
		{"never settles", `await new Promise(() => {})`,
			"Script failed\nWall time X seconds\nOutput:\nScript error:\nError: the script awaits a promise that can never settle", true},
		{"no nested calls summary", `throw new Error("x")`, "No tool calls were made.", true},
		{"calls summary", `await tools.echo({text: "1"}); throw new Error("x")`, "Tool calls made before the failure (they are not undone): echo (ok)", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, text := f.run(t, code(c.src))
			got := wallTime(text)
			if r.IsError != c.isErr || !strings.Contains(got, c.want) || (!c.isErr && got != c.want) {
				t.Errorf("got %q (error %v), want %q (error %v)", got, r.IsError, c.want, c.isErr)
			}
		})
	}
}

func TestNestedCallIDsAndHooks(t *testing.T) {
	f := newFixture(t)
	var seen []string
	f.seam.ToolCall.On("test", func(_ context.Context, e *hooks.ToolCall) (hooks.ToolCallResult, error) {
		seen = append(seen, e.Call.ID+" "+e.Call.Name+" parent="+e.ParentToolCallID)
		if strings.Contains(string(e.Call.Arguments), "forbidden") {
			return hooks.ToolCallResult{Block: true, Reason: "blocked by test"}, nil
		}
		return hooks.ToolCallResult{}, nil
	})
	f.seam.ToolResult.On("test", func(_ context.Context, e *hooks.ToolResult) (hooks.None, error) {
		e.Result.Content = llm.Blocks{&llm.TextContent{Text: "rewritten " + e.Call.ID}}
		return hooks.None{}, nil
	})
	r, text := f.run(t, code(`text(await tools.echo({text: "a"})); try { await tools.echo({text: "forbidden"}) } catch (e) { text("caught " + e.message) }`))
	if r.IsError {
		t.Fatalf("result %q", text)
	}
	if !strings.Contains(text, "rewritten call_1/1") || !strings.Contains(text, "caught blocked by test") {
		t.Errorf("text %q", text)
	}
	want := []string{"call_1/1 echo parent=call_1", "call_1/2 echo parent=call_1"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("hook saw %v, want %v", seen, want)
	}
	if f.echo.calls.Load() != 1 || f.echo.ids[0] != "call_1/1" {
		t.Errorf("echo ran %d times with ids %v; the blocked call must not run", f.echo.calls.Load(), f.echo.ids)
	}
	d := r.Details.(codemode.Details)
	if len(d.Calls) != 2 || d.Calls[1].Status != "blocked" {
		t.Errorf("details %+v", d)
	}
}

// The harness authorization gate registers on the seam; a destructive
// bash command inside a script meets it like a direct call would.
func TestHarnessGateBlocksNestedBash(t *testing.T) {
	f := newFixture(t)
	cfg := harness.DefaultConfig()
	cfg.Alignment, cfg.AuthorizationGate, cfg.Cwd = true, true, f.dir
	cfg.Probe = nil
	if _, err := harness.New(cfg).Register(f.seam, commands.New()); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(f.dir, "victim")
	if err := os.WriteFile(victim, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, text := f.run(t, code(`const r = await tools.bash({command: "rm -rf `+victim+`"}); return r`))
	if !r.IsError || !strings.Contains(text, "Script error:") || !strings.Contains(text, "bash (blocked)") {
		t.Errorf("destructive nested bash: %q", text)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the blocked command ran: %v", err)
	}
	// A read-only command passes the gate.
	r, text = f.run(t, code(`const r = await tools.bash({command: "echo hi"}); return [r.output.trim(), r.exit_code]`))
	if r.IsError || !strings.HasSuffix(text, `["hi",0]`) {
		t.Errorf("harmless nested bash: %q", text)
	}
}

func TestBashStructuredResult(t *testing.T) {
	f := newFixture(t)
	r, text := f.run(t, code(`const r = await tools.bash({command: "echo out; exit 3"}); return {o: r.output.trim(), c: r.exit_code, t: r.truncated, w: typeof r.wall_time_seconds}`))
	if r.IsError || !strings.HasSuffix(text, `{"o":"out","c":3,"t":false,"w":"number"}`) {
		t.Errorf("bash value: %q", text)
	}
}

func TestTimeoutAndMemory(t *testing.T) {
	f := newFixture(t)
	r, text := f.run(t, code("// @options: {\"timeout_ms\": 300}\ntext('started'); while (true) {}"))
	if !r.IsError || !strings.Contains(text, "started\nScript error:\nScript timed out: it ran longer than 300 ms") {
		t.Errorf("endless loop: %q", text)
	}
	r, text = f.run(t, code("// @options: {\"timeout_ms\": 300}\nwhile (true) { try { while (true) {} } catch (e) {} }"))
	if !r.IsError || !strings.Contains(text, "Script timed out") {
		t.Errorf("loop catching the interrupt: %q", text)
	}
	r, text = f.run(t, code(`const a = []; while (true) a.push("x".repeat(1 << 20) + a.length)`))
	if !r.IsError || !strings.Contains(text, "out of memory") {
		t.Errorf("unbounded allocation: %q", text)
	}
	ctx, cancel := context.WithCancel(tool.WithCallID(context.Background(), "c"))
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	res := f.tool.Execute(ctx, json.RawMessage(code(`while (true) {}`)), nil)
	if !res.IsError || !strings.Contains(res.Content[1].(*llm.TextContent).Text, "Script aborted") {
		t.Errorf("abort: %+v", res.Content)
	}
}

func TestOutputLimits(t *testing.T) {
	f := newFixture(t)
	r, text := f.run(t, code(`for (let i = 0; i < 100001; i++) { try { text("") } catch (e) {} }`))
	if !r.IsError || !strings.Contains(text, "RangeError: output limit: more than 100000") {
		t.Errorf("calls limit (caught in the script): %q", text[:min(len(text), 300)])
	}
	r, text = f.run(t, code(`const s = "x".repeat(1 << 20); for (let i = 0; i < 17; i++) text(s)`))
	if !r.IsError || !strings.Contains(text, "more than 16777216 characters") {
		t.Errorf("chars limit: %q", text[:min(len(text), 300)])
	}
	// Long output keeps head and tail; the full text goes to a file.
	r, text = f.run(t, code("// @options: {\"max_output_tokens\": 50}\nfor (let i = 0; i < 1000; i++) text('line ' + i)"))
	d := r.Details.(codemode.Details)
	if r.IsError || !strings.Contains(text, "Warning: truncated output (original token count: ") || !strings.Contains(text, "line 0\nline 1") ||
		!strings.Contains(text, "line 999") || strings.Contains(text, "line 500\n") || d.FullOutputPath == "" {
		t.Fatalf("truncated: %q", text)
	}
	full, err := os.ReadFile(d.FullOutputPath)
	if err != nil || !strings.Contains(string(full), "line 500\n") {
		t.Errorf("full output file: %v %d bytes", err, len(full))
	}
}

func TestStorePersistsOnSuccess(t *testing.T) {
	f := newFixture(t)
	if r, text := f.run(t, code(`store("n", 1); store("obj", {a: [1]}); return load("n")`)); r.IsError || !strings.HasSuffix(text, "1") {
		t.Fatalf("store: %q", text)
	}
	if r, text := f.run(t, code(`store("n", load("n") + 1); store("obj", undefined); return [load("n"), load("obj")]`)); r.IsError || !strings.HasSuffix(text, "[2,null]") {
		t.Fatalf("load after: %q", text)
	}
	// A failed script's writes are dropped.
	f.run(t, code(`store("n", 100); throw new Error("no")`))
	if _, text := f.run(t, code(`return load("n")`)); !strings.HasSuffix(text, "2") {
		t.Errorf("failed script's write kept: %q", text)
	}
	var entries int
	for _, e := range f.sess.Branch("") {
		if c := e.Custom(); c != nil && c.CustomType == codemode.StoreEntryType {
			entries++
		}
	}
	if entries != 2 {
		t.Errorf("%d codemode-store entries, want 2", entries)
	}
	big := strings.Repeat("x", codemode.MaxStoreValue)
	_, text := f.run(t, code(`store("big", "`+big+`")`))
	if !strings.Contains(text, "RangeError: store(\"big\"): the value has 262146 characters of JSON; the limit is 262144") {
		t.Errorf("value limit: %q", text[len(text)-300:])
	}
}

func TestDiscoveryGlobals(t *testing.T) {
	gh := &echo{name: "mcp__git-hub__create_issue", exposure: tool.ExposeDeferred, ns: "mcp__git-hub"}
	hidden := &echo{name: "secret", exposure: tool.ExposeHidden}
	f := newFixture(t, gh, hidden)
	_, text := f.run(t, code(`return ALL_TOOLS.map(t => t.name)`))
	if !strings.HasSuffix(text, `["echo","mcp__git_hub__create_issue","bash"]`) {
		t.Errorf("ALL_TOOLS: %q", text)
	}
	_, text = f.run(t, code(`const r = await searchTools("create issue", {limit: 1}); return [r.length, r[0].name, await tools.mcp__git_hub__create_issue({text: "via id"}), await tools["mcp__git-hub__create_issue"]({text: "via name"})]`))
	if !strings.HasSuffix(text, `[1,"mcp__git_hub__create_issue","via id","via name"]`) {
		t.Errorf("searchTools: %q", text)
	}
	_, text = f.run(t, code(`return [(await searchTools("echo")).length, (await searchTools("echo", {namespace: "git-hub"})).length, (await describeNamespace("git-hub")).tools, await describeTool("nope"), (await describeTool("echo")).includes("echo(args: {")]`))
	if !strings.HasSuffix(text, `[2,1,["mcp__git_hub__create_issue"],null,true]`) {
		t.Errorf("describe: %q", text)
	}
	if _, text = f.run(t, code(`await tools.secret({text: "x"})`)); !strings.Contains(text, `Unknown tool "secret"`) {
		t.Errorf("hidden tool callable: %q", text)
	}
	if _, text = f.run(t, code(`await searchTools("x", {limit: 0})`)); !strings.Contains(text, "TypeError: searchTools() limit must be a positive integer") {
		t.Errorf("bad limit: %q", text)
	}
}

func TestImage(t *testing.T) {
	f := newFixture(t)
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	r, text := f.run(t, code(`image("data:image/png;base64,`+png+`"); image({type: "image", data: "`+png+`", mimeType: "image/png"})`))
	images := 0
	for _, b := range r.Content {
		if _, ok := b.(*llm.ImageContent); ok {
			images++
		}
	}
	if r.IsError || images != 2 || !strings.Contains(text, "[Image saved to ") {
		t.Errorf("images: %d, %q", images, text)
	}
	if _, text = f.run(t, code(`image("https://example.com/a.png")`)); !strings.Contains(text, "remote URLs are not supported") {
		t.Errorf("remote: %q", text)
	}
}

func TestDescription(t *testing.T) {
	gh := &echo{name: "mcp__gh__issue", exposure: tool.ExposeDeferred, ns: "gh"}
	cm := &echo{name: "lookup", exposure: tool.ExposeCodemode, ns: "docs"}
	f := newFixture(t, gh, cm)
	d := f.tool.Spec().Description
	if !strings.Contains(d, "## docs\n\n### `lookup`") || strings.Contains(d, "mcp__gh__issue") || strings.Contains(d, "### `echo`") {
		t.Errorf("mode on description:\n%s", d)
	}
	only := codemode.New(codemode.Config{Tools: f.reg, Mode: func() string { return "only" }, InlineBudget: func() int { return 0 }})
	if d := only.Spec().Description; !strings.Contains(d, "## docs (tools not listed)") || strings.Contains(d, "### `echo`") {
		t.Errorf("budget 0 description:\n%s", d)
	}
	only = codemode.New(codemode.Config{Tools: f.reg, Mode: func() string { return "only" }})
	if d := only.Spec().Description; !strings.Contains(d, "### `echo`\n/**\n * Echo the text back.\n */\necho(args: { fail?: boolean; /** what to echo */ text: string; }): Promise<string>;") {
		t.Errorf("mode only description:\n%s", d)
	}
}

// structured answers like an MCP tool: text for the model, the whole
// result for scripts, also when it is an error.
type structured struct{}

func (structured) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "mcp__srv__weather", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (structured) Exposure() tool.Exposure { return tool.ExposeCodemode }
func (structured) ResultSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"content":{"type":"array","items":{"type":"object"}},"structuredContent":{"type":"object","properties":{"temp":{"type":"number"}}},"isError":{"type":"boolean"}},"required":["content"]}`)
}
func (structured) Execute(_ context.Context, args json.RawMessage, _ func(tool.Result)) tool.Result {
	isErr := strings.Contains(string(args), "mars")
	return tool.Result{Content: llm.Blocks{&llm.TextContent{Text: "truncated text"}}, IsError: isErr,
		Structured: json.RawMessage(fmt.Sprintf(`{"content":[{"type":"text","text":"full"}],"structuredContent":{"temp":21},"isError":%v}`, isErr))}
}

func TestStructuredResultsReachScriptsAsValues(t *testing.T) {
	f := newFixture(t, structured{})
	r, text := f.run(t, code(`const a = await tools.mcp__srv__weather({city: "Lisbon"});
const b = await tools.mcp__srv__weather({city: "mars"});
return [a.structuredContent.temp, a.content[0].text, a.isError, b.isError]`))
	if r.IsError || !strings.HasSuffix(text, `[21,"full",false,true]`) {
		t.Errorf("got %q", text)
	}
	d := r.Details.(codemode.Details)
	if len(d.Calls) != 2 || d.Calls[0].Status != "ok" || d.Calls[1].Status != "error" {
		t.Errorf("calls %+v", d.Calls)
	}
	// The declaration says what the call resolves to.
	_, text = f.run(t, code(`return await describeTool("mcp__srv__weather")`))
	if !strings.Contains(text, "Promise<{ content: Array<Record<string, unknown>>; isError?: boolean; structuredContent?: { temp?: number; }; }>") {
		t.Errorf("declaration %q", text)
	}
}

// fakeLoop is the agent loop's runner as codemode sees it.
type fakeLoop struct {
	names []string
}

func (l *fakeLoop) RunNested(ctx context.Context, nc tool.NestedCall) tool.NestedOutcome {
	id := fmt.Sprintf("%s/loop%d", tool.CallID(ctx), len(l.names)+1)
	l.names = append(l.names, nc.Name)
	nc.OnStart(id)
	if len(l.names) == 2 {
		return tool.NestedOutcome{ID: id, Result: tool.Error("gate says no"), Blocked: true}
	}
	return tool.NestedOutcome{ID: id, Result: nc.Tool.Execute(tool.WithCallID(ctx, id), nc.Args, nil)}
}

// Inside the agent loop, every script call goes through the loop's runner
// (events, hooks, the nestedCalls record); the seam is not called twice.
func TestNestedCallsGoThroughTheLoopRunner(t *testing.T) {
	f := newFixture(t)
	hookCalls := 0
	f.seam.ToolCall.On("test", func(context.Context, *hooks.ToolCall) (hooks.ToolCallResult, error) {
		hookCalls++
		return hooks.ToolCallResult{}, nil
	})
	loop := &fakeLoop{}
	ctx := tool.WithNested(tool.WithCallID(context.Background(), "call_9"), loop)
	r := f.tool.Execute(ctx, json.RawMessage(code(`text(await tools.echo({text: "x"})); try { await tools.echo({text: "y"}) } catch (e) { text(e.message) }`)), nil)
	var sb strings.Builder
	for _, b := range r.Content {
		if tc, ok := b.(*llm.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	if r.IsError || !strings.Contains(sb.String(), "x\ngate says no") {
		t.Errorf("result %q", sb.String())
	}
	if fmt.Sprint(loop.names) != "[echo echo]" || hookCalls != 0 {
		t.Errorf("loop ran %v; seam hooks called %d times by codemode itself", loop.names, hookCalls)
	}
	d := r.Details.(codemode.Details)
	if len(d.Calls) != 2 || d.Calls[0].ID != "call_9/loop1" || d.Calls[1].Status != "blocked" || f.echo.ids[0] != "call_9/loop1" {
		t.Errorf("calls %+v, echo ids %v", d.Calls, f.echo.ids)
	}
}

type catalog []*llm.Model

func (c catalog) All() []*llm.Model { return c }
func (c catalog) Available(context.Context) []*llm.Model {
	var out []*llm.Model
	for _, m := range c {
		if m.Provider != "nokey" {
			out = append(out, m)
		}
	}
	return out
}

// The models global lists the catalog by type (headers, which may carry
// credentials, left out); classify and generateImages check their model
// and, since relay cannot run such models yet, resolve to an error result
// instead of throwing.
func TestModelsGlobal(t *testing.T) {
	f := newFixture(t)
	f.tool = codemode.New(codemode.Config{Tools: f.reg, Hooks: f.seam, TempDir: f.dir, Models: catalog{
		{Provider: "anthropic", ID: "claude", API: "anthropic-messages", Headers: map[string]string{"x-secret": "s3cret"}},
		{Provider: "nokey", ID: "other", API: "openai-completions"},
		{Provider: "typesafe", ID: "jev", API: "typesafe-classifier", Type: "classifier"},
	}})
	for _, c := range []struct{ name, src, want string }{
		{"chat", `return (await models.getModelsOfType("chat")).map(m => m.provider + "/" + m.id + ":" + m.type + ":" + JSON.stringify(m.headers))`, `["anthropic/claude:chat:undefined","nokey/other:chat:undefined"]`},
		{"available", `return (await models.getAvailableOfType("chat")).map(m => m.id)`, `["claude"]`},
		{"by provider", `return (await models.getModelsOfType("chat", "nokey")).length`, `1`},
		{"one", `return (await models.getModelOfType("classifier", "typesafe", "jev")).api`, `typesafe-classifier`},
		{"missing", `return String(await models.getModelOfType("chat", "x", "y"))`, `undefined`},
		{"bad type", `try { await models.getModelsOfType("llm") } catch (e) { return e.message }`, `Unknown model type "llm". Use "chat", "image", or "classifier".`},
		{"classify", `const jev = await models.getModelOfType("classifier", "typesafe", "jev"); const r = await models.classify(jev, {state: {}, questions: {}}); return [r.stopReason, r.errorMessage]`, `["error","relay cannot run classifier models yet: no client for api \"typesafe-classifier\""]`},
		{"wrong kind", `try { await models.generateImages({provider: "typesafe", id: "jev"}, {input: []}) } catch (e) { return e.message }`, `"typesafe/jev" is a classifier model, not an image model. List the image models you can use with models.getAvailableOfType("image").`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, text := f.run(t, code(c.src))
			if r.IsError || !strings.HasSuffix(text, c.want) {
				t.Errorf("got %q, want suffix %q", text, c.want)
			}
		})
	}
}
