package resources

import (
	"fmt"
	"os"
	"strings"

	"github.com/relay-agent/relay/internal/config"
)

// Diagnostic kinds.
const (
	DiagWarning   = "warning"
	DiagError     = "error"
	DiagCollision = "collision"
)

// Diagnostic is a problem met while loading; loading goes on.
type Diagnostic struct {
	Kind    string
	Message string
	Path    string
	// Winner is the path that kept the name (collisions only).
	Winner string
}

func (d Diagnostic) String() string {
	s := d.Message
	if d.Path != "" {
		s = d.Path + ": " + s
	}
	if d.Winner != "" {
		s += " (keeping " + d.Winner + ")"
	}
	return s
}

func warn(path, msg string) Diagnostic {
	return Diagnostic{Kind: DiagWarning, Message: msg, Path: path}
}

// Set is the loaded skills and prompt templates, in precedence order.
type Set struct {
	Skills      []Skill
	Templates   []Template
	Diagnostics []Diagnostic
	// SkillCommands lists skills as /skill:name commands (the
	// enableSkillCommands setting); typed /skill:name works regardless.
	SkillCommands bool
}

// Load discovers skills and prompt templates (upstream-spec-core.md §5.3,
// skills.md, prompt-templates.md). Sources, first wins on a name:
// project settings entries, <cwd>/.relay/skills and project .agents/skills
// (cwd up to the git root; trusted projects only), user settings entries,
// <agentDir>/skills, ~/.agents/skills, then --skill paths. Templates come
// from the same settings scopes, <cwd>/.relay/prompts, <agentDir>/prompts
// and --prompt-template paths.
func Load(o Options) *Set {
	set := &Set{SkillCommands: o.SkillCommands}
	c := newCanon()
	set.loadSkills(o, c)
	set.loadTemplates(o, c)
	return set
}

func (s *Set) loadSkills(o Options, cn *canon) {
	var cands []*candidate
	if !o.NoSkills {
		cands = resolve(o, kindSkills, cn)
	}
	byName := map[string]string{}
	seen := map[string]bool{}
	add := func(sk *Skill) {
		real := cn.path(sk.FilePath)
		if seen[real] {
			return
		}
		if winner, ok := byName[sk.Name]; ok {
			s.Diagnostics = append(s.Diagnostics, Diagnostic{Kind: DiagCollision, Message: fmt.Sprintf("skill name %q collision", sk.Name), Path: sk.FilePath, Winner: winner})
			return
		}
		byName[sk.Name] = sk.FilePath
		seen[real] = true
		s.Skills = append(s.Skills, *sk)
	}
	loadFile := func(path string, info SourceInfo) {
		if !strings.HasSuffix(path, ".md") {
			s.Diagnostics = append(s.Diagnostics, warn(path, "skill path is not a markdown file"))
			return
		}
		sk, diags := loadSkillFile(path, info)
		s.Diagnostics = append(s.Diagnostics, diags...)
		if sk != nil {
			add(sk)
		}
	}
	for _, c := range cands {
		loadFile(c.path, c.info)
	}
	for _, p := range o.SkillPaths {
		path := config.ResolvePath(o.Cwd, strings.TrimSpace(p))
		info := SourceInfo{Source: SourceCLI, Scope: ScopeTemporary, Origin: OriginTopLevel}
		st, err := os.Stat(path)
		switch {
		case err != nil:
			s.Diagnostics = append(s.Diagnostics, Diagnostic{Kind: DiagError, Message: "skill path does not exist", Path: path})
		case st.IsDir():
			for _, f := range collectSkillFiles(path, modeRelay, cn) {
				loadFile(f, info)
			}
		default:
			loadFile(path, info)
		}
	}
}

func (s *Set) loadTemplates(o Options, cn *canon) {
	var cands []*candidate
	if !o.NoPrompts {
		cands = resolve(o, kindPrompts, cn)
	}
	byName := map[string]string{}
	seen := map[string]bool{}
	loadFile := func(path string, info SourceInfo) {
		real := cn.path(path)
		if seen[real] || !strings.HasSuffix(path, ".md") {
			return
		}
		t, diags := loadTemplateFile(path, info)
		s.Diagnostics = append(s.Diagnostics, diags...)
		if t == nil {
			return
		}
		if winner, ok := byName[t.Name]; ok {
			s.Diagnostics = append(s.Diagnostics, Diagnostic{Kind: DiagCollision, Message: fmt.Sprintf("prompt template name %q collision", t.Name), Path: path, Winner: winner})
			return
		}
		byName[t.Name] = path
		seen[real] = true
		s.Templates = append(s.Templates, *t)
	}
	for _, c := range cands {
		loadFile(c.path, c.info)
	}
	for _, p := range o.PromptPaths {
		path := config.ResolvePath(o.Cwd, strings.TrimSpace(p))
		info := SourceInfo{Source: SourceCLI, Scope: ScopeTemporary, Origin: OriginTopLevel}
		st, err := os.Stat(path)
		switch {
		case err != nil:
			s.Diagnostics = append(s.Diagnostics, Diagnostic{Kind: DiagError, Message: "prompt template path does not exist", Path: path})
		case st.IsDir():
			for _, f := range collectMarkdownFiles(path, cn) {
				loadFile(f, info)
			}
		default:
			loadFile(path, info)
		}
	}
}

// Skill returns the skill called name.
func (s *Set) Skill(name string) (*Skill, bool) {
	if s == nil {
		return nil, false
	}
	for i := range s.Skills {
		if s.Skills[i].Name == name {
			return &s.Skills[i], true
		}
	}
	return nil, false
}

// Template returns the prompt template called name.
func (s *Set) Template(name string) (*Template, bool) {
	if s == nil {
		return nil, false
	}
	for i := range s.Templates {
		if s.Templates[i].Name == name {
			return &s.Templates[i], true
		}
	}
	return nil, false
}

// splitCommand splits "/name rest" into name and the rest (trimmed).
func splitCommand(text string) (name, args string) {
	body := text[1:]
	if i := strings.IndexAny(body, " \t\n"); i >= 0 {
		return body[:i], strings.TrimSpace(body[i+1:])
	}
	return body, ""
}

// Expand turns "/skill:name args" into the skill block and "/template
// args" into the template with its arguments substituted. handled is
// false (and text returned unchanged) when text names neither; err is set
// when a skill file can no longer be read.
func (s *Set) Expand(text string) (expanded string, handled bool, err error) {
	if s == nil || !strings.HasPrefix(text, "/") {
		return text, false, nil
	}
	name, args := splitCommand(text)
	if skillName, ok := strings.CutPrefix(name, "skill:"); ok {
		sk, ok := s.Skill(skillName)
		if !ok {
			return text, false, nil
		}
		block, err := SkillBlock(sk, args)
		if err != nil {
			return text, false, err
		}
		return block, true, nil
	}
	t, ok := s.Template(name)
	if !ok {
		return text, false, nil
	}
	return Substitute(t.Content, ParseArgs(args)), true, nil
}

// SkillBlock is what /skill:name sends: the skill body (frontmatter
// removed) wrapped with its name and location, then the arguments as the
// user's request.
func SkillBlock(sk *Skill, args string) (string, error) {
	data, err := os.ReadFile(sk.FilePath)
	if err != nil {
		return "", fmt.Errorf("read skill %s: %w", sk.FilePath, unwrapPathError(err))
	}
	_, body, perr := ParseFrontmatter(string(data))
	if perr != nil {
		return "", fmt.Errorf("read skill %s: %w", sk.FilePath, perr)
	}
	block := "<skill name=\"" + sk.Name + "\" location=\"" + sk.FilePath + "\">\n" +
		"References are relative to " + sk.BaseDir + ".\n\n" + body + "\n</skill>"
	if args != "" {
		block += "\n\n" + args
	}
	return block, nil
}

// FormatSkillsPrompt renders the "skills" system prompt section for the
// model-invocable skills, telling the model to load them with tool ("read"
// or "bash"). It returns "" when no skill is model-invocable.
func FormatSkillsPrompt(skills []Skill, tool string) string {
	var visible []Skill
	for _, sk := range skills {
		if !sk.DisableModelInvocation {
			visible = append(visible, sk)
		}
	}
	if len(visible) == 0 {
		return ""
	}
	load := "Use the read tool to load a skill's file when the task matches its description."
	if tool == "bash" {
		load = "Use bash to load a skill's file when the task matches its description."
	}
	lines := []string{
		"The following skills provide specialized instructions for specific tasks.",
		load,
		"When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.",
		"Treat a skill file as a router: load the references and scripts it points to when the current step needs them, not all up front, and return to them when debugging or validating.",
		"",
		"<available_skills>",
	}
	for _, sk := range visible {
		lines = append(lines, "  <skill>",
			"    <name>"+escapeXML(sk.Name)+"</name>",
			"    <description>"+escapeXML(sk.Description)+"</description>",
			"    <location>"+escapeXML(sk.FilePath)+"</location>",
			"  </skill>")
	}
	lines = append(lines, "</available_skills>")
	return strings.Join(lines, "\n")
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func escapeXML(s string) string { return xmlEscaper.Replace(s) }
