package app

import (
	"sync"

	"github.com/relay-agent/relay/internal/commands"

	"github.com/relay-agent/relay/internal/harness"
	"github.com/relay-agent/relay/internal/resources"
	"github.com/relay-agent/relay/internal/settings"
)

// Resources holds the loaded skills and prompt templates. The
// composition root makes it before the runtime and hands it to the runtime
// (Config.Resources) and to what reads or reloads the set (the harness's
// skill list, Laya's plan, /reload); the runtime reads it for every
// request, so a reload needs no setter on the runtime.
type Resources struct {
	mu   sync.Mutex
	set  *resources.Set
	cmds *commands.Registry // bound by New: templates and skills as commands
}

// NewResources holds set (nil = none loaded).
func NewResources(set *resources.Set) *Resources { return &Resources{set: set} }

// Get returns the loaded set (nil when none, or on a nil holder).
func (h *Resources) Get() *resources.Set {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.set
}

// Set installs a loaded set: the "skills" prompt section, /skill:name and
// /template expansion and the command list follow from the next request
// on.
func (h *Resources) Set(set *resources.Set) {
	h.mu.Lock()
	h.set = set
	cmds := h.cmds
	h.mu.Unlock()
	if cmds != nil {
		installCommands(cmds, set)
	}
}

// bind makes the set's templates and skills commands of cmds, after the
// runtime's built-ins (a template named like a built-in loses).
func (h *Resources) bind(cmds *commands.Registry) {
	h.mu.Lock()
	h.cmds = cmds
	set := h.set
	h.mu.Unlock()
	installCommands(cmds, set)
}

// ResourceOptions are what LoadResources needs from settings and flags.
type ResourceOptions struct {
	Settings       *settings.Settings
	Cwd            string
	AgentDir       string
	ProjectTrusted bool
	// SkillPaths/PromptPaths are --skill / --prompt-template; NoSkills and
	// NoPrompts are -ns / -np (explicit paths still load).
	SkillPaths  []string
	PromptPaths []string
	NoSkills    bool
	NoPrompts   bool
	// PackageSkills and PackagePrompts come from installed packages
	// (resolved once at start-up; /reload keeps them).
	PackageSkills  []resources.PackageFile
	PackagePrompts []resources.PackageFile
}

// LoadResources discovers the skills and prompt templates of cwd
// (upstream-spec-core.md §5.3). The settings' resource entries keep their
// scope and base directory; untrusted project entries are already absent
// from Settings.
func LoadResources(o ResourceOptions) *resources.Set {
	entries := func(rs []settings.Resource) []resources.Entry {
		out := make([]resources.Entry, 0, len(rs))
		for _, r := range rs {
			out = append(out, resources.Entry{Entry: r.Entry, Scope: string(r.Scope), BaseDir: r.BaseDir})
		}
		return out
	}
	opts := resources.Options{Cwd: o.Cwd, AgentDir: o.AgentDir, ProjectTrusted: o.ProjectTrusted,
		SkillPaths: o.SkillPaths, PromptPaths: o.PromptPaths, NoSkills: o.NoSkills, NoPrompts: o.NoPrompts, SkillCommands: true,
		PackageSkills: o.PackageSkills, PackagePrompts: o.PackagePrompts}
	if st := o.Settings; st != nil {
		opts.Skills, opts.Prompts, opts.SkillCommands = entries(st.Skills), entries(st.Prompts), st.EnableSkillCommands
	}
	return resources.Load(opts)
}

// installCommands replaces the template and skill commands of cmds with
// set's; collisions become the set's diagnostics.
func installCommands(cmds *commands.Registry, set *resources.Set) {
	var tmpls, skills []commands.Command
	if set != nil {
		for _, t := range set.Templates {
			tmpls = append(tmpls, commands.Command{Name: t.Name, Description: t.Description, SourceInfo: t.Source})
		}
		if set.SkillCommands {
			for _, s := range set.Skills {
				skills = append(skills, commands.Command{Name: "skill:" + s.Name, Description: s.Description, SourceInfo: s.Source})
			}
		}
	}
	// A template named like a built-in loses: the built-in keeps working.
	errs := append(cmds.Replace(commands.Prompt, tmpls), cmds.Replace(commands.Skill, skills)...)
	if set == nil {
		return
	}
	for _, err := range errs {
		set.Diagnostics = append(set.Diagnostics, resources.Diagnostic{Kind: resources.DiagCollision, Message: err.Error()})
	}
}

func (r *Runtime) loadedSkills() []resources.Skill {
	if set := r.res.Get(); set != nil {
		return set.Skills
	}
	return nil
}

// SkillInfos lists a resource set's skills for the harness's skill
// telemetry (harness.Config.SkillList); nil set, none.
func SkillInfos(set *resources.Set) []harness.SkillInfo {
	if set == nil {
		return nil
	}
	var out []harness.SkillInfo
	for _, s := range set.Skills {
		out = append(out, harness.SkillInfo{Name: s.Name, BaseDir: s.BaseDir, FilePath: s.FilePath})
	}
	return out
}

// skillsSection is the text of the "skills" system prompt section: only
// when read or bash is active (read preferred as the loading tool) and at
// least one skill is model-invocable (§5.1 item 5).
func skillsSection(in PromptInputs) string {
	tool := ""
	for _, t := range in.Tools {
		if t.Name == "read" {
			tool = "read"
			break
		}
		if t.Name == "bash" {
			tool = "bash"
		}
	}
	if tool == "" {
		return ""
	}
	return resources.FormatSkillsPrompt(in.Skills, tool)
}
