package app

import (
	"sync"

	"github.com/relay-agent/relay/internal/commands"

	"github.com/relay-agent/relay/internal/harness"
	"github.com/relay-agent/relay/internal/resources"
	"github.com/relay-agent/relay/internal/settings"
)

// resourceState holds the loaded skills and prompt templates; /reload
// replaces the whole set.
type resourceState struct {
	mu  sync.Mutex
	set *resources.Set
}

func (s *resourceState) get() *resources.Set {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set
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

// SetResources installs the loaded skills and prompt templates: the
// "skills" prompt section, /skill:name and /template expansion and the
// command list follow from the next request on.
func (r *Runtime) SetResources(set *resources.Set) {
	r.res.mu.Lock()
	r.res.set = set
	r.res.mu.Unlock()
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
	errs := append(r.cmds.Replace(commands.Prompt, tmpls), r.cmds.Replace(commands.Skill, skills)...)
	if set == nil {
		return
	}
	for _, err := range errs {
		set.Diagnostics = append(set.Diagnostics, resources.Diagnostic{Kind: resources.DiagCollision, Message: err.Error()})
	}
}

// Resources returns the loaded set (nil before SetResources).
func (r *Runtime) Resources() *resources.Set { return r.res.get() }

func (r *Runtime) loadedSkills() []resources.Skill {
	if set := r.res.get(); set != nil {
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
