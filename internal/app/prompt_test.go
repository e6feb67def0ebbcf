package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
)

func TestBuildSectionsAndPatch(t *testing.T) {
	tools := []llm.ToolSpec{{Name: "read", Description: "r", Parameters: []byte(`{}`), PromptSnippet: "Read file contents"}, {Name: "bash", Description: "b", Parameters: []byte(`{}`)}}
	in := PromptInputs{Cwd: `C:\proj`, Tools: tools, Append: []string{"extra"}, Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		ContextFiles: []ContextFile{{Path: "/p/AGENTS.md", Content: "be nice"}}}
	secs := BuildSections(in)
	var names []string
	for _, s := range secs {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "preamble,tools,rules,docs,addendum,project_context,cwd" {
		t.Fatalf("sections %s", got)
	}
	full := SystemPatch(nil, secs, tools, 1)
	state := llm.ReplaySystem([]llm.Message{full})
	prompt := state.Prompt()
	for _, want := range []string{DefaultPreamble + "\n\n<tools>\n- read: Read file contents", "Use the shell for file operations", "<project_instructions path=\"/p/AGENTS.md\">\nbe nice\n</project_instructions>", "Current working directory: C:/proj"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	if SystemPatch(&state, secs, tools, 2) != nil {
		t.Error("unchanged state produced a patch")
	}
	in.Append = nil
	in.Tools = tools[:1]
	secs2 := BuildSections(in)
	patch := SystemPatch(&state, secs2, tools[:1], 3)
	b, _ := llm.Marshal(patch)
	if !strings.Contains(string(b), `"addendum":null`) || !strings.Contains(string(b), `"toolsRemoved":[{"name":"bash"}]`) {
		t.Errorf("patch %s", b)
	}
	state.Apply(patch)
	if len(state.Tools) != 1 || strings.Contains(state.Prompt(), "<addendum>") {
		t.Errorf("patched state wrong: %s", state.Prompt())
	}
}

func TestLoadContextFiles(t *testing.T) {
	root := t.TempDir()
	agent := filepath.Join(root, "agent")
	proj := filepath.Join(root, "a", "b")
	os.MkdirAll(agent, 0o755)
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(agent, "AGENTS.md"), []byte("global"), 0o644)
	os.WriteFile(filepath.Join(root, "a", "CLAUDE.md"), []byte("\ufeffparent"), 0o644)
	os.WriteFile(filepath.Join(proj, "AGENTS.md"), []byte("mine"), 0o644)
	os.WriteFile(filepath.Join(proj, "AGENTS.override.md"), []byte("override"), 0o644)
	files := LoadContextFiles(agent, proj)
	var got []string
	for _, f := range files {
		got = append(got, f.Content)
	}
	if strings.Join(got, ",") != "global,parent,override" {
		t.Errorf("got %v", got)
	}
}

// Features' own sections (MCP's mcp_servers) come after the skills and
// before cwd, with a custom prompt too; an empty one is left out, so a
// patch removes it when it empties.
func TestExtraSections(t *testing.T) {
	for _, custom := range []string{"", "You are a bot."} {
		in := PromptInputs{Cwd: "/p", CustomPrompt: custom, ExtraSections: []hooks.PromptSection{{Name: "mcp_servers", Text: "MCP servers whose tools are not declared to you."}, {Name: "empty", Text: " "}}}
		var names []string
		for _, s := range BuildSections(in) {
			names = append(names, s.Name)
		}
		if got := strings.Join(names, ","); !strings.HasSuffix(got, ",mcp_servers,cwd") || strings.Contains(got, "empty") {
			t.Errorf("custom %q: sections %s", custom, got)
		}
	}
	in := PromptInputs{Cwd: "/p", ExtraSections: []hooks.PromptSection{{Name: "mcp_servers", Text: "one server"}}}
	state := llm.ReplaySystem([]llm.Message{SystemPatch(nil, BuildSections(in), nil, 1)})
	in.ExtraSections = nil
	b, _ := llm.Marshal(SystemPatch(&state, BuildSections(in), nil, 2))
	if !strings.Contains(string(b), `"mcp_servers":null`) {
		t.Errorf("patch %s", b)
	}
}

// A tool's prompt lines come from its own spec: an extension tool's
// promptSnippet and promptGuidelines appear while it is active, and a tool
// replacing a built-in one inherits none of the built-in's lines.
func TestBuildSectionsToolPromptLines(t *testing.T) {
	tools := []llm.ToolSpec{
		{Name: "read", Description: "audited read", Parameters: []byte(`{}`)},
		{Name: "todo", Description: "t", Parameters: []byte(`{}`), PromptSnippet: "List or add items in the project todo list",
			PromptGuidelines: []string{"Use todo when the user asks for a task list."}},
		{Name: "quiet", Description: "q", Parameters: []byte(`{}`)},
	}
	secs := BuildSections(PromptInputs{Cwd: "/p", Tools: tools, Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)})
	text := map[string]string{}
	for _, s := range secs {
		text[s.Name] = *s.Text
	}
	if got := text["tools"]; !strings.HasPrefix(got, "- todo: List or add items in the project todo list\n\n") {
		t.Errorf("tools section:\n%s", got)
	}
	if got := text["rules"]; !strings.Contains(got, "- Use todo when the user asks for a task list.") || strings.Contains(got, "Use read to examine") {
		t.Errorf("rules section:\n%s", got)
	}
}
