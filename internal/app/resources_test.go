package app

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/resources"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
)

var updateResources = flag.Bool("update-resources", false, "rewrite the skills section golden file")

func TestSkillsSection(t *testing.T) {
	skills := []resources.Skill{
		{Name: "pdf-tools", Description: "Extract text & tables from PDFs. Use when reading <PDF> files.", FilePath: "/agent/skills/pdf-tools/SKILL.md"},
		{Name: "manual", Description: "Only by command.", FilePath: "/agent/skills/manual/SKILL.md", DisableModelInvocation: true},
	}
	spec := func(names ...string) []llm.ToolSpec {
		var out []llm.ToolSpec
		for _, n := range names {
			out = append(out, llm.ToolSpec{Name: n, Parameters: []byte(`{}`)})
		}
		return out
	}
	tests := []struct {
		name     string
		tools    []llm.ToolSpec
		skills   []resources.Skill
		custom   string
		sections string
		loadWith string
	}{
		{"read and bash", spec("read", "bash", "edit", "write"), skills, "", "preamble,tools,rules,docs,project_context,skills,cwd", "Use the read tool"},
		{"bash only", spec("bash"), skills, "", "preamble,tools,rules,docs,project_context,skills,cwd", "Use bash to load"},
		{"bash before read", spec("bash", "read"), skills, "", "preamble,tools,rules,docs,project_context,skills,cwd", "Use the read tool"},
		{"neither read nor bash", spec("edit", "write"), skills, "", "preamble,tools,rules,docs,project_context,cwd", ""},
		{"only hidden skills", spec("read"), skills[1:], "", "preamble,tools,rules,docs,project_context,cwd", ""},
		{"no skills", spec("read"), nil, "", "preamble,tools,rules,docs,project_context,cwd", ""},
		{"custom prompt keeps skills", spec("read"), skills, "Custom.", "preamble,project_context,skills,cwd", "Use the read tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := PromptInputs{Cwd: "/proj", Tools: tt.tools, Skills: tt.skills, CustomPrompt: tt.custom, Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
				ContextFiles: []ContextFile{{Path: "/proj/AGENTS.md", Content: "be nice"}}}
			var names []string
			text := ""
			for _, s := range BuildSections(in) {
				names = append(names, s.Name)
				if s.Name == "skills" {
					text = *s.Text
				}
			}
			if got := strings.Join(names, ","); got != tt.sections {
				t.Fatalf("sections %s, want %s", got, tt.sections)
			}
			if tt.loadWith != "" && !strings.Contains(text, tt.loadWith) {
				t.Errorf("skills section lacks %q:\n%s", tt.loadWith, text)
			}
			if strings.Contains(text, "manual") {
				t.Errorf("hidden skill listed:\n%s", text)
			}
		})
	}
	// The whole prompt as the model sees it (section tags come from llm).
	in := PromptInputs{Cwd: "/proj", Tools: spec("read", "bash"), Skills: skills, Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}
	state := llm.ReplaySystem([]llm.Message{SystemPatch(nil, BuildSections(in), in.Tools, 1)})
	prompt := state.Prompt()
	i := strings.Index(prompt, "<skills>")
	j := strings.Index(prompt, "<cwd>")
	if i < 0 || j < i {
		t.Fatalf("no skills section before cwd:\n%s", prompt)
	}
	got := prompt[i:j]
	path := filepath.Join("testdata", "skills_section.txt")
	if *updateResources {
		_ = os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-resources)", err)
	}
	if got != string(want) {
		t.Errorf("skills section:\n%s\nwant\n%s", got, want)
	}
}

// resourceFixture writes a skill and a template into a fresh agent dir
// and loads them as the CLI does.
func resourceFixture(t *testing.T, enableSkillCommands bool) (*resources.Set, string) {
	t.Helper()
	agent := t.TempDir()
	files := map[string]string{
		"skills/review-code/SKILL.md": "---\ndescription: Review code.\n---\nCheck the diff.\n",
		"prompts/mytemplate.md":       "---\ndescription: Do a thing\n---\nPlease handle $1 carefully ($ARGUMENTS).\n",
	}
	for p, c := range files {
		full := filepath.Join(agent, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := &settings.Settings{EnableSkillCommands: enableSkillCommands}
	set := LoadResources(ResourceOptions{Settings: st, Cwd: t.TempDir(), AgentDir: agent})
	if len(set.Skills) != 1 || len(set.Templates) != 1 {
		t.Fatalf("loaded %+v %+v %v", set.Skills, set.Templates, set.Diagnostics)
	}
	return set, agent
}

func TestExpandCommandOnPromptSteerFollowUp(t *testing.T) {
	rt, fc := newRuntime(t, say("one"), say("two"))
	if got, ok := rt.expandCommand("/mytemplate x"); ok || got != "/mytemplate x" {
		t.Fatalf("expanded before a set was loaded: %q", got)
	}
	set, agent := resourceFixture(t, true)
	rt.res.Set(set)
	if err := rt.Prompt(context.Background(), `/mytemplate "the file" now`, nil); err != nil {
		t.Fatal(err)
	}
	last := fc.Reqs[0].Messages[len(fc.Reqs[0].Messages)-1].(*llm.UserMessage)
	if got := last.Content.Text; got != "Please handle the file carefully (the file now)." {
		t.Errorf("sent %q", got)
	}
	// No read/bash tool is active: the skills section stays out.
	if strings.Contains(fc.Reqs[0].SystemPrompt, "<skills>") {
		t.Errorf("skills section without read/bash:\n%s", fc.Reqs[0].SystemPrompt)
	}
	skill := filepath.Join(agent, "skills", "review-code", "SKILL.md")
	block := "<skill name=\"review-code\" location=\"" + skill + "\">\nReferences are relative to " + filepath.Dir(skill) + ".\n\nCheck the diff.\n</skill>"
	rt.Steer("/skill:review-code", nil)
	rt.FollowUp("/skill:review-code focus on errors", nil)
	rt.FollowUp("/unknown stays", nil)
	steering, followUp := rt.agent.Queued()
	if len(steering) != 1 || steering[0] != block {
		t.Errorf("steering %q", steering)
	}
	if len(followUp) != 2 || followUp[0] != block+"\n\nfocus on errors" || followUp[1] != "/unknown stays" {
		t.Errorf("follow-ups %q", followUp)
	}
}

func TestResourceCommands(t *testing.T) {
	rt, _ := newRuntime(t)
	if cmds := rt.cmds.All(commands.Prompt, commands.Skill, commands.Extension); cmds == nil || len(cmds) != 0 {
		t.Fatalf("before load: %#v", cmds)
	}
	set, agent := resourceFixture(t, true)
	rt.res.Set(set)
	b, err := llm.Marshal(rt.cmds.All(commands.Prompt, commands.Skill, commands.Extension))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"name":"mytemplate","description":"Do a thing","source":"prompt","sourceInfo":{"path":"` + filepath.Join(agent, "prompts", "mytemplate.md") +
		`","source":"auto","scope":"user","origin":"top-level","baseDir":"` + agent + `"}},` +
		`{"name":"skill:review-code","description":"Review code.","source":"skill","sourceInfo":{"path":"` + filepath.Join(agent, "skills", "review-code", "SKILL.md") +
		`","source":"auto","scope":"user","origin":"top-level","baseDir":"` + agent + `"}}]`
	if string(b) != want {
		t.Errorf("commands\n%s\nwant\n%s", b, want)
	}
	if infos := SkillInfos(rt.res.Get()); len(infos) != 1 || infos[0].Name != "review-code" || infos[0].BaseDir != filepath.Join(agent, "skills", "review-code") {
		t.Errorf("skill infos %+v", infos)
	}
	if SkillInfos(nil) != nil {
		t.Error("nil set")
	}

	set, _ = resourceFixture(t, false)
	rt.res.Set(set)
	if cmds := rt.cmds.All(commands.Prompt, commands.Skill, commands.Extension); len(cmds) != 1 || cmds[0].Source != "prompt" {
		t.Errorf("enableSkillCommands off: %+v", cmds)
	}
	if _, ok := rt.expandCommand("/skill:review-code"); !ok {
		t.Error("typed /skill: must work with enableSkillCommands off")
	}
}

// A holder loaded before the runtime exists (the composition root's
// order) installs its templates and skills after the built-ins, and a
// later Set (/reload) replaces them without the runtime.
func TestResourcesHolderLoadedBeforeNew(t *testing.T) {
	set, _ := resourceFixture(t, true)
	set.Templates[0].Name = "session" // collides with the built-in
	h := NewResources(set)
	cmds := commands.New()
	if _, err := New(Config{Session: session.InMemory("/proj"), Resources: h, Commands: cmds}); err != nil {
		t.Fatal(err)
	}
	if c, ok := cmds.Get("session"); !ok || c.Source != commands.Builtin {
		t.Errorf("/session is %+v, want the built-in", c)
	}
	if got := cmds.All(commands.Skill); len(got) != 1 || got[0].Name != "skill:review-code" {
		t.Errorf("skills %+v", got)
	}
	found := false
	for _, d := range set.Diagnostics {
		found = found || d.Kind == resources.DiagCollision && strings.Contains(d.Message, "session")
	}
	if !found {
		t.Errorf("no collision diagnostic: %+v", set.Diagnostics)
	}
	h.Set(nil)
	if got := cmds.All(commands.Prompt, commands.Skill); len(got) != 0 || h.Get() != nil {
		t.Errorf("after Set(nil): %+v", got)
	}
}
