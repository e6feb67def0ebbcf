package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// writeAgentResources puts one skill and one prompt template in the agent
// dir of e.
func writeAgentResources(t *testing.T, e *env) (skillPath string) {
	t.Helper()
	skillPath = filepath.Join(e.agentDir, "skills", "deploy-check", "SKILL.md")
	files := map[string]string{
		skillPath: "---\nname: deploy-check\ndescription: Check a deployment & its <health>. Use before releasing.\n---\n# Deploy check\n\nRun `scripts/check.sh`.\n",
		filepath.Join(e.agentDir, "prompts", "mytemplate.md"): "---\ndescription: Explain a file\n---\nExplain $1 in ${2:-plain words}.\n",
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return skillPath
}

// runHome runs relay with HOME inside the test dir, so the machine's
// ~/.agents/skills cannot leak in.
func (e *env) runHome(args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	c := e.cmd(nil, args...)
	c.Env = append(c.Env, "HOME="+filepath.Dir(e.cwd))
	var o, er bytes.Buffer
	c.Stdout, c.Stderr = &o, &er
	err := c.Run()
	if ee, ok := err.(interface{ ExitCode() int }); ok && err != nil {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return o.String(), er.String(), code
}

func systemText(t *testing.T, req llmtest.Request) string {
	t.Helper()
	var parts []string
	sys, _ := req.Body["system"].([]any)
	for _, s := range sys {
		if m, ok := s.(map[string]any); ok {
			text, _ := m["text"].(string)
			parts = append(parts, text)
		}
	}
	return strings.Join(parts, "\n")
}

// lastUserText returns the text of the request's last user message.
func lastUserText(t *testing.T, req llmtest.Request) string {
	t.Helper()
	msgs, _ := req.Body["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatalf("no messages: %s", req.Raw)
	}
	last := msgs[len(msgs)-1].(map[string]any)
	switch c := last["content"].(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, b := range c {
			if m, ok := b.(map[string]any); ok && m["type"] == "text" && !strings.HasPrefix(m["text"].(string), "<harness_state>") {
				parts = append(parts, m["text"].(string))
			}
		}
		return strings.Join(parts, "\n")
	}
	t.Fatalf("content %T", last["content"])
	return ""
}

func TestSkillListedInSystemPrompt(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}, {Text: "ok"}, {Text: "ok"}}}, nil)
	skillPath := writeAgentResources(t, e)
	out, errOut, code := e.runHome("-p", model, "hello")
	if code != 0 || out != "ok\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	sys := systemText(t, e.fake.Requests()[0])
	want := "<skills>\nThe following skills provide specialized instructions for specific tasks.\n" +
		"Use the read tool to load a skill's file when the task matches its description.\n"
	entry := "<available_skills>\n  <skill>\n    <name>deploy-check</name>\n" +
		"    <description>Check a deployment &amp; its &lt;health&gt;. Use before releasing.</description>\n" +
		"    <location>" + skillPath + "</location>\n  </skill>\n</available_skills>\n</skills>"
	if !strings.Contains(sys, want) || !strings.Contains(sys, entry) {
		t.Fatalf("system prompt lacks the skills section:\n%s", sys)
	}
	if strings.Index(sys, "<skills>") > strings.Index(sys, "<cwd>") {
		t.Errorf("skills section after cwd:\n%s", sys)
	}

	// --no-skills drops the section; so does a tool set without read and bash.
	for i, args := range [][]string{{"--no-skills"}, {"--tools", "edit,write"}} {
		if _, errOut, code := e.runHome(append(append([]string{"-p", model}, args...), "hello")...); code != 0 {
			t.Fatalf("%v: exit %d stderr %q", args, code, errOut)
		}
		if sys := systemText(t, e.fake.Requests()[i+1]); strings.Contains(sys, "<skills>") {
			t.Errorf("%v still lists skills:\n%s", args, sys)
		}
	}
}

func TestTemplateAndSkillCommandsExpand(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "one"}, {Text: "two"}, {Text: "three"}}}, nil)
	skillPath := writeAgentResources(t, e)
	if out, errOut, code := e.runHome("-p", model, "/mytemplate main.go"); code != 0 || out != "one\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if got := lastUserText(t, e.fake.Requests()[0]); got != "Explain main.go in plain words." {
		t.Errorf("template sent as %q", got)
	}
	if _, errOut, code := e.runHome("-p", model, "/skill:deploy-check staging please"); code != 0 {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	want := "<skill name=\"deploy-check\" location=\"" + skillPath + "\">\nReferences are relative to " + filepath.Dir(skillPath) +
		".\n\n# Deploy check\n\nRun `scripts/check.sh`.\n</skill>\n\nstaging please"
	if got := lastUserText(t, e.fake.Requests()[1]); got != want {
		t.Errorf("skill command sent as %q\nwant %q", got, want)
	}
	// A --prompt-template file works with -np too; unknown commands pass through.
	extra := filepath.Join(e.cwd, "extra.md")
	os.WriteFile(extra, []byte("Extra for $@."), 0o644)
	if _, errOut, code := e.runHome("-p", model, "-np", "--prompt-template", extra, "/extra a b"); code != 0 {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	if got := lastUserText(t, e.fake.Requests()[2]); got != "Extra for a b." {
		t.Errorf("--prompt-template sent as %q", got)
	}
}

func TestRPCGetCommands(t *testing.T) {
	e := newEnv(t, &llmtest.Script{}, nil)
	skillPath := writeAgentResources(t, e)
	c := e.cmd(strings.NewReader(`{"id":"1","type":"get_commands"}`+"\n"), "--mode", "rpc", model)
	c.Env = append(c.Env, "HOME="+filepath.Dir(e.cwd))
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, stdout)
	c.Wait()
	var resp struct {
		ID      string `json:"id"`
		Success bool   `json:"success"`
		Data    struct {
			Commands []map[string]any `json:"commands"`
		} `json:"data"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || !resp.Success || resp.ID != "1" {
		t.Fatalf("response %s", line)
	}
	got, _ := json.Marshal(resp.Data.Commands)
	want, _ := json.Marshal([]map[string]any{
		{"name": "mytemplate", "description": "Explain a file", "source": "prompt", "sourceInfo": map[string]any{
			"path": filepath.Join(e.agentDir, "prompts", "mytemplate.md"), "source": "auto", "scope": "user", "origin": "top-level", "baseDir": e.agentDir}},
		{"name": "skill:deploy-check", "description": "Check a deployment & its <health>. Use before releasing.", "source": "skill", "sourceInfo": map[string]any{
			"path": skillPath, "source": "auto", "scope": "user", "origin": "top-level", "baseDir": e.agentDir}},
	})
	if string(got) != string(want) {
		t.Errorf("commands\n%s\nwant\n%s", got, want)
	}
}
