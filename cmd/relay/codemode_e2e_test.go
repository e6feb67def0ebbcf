package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// declaredTools lists the tool names a request declared to the model.
func declaredTools(t *testing.T, raw []byte) []string {
	t.Helper()
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var out []string
	for _, x := range body.Tools {
		out = append(out, x.Name)
	}
	return out
}

// The model calls codemode; the script calls read and bash, which are
// real tool calls: the harness gate (on by default) refuses the
// destructive one inside the script.
func TestCodemodeCallsBuiltinTools(t *testing.T) {
	script := `const src = await tools.read({path: "notes.txt"});
text("notes: " + src.trim());
const r = await tools.bash({command: "echo from-bash; exit 2"});
text("bash: " + r.output.trim() + " exit " + r.exit_code);
try { await tools.bash({command: "rm -rf build"}); } catch (e) { text("refused: " + e.message.split("\n")[0]); }
store("seen", 1);
return "done";`
	args, _ := json.Marshal(map[string]string{"code": script})
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{tc("codemode", string(args))}},
		{Text: "Finished."},
	}}, map[string]any{"defaultTools": []string{"+codemode"}})
	os.WriteFile(filepath.Join(e.cwd, "notes.txt"), []byte("alpha beta\n"), 0o644)
	os.MkdirAll(filepath.Join(e.cwd, "build"), 0o755)
	out, errOut, code := e.run("--mode", "json", model, "use a script")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(e.cwd, "build")); err != nil {
		t.Fatal("the nested rm -rf ran")
	}
	reqs := e.fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; stderr %s", len(reqs), errOut)
	}
	if d := declaredTools(t, reqs[0].Raw); !slices.Contains(d, "codemode") || !slices.Contains(d, "read") {
		t.Errorf("declared %v, want codemode next to the default tools", d)
	}
	var second struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(reqs[1].Raw, &second)
	last := string(second.Messages[len(second.Messages)-1].Content)
	for _, want := range []string{`Script completed\nWall time `, `notes: alpha beta`, `bash: from-bash exit 2`, `refused: `, `done`} {
		if !strings.Contains(last, want) {
			t.Errorf("codemode result sent back lacks %q:\n%s", want, last)
		}
	}
	if !strings.Contains(out, `"toolName":"codemode"`) {
		t.Errorf("no codemode events in the JSON stream")
	}
	// The script's calls are tool calls of their own in the event stream,
	// naming the codemode call as their parent; the refused one ends in
	// an error.
	var parent string
	nested := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		var ev struct {
			Type, ToolCallID, ToolName, ParentToolCallID string
			IsError                                      bool
		}
		if json.Unmarshal([]byte(line), &ev) != nil || !strings.HasPrefix(ev.Type, "tool_execution_") {
			continue
		}
		if ev.ToolName == "codemode" && ev.ParentToolCallID == "" {
			parent = ev.ToolCallID
			continue
		}
		if ev.Type != "tool_execution_update" {
			nested[ev.ToolCallID] = append(nested[ev.ToolCallID], fmt.Sprintf("%s %s parent=%s err=%v", strings.TrimPrefix(ev.Type, "tool_execution_"), ev.ToolName, ev.ParentToolCallID, ev.IsError))
		}
	}
	want := map[string][]string{
		parent + "/1": {"start read parent=" + parent + " err=false", "end read parent=" + parent + " err=false"},
		parent + "/2": {"start bash parent=" + parent + " err=false", "end bash parent=" + parent + " err=true"},
		parent + "/3": {"start bash parent=" + parent + " err=false", "end bash parent=" + parent + " err=true"},
	}
	if fmt.Sprint(nested) != fmt.Sprint(want) {
		t.Errorf("nested events %v\nwant %v", nested, want)
	}
	sess, _ := os.ReadFile(e.sessionFiles()[0])
	if !strings.Contains(string(sess), `"nestedCalls":{"calls":[{"id":"`+parent+`/1","name":"read","arguments":{"path":"notes.txt"},"status":"ok"`) {
		t.Errorf("the codemode result does not record its nested calls:\n%s", sess)
	}
	if !strings.Contains(string(sess), `"customType":"codemode-store"`) {
		t.Errorf("store() not persisted as a codemode-store entry")
	}
	e.checkSessions()
}

// codemode.mode "only" declares codemode alone; scripts still reach the
// selected built-in tools.
func TestCodemodeOnlyMode(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"code": `const chat = await models.getModelsOfType("chat", "anthropic");
return ((await tools.ls({})).includes("notes.txt") ? "listed" : "missing") + " models:" + (chat.length > 0 && chat.every((m) => m.provider === "anthropic"))`})
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{tc("codemode", string(args))}},
		{Text: "ok"},
	}}, map[string]any{"defaultTools": []string{"read", "ls", "codemode"}, "codemode": map[string]any{"mode": "only"}})
	os.WriteFile(filepath.Join(e.cwd, "notes.txt"), []byte("x"), 0o644)
	_, errOut, code := e.run("-p", model, "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reqs := e.fake.Requests()
	if d := declaredTools(t, reqs[0].Raw); !slices.Equal(d, []string{"codemode"}) {
		t.Errorf("declared %v, want only codemode", d)
	}
	if !strings.Contains(string(reqs[1].Raw), "listed models:true") {
		t.Errorf("script result: %s", reqs[1].Raw)
	}
}
