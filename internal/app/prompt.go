package app

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/resources"
)

// DefaultPreamble is the identity sentence used without a custom prompt.
const DefaultPreamble = "You are an expert coding assistant operating inside relay, a coding agent harness. You help users by reading files, executing commands, editing code, and writing new files."

// PromptInputs are what the system prompt is assembled from.
type PromptInputs struct {
	Cwd          string
	AgentDir     string
	CustomPrompt string   // --system-prompt / SYSTEM.md contents ("" = default)
	Append       []string // --append-system-prompt values and APPEND_SYSTEM.md
	ContextFiles []ContextFile
	Tools        []llm.ToolSpec
	ExtraRules   []string // harness rules, extension guidelines
	// ExtraSections are features' own sections (MCP's mcp_servers), after
	// the skills.
	ExtraSections []hooks.PromptSection
	Skills        []resources.Skill
	Now           time.Time
}

// ContextFile is one AGENTS.md/CLAUDE.md file.
type ContextFile struct {
	Path    string
	Content string
}

func sec(name, text string) llm.Section {
	t := text
	return llm.Section{Name: name, Text: &t}
}

// BuildSections assembles the named prompt sections in their canonical
// order (upstream-spec-core.md §5.1).
func BuildSections(in PromptInputs) llm.Sections {
	var out llm.Sections
	if in.CustomPrompt != "" {
		out = append(out, sec("preamble", in.CustomPrompt))
	} else {
		out = append(out, sec("preamble", DefaultPreamble))
		names := map[string]bool{}
		var lines []string
		for _, t := range in.Tools {
			names[t.Name] = true
			if t.PromptSnippet != "" {
				lines = append(lines, "- "+t.Name+": "+t.PromptSnippet)
			}
		}
		tools := "(none)"
		if len(lines) > 0 {
			tools = strings.Join(lines, "\n")
		}
		tools += "\n\nIn addition to the tools above, you may have access to other custom tools depending on the project."
		out = append(out, sec("tools", tools))

		var rules []string
		seen := map[string]bool{}
		add := func(r string) {
			if !seen[r] {
				seen[r] = true
				rules = append(rules, "- "+r)
			}
		}
		if (names["bash"] || names["powershell"]) && !names["grep"] && !names["find"] && !names["ls"] {
			add("Use the shell for file operations like ls, rg and find.")
		}
		for _, t := range in.Tools {
			for _, g := range t.PromptGuidelines {
				add(g)
			}
		}
		for _, r := range in.ExtraRules {
			add(r)
		}
		add("Be concise in your responses.")
		add("Show file paths clearly when working with files.")
		out = append(out, sec("rules", strings.Join(rules, "\n")))
		out = append(out, sec("docs", "Relay's own documentation: run `relay --help`. Read it only when the user asks about relay itself (its settings, sessions, keybindings or commands)."))
	}
	var app []string
	for _, a := range in.Append {
		if strings.TrimSpace(a) != "" {
			app = append(app, a)
		}
	}
	if len(app) > 0 {
		out = append(out, sec("addendum", strings.Join(app, "\n\n")))
	}
	if len(in.ContextFiles) > 0 {
		parts := []string{"Project-specific instructions and guidelines:"}
		for _, f := range in.ContextFiles {
			parts = append(parts, "<project_instructions path=\""+f.Path+"\">\n"+f.Content+"\n</project_instructions>")
		}
		out = append(out, sec("project_context", strings.Join(parts, "\n\n")))
	}
	if s := skillsSection(in); s != "" {
		out = append(out, sec("skills", s))
	}
	for _, x := range in.ExtraSections {
		if strings.TrimSpace(x.Text) != "" {
			out = append(out, sec(x.Name, x.Text))
		}
	}
	cwd := strings.ReplaceAll(in.Cwd, `\`, "/")
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	out = append(out, sec("cwd", "Current working directory: "+cwd+"\nCurrent date: "+now.Format("2006-01-02")))
	return out
}

var contextFileNames = []string{"AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"}

func contextFileIn(dir string) (string, bool) {
	for _, n := range contextFileNames {
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// LoadContextFiles finds AGENTS.md/CLAUDE.md: the agent dir's first, then
// each ancestor from the filesystem root down to cwd, de-duplicated.
func LoadContextFiles(agentDir, cwd string) []ContextFile {
	var out []ContextFile
	seen := map[string]bool{}
	add := func(p string) {
		abs, err := filepath.Abs(p)
		if err != nil || seen[abs] {
			return
		}
		seen[abs] = true
		b, err := fsx.ReadFile(abs, config.MaxPromptText)
		if err != nil {
			return
		}
		out = append(out, ContextFile{Path: abs, Content: strings.TrimPrefix(string(b), "\ufeff")})
	}
	if agentDir != "" {
		if p, ok := contextFileIn(agentDir); ok {
			add(p)
		}
	}
	var dirs []string
	for d := filepath.Clean(cwd); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if p, ok := contextFileIn(dirs[i]); ok {
			add(p)
		}
	}
	return out
}

// ReadPromptArg returns the contents of v when it names an existing file,
// else v itself (--system-prompt, --append-system-prompt). An existing path
// that is not a regular file (a directory, FIFO or device), or a file over
// config.MaxPromptText, is an error naming it.
func ReadPromptArg(v, cwd string) (string, error) {
	p := v
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	if _, err := os.Stat(p); err != nil {
		return v, nil
	}
	b, err := fsx.ReadFile(p, config.MaxPromptText)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// SystemPatch returns the system message that turns state into the wanted
// sections and tools, or nil when nothing changed. Without any previous
// system state it returns the complete declaration.
func SystemPatch(state *llm.SystemState, want llm.Sections, tools []llm.ToolSpec, ts int64) *llm.SystemMessage {
	if state == nil || (len(state.Sections) == 0 && len(state.Tools) == 0 && state.Opaque == "") {
		return &llm.SystemMessage{Content: llm.StringContent(""), Sections: want, ToolsAdded: append([]llm.ToolSpec{}, tools...), Timestamp: ts}
	}
	msg := &llm.SystemMessage{Content: llm.StringContent(""), Timestamp: ts}
	if state.Opaque != "" && len(state.Sections) == 0 {
		// An opaque prompt cannot be patched by name: start over.
		msg.Replace = true
		msg.Sections = want
		msg.ToolsAdded = append([]llm.ToolSpec{}, tools...)
		return msg
	}
	have := map[string]string{}
	for _, s := range state.Sections {
		if s.Text != nil {
			have[s.Name] = *s.Text
		}
	}
	wanted := map[string]bool{}
	for _, s := range want {
		wanted[s.Name] = true
		if old, ok := have[s.Name]; !ok || old != *s.Text {
			msg.Sections = append(msg.Sections, s)
		}
	}
	for _, s := range state.Sections {
		if !wanted[s.Name] {
			msg.Sections = append(msg.Sections, llm.Section{Name: s.Name})
		}
	}
	haveTools := map[string]llm.ToolSpec{}
	for _, t := range state.Tools {
		haveTools[t.Name] = t
	}
	wantTools := map[string]bool{}
	for _, t := range tools {
		wantTools[t.Name] = true
		old, ok := haveTools[t.Name]
		if !ok || old.Description != t.Description || string(old.Parameters) != string(t.Parameters) {
			msg.ToolsAdded = append(msg.ToolsAdded, t)
		}
	}
	for _, t := range state.Tools {
		if !wantTools[t.Name] {
			msg.ToolsRemoved = append(msg.ToolsRemoved, llm.ToolRef{Name: t.Name})
		}
	}
	if len(msg.Sections) == 0 && len(msg.ToolsAdded) == 0 && len(msg.ToolsRemoved) == 0 {
		return nil
	}
	return msg
}
