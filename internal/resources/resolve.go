package resources

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/relay-agent/relay/internal/config"
)

// Scopes and sources of SourceInfo (rpc-commands.md "get_commands").
const (
	ScopeUser      = "user"
	ScopeProject   = "project"
	ScopeTemporary = "temporary"

	SourceLocal = "local" // a settings entry
	SourceAuto  = "auto"  // a conventional directory
	SourceCLI   = "cli"   // --skill / --prompt-template

	OriginTopLevel = "top-level"
)

// SourceInfo says where a resource came from.
type SourceInfo struct {
	Path    string `json:"path"`
	Source  string `json:"source"`
	Scope   string `json:"scope"`
	Origin  string `json:"origin"`
	BaseDir string `json:"baseDir,omitempty"`
}

// Entry is one settings entry of "skills" or "prompts": a path (file or
// directory), a glob, "!glob" (exclude matches), "+path" (force-include an
// exact path) or "-path" (force-exclude one). BaseDir resolves relative
// entries: the agent directory for user settings, <cwd>/.relay for project
// settings.
type Entry struct {
	Entry   string
	Scope   string // ScopeUser or ScopeProject
	BaseDir string
}

// Options select what Load discovers.
type Options struct {
	Cwd      string
	AgentDir string
	// HomeDir holds ~/.agents/skills; "" = the user's home.
	HomeDir string
	// ProjectTrusted gates <cwd>/.relay/{skills,prompts} and the project
	// .agents/skills directories. Untrusted project settings entries must
	// not be passed at all.
	ProjectTrusted bool
	// Skills and Prompts are the settings entries of both files.
	Skills  []Entry
	Prompts []Entry
	// SkillPaths and PromptPaths are the --skill / --prompt-template
	// values (relative to Cwd). They load even with NoSkills/NoPrompts.
	SkillPaths  []string
	PromptPaths []string
	NoSkills    bool
	NoPrompts   bool
	// SkillCommands is the enableSkillCommands setting, kept on the Set.
	SkillCommands bool
	// PackageSkills and PackagePrompts are the files installed packages
	// supply (internal/packages resolves them). They come after every
	// other source and are dropped with NoSkills / NoPrompts.
	PackageSkills  []PackageFile
	PackagePrompts []PackageFile
}

// PackageFile is a skill or template file from a package; Source is the
// package source as declared.
type PackageFile struct {
	Path    string
	Source  string
	Scope   string
	BaseDir string
}

// OriginPackage is the origin of package resources.
const OriginPackage = "package"

type kind int

const (
	kindSkills kind = iota
	kindPrompts
)

type candidate struct {
	path    string
	info    SourceInfo
	enabled bool
}

// accumulator keeps the first sighting of each path: an earlier source
// (or an earlier disabling rule) decides for later ones.
type accumulator struct {
	order []string
	byKey map[string]*candidate
}

func (a *accumulator) add(path string, info SourceInfo, enabled bool) {
	if a.byKey == nil {
		a.byKey = map[string]*candidate{}
	}
	if _, ok := a.byKey[path]; ok {
		return
	}
	info.Path = path
	a.byKey[path] = &candidate{path: path, info: info, enabled: enabled}
	a.order = append(a.order, path)
}

// rank orders sources: project settings entries, project directories, user
// settings entries, user directories (first wins on name collisions).
func rank(i SourceInfo) int {
	r := 2
	if i.Scope == ScopeProject {
		r = 0
	}
	if i.Source != SourceLocal {
		r++
	}
	return r
}

// enabledPaths returns the enabled candidates in precedence order,
// de-duplicated by their resolved (symlink-free) path.
func (a *accumulator) enabledPaths(cn *canon) []*candidate {
	all := make([]*candidate, 0, len(a.order))
	for _, p := range a.order {
		all = append(all, a.byKey[p])
	}
	sort.SliceStable(all, func(i, j int) bool { return rank(all[i].info) < rank(all[j].info) })
	seen := map[string]bool{}
	var out []*candidate
	for _, c := range all {
		k := cn.path(c.path)
		if seen[k] {
			continue
		}
		seen[k] = true
		if c.enabled {
			out = append(out, c)
		}
	}
	return out
}

func isOverride(e string) bool {
	return strings.HasPrefix(e, "!") || strings.HasPrefix(e, "+") || strings.HasPrefix(e, "-")
}

func hasGlob(e string) bool { return strings.ContainsAny(e, "*?") }

// collect lists the resource files of one settings path.
func collect(p string, k kind, c *canon) []string {
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return nil
	case st.Mode().IsRegular():
		return []string{p}
	case !st.IsDir():
		return nil
	case k == kindSkills:
		return collectSkillFiles(p, modeRelay, c)
	}
	return collectMarkdownFiles(p, c)
}

// resolveEntries applies one settings file's entries: plain paths supply
// the files, glob entries narrow them, then "!", "+" and "-" rules.
func resolveEntries(acc *accumulator, entries []Entry, k kind, c *canon) {
	if len(entries) == 0 {
		return
	}
	base := entries[0].BaseDir
	var files, patterns []string
	for _, e := range entries {
		if isOverride(e.Entry) || hasGlob(e.Entry) {
			patterns = append(patterns, e.Entry)
			continue
		}
		files = append(files, collect(config.ResolvePath(e.BaseDir, e.Entry), k, c)...)
	}
	on := applyPatterns(files, patterns, base)
	for _, f := range files {
		acc.add(f, SourceInfo{Source: SourceLocal, Scope: entries[0].Scope, Origin: OriginTopLevel}, on[f])
	}
}

// applyPatterns returns the enabled subset of files: glob includes (all
// files when there are none), minus "!" matches, plus "+" exact paths,
// minus "-" exact paths.
func applyPatterns(files, patterns []string, base string) map[string]bool {
	var includes, excludes, force, forceOut []string
	for _, p := range patterns {
		switch p[0] {
		case '+':
			force = append(force, p[1:])
		case '-':
			forceOut = append(forceOut, p[1:])
		case '!':
			excludes = append(excludes, p[1:])
		default:
			includes = append(includes, p)
		}
	}
	on := map[string]bool{}
	for _, f := range files {
		ok := len(includes) == 0 || matchesGlob(f, includes, base)
		if ok && matchesGlob(f, excludes, base) {
			ok = false
		}
		if !ok && matchesExact(f, force, base) {
			ok = true
		}
		if ok && matchesExact(f, forceOut, base) {
			ok = false
		}
		on[f] = ok
	}
	return on
}

// enabledByOverrides applies only the "!", "+" and "-" entries of a
// settings file to an auto-discovered file.
func enabledByOverrides(f string, entries []Entry, base string) bool {
	var excludes, force, forceOut []string
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Entry, "!"):
			excludes = append(excludes, e.Entry[1:])
		case strings.HasPrefix(e.Entry, "+"):
			force = append(force, e.Entry[1:])
		case strings.HasPrefix(e.Entry, "-"):
			forceOut = append(forceOut, e.Entry[1:])
		}
	}
	on := !matchesGlob(f, excludes, base)
	if matchesExact(f, force, base) {
		on = true
	}
	if matchesExact(f, forceOut, base) {
		on = false
	}
	return on
}

// targets are the strings a rule may name for file f: its path relative to
// base, its name and its absolute path; for a SKILL.md also the same three
// for its directory.
func targets(f, base string) []string {
	rel := func(p string) string {
		r, err := filepath.Rel(base, p)
		if err != nil {
			return filepath.ToSlash(p)
		}
		return filepath.ToSlash(r)
	}
	out := []string{rel(f), filepath.Base(f), filepath.ToSlash(f)}
	if filepath.Base(f) == "SKILL.md" {
		d := filepath.Dir(f)
		out = append(out, rel(d), filepath.Base(d), filepath.ToSlash(d))
	}
	return out
}

func matchesGlob(f string, patterns []string, base string) bool {
	if len(patterns) == 0 {
		return false
	}
	ts := targets(f, base)
	for _, p := range patterns {
		p = filepath.ToSlash(p)
		for _, t := range ts {
			if ok, _ := doublestar.Match(p, t); ok {
				return true
			}
		}
	}
	return false
}

// matchesExact compares "+"/"-" paths with f (or its skill directory),
// relative to base or absolute ("~" expanded, a leading "./" ignored).
func matchesExact(f string, patterns []string, base string) bool {
	if len(patterns) == 0 {
		return false
	}
	ts := targets(f, base)
	for _, p := range patterns {
		n := filepath.ToSlash(strings.TrimPrefix(strings.TrimPrefix(p, "./"), `.\`))
		abs := filepath.ToSlash(config.ResolvePath(base, p))
		for i, t := range ts {
			if i%3 == 1 { // names only match glob rules
				continue
			}
			if t == n || t == abs {
				return true
			}
		}
	}
	return false
}

// ancestorAgentsSkillDirs lists <dir>/.agents/skills from cwd upwards,
// stopping at the enclosing git repository's root.
func ancestorAgentsSkillDirs(cwd string) []string {
	root := ""
	for d := cwd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	var out []string
	for d := cwd; ; d = filepath.Dir(d) {
		out = append(out, filepath.Join(d, ".agents", "skills"))
		if d == root || filepath.Dir(d) == d {
			return out
		}
	}
}

func byScope(entries []Entry, scope string) []Entry {
	var out []Entry
	for _, e := range entries {
		if e.Scope == scope {
			out = append(out, e)
		}
	}
	return out
}

// resolve returns the enabled files of kind k from settings entries and
// conventional directories, in precedence order.
func resolve(o Options, k kind, c *canon) []*candidate {
	entries := o.Skills
	if k == kindPrompts {
		entries = o.Prompts
	}
	projEntries, userEntries := byScope(entries, ScopeProject), byScope(entries, ScopeUser)
	projBase := config.Project{Cwd: o.Cwd}.Dir()
	acc := &accumulator{}
	resolveEntries(acc, projEntries, k, c)
	resolveEntries(acc, userEntries, k, c)

	addDir := func(files []string, info SourceInfo, rules []Entry, base string) {
		for _, f := range files {
			acc.add(f, info, enabledByOverrides(f, rules, base))
		}
	}
	projInfo := SourceInfo{Source: SourceAuto, Scope: ScopeProject, Origin: OriginTopLevel, BaseDir: projBase}
	userInfo := SourceInfo{Source: SourceAuto, Scope: ScopeUser, Origin: OriginTopLevel, BaseDir: o.AgentDir}
	home := o.HomeDir
	if home == "" {
		home, _ = config.HomeDir()
	}
	userAgents := ""
	if home != "" {
		userAgents = filepath.Join(home, ".agents", "skills")
	}
	if k == kindSkills {
		if o.ProjectTrusted {
			addDir(collectSkillFiles(filepath.Join(projBase, "skills"), modeRelay, c), projInfo, projEntries, projBase)
			for _, d := range ancestorAgentsSkillDirs(o.Cwd) {
				if userAgents != "" && c.path(d) == c.path(userAgents) {
					continue
				}
				info := projInfo
				info.BaseDir = filepath.Dir(d)
				addDir(collectSkillFiles(d, modeAgents, c), info, projEntries, info.BaseDir)
			}
		}
		if o.AgentDir != "" {
			addDir(collectSkillFiles(config.Agent{Dir: o.AgentDir}.Skills(), modeRelay, c), userInfo, userEntries, o.AgentDir)
		}
		if userAgents != "" {
			info := userInfo
			info.BaseDir = filepath.Dir(userAgents)
			addDir(collectSkillFiles(userAgents, modeAgents, c), info, userEntries, info.BaseDir)
		}
	} else {
		if o.ProjectTrusted {
			addDir(collectTemplateFiles(filepath.Join(projBase, "prompts")), projInfo, projEntries, projBase)
		}
		if o.AgentDir != "" {
			addDir(collectTemplateFiles(config.Agent{Dir: o.AgentDir}.Prompts()), userInfo, userEntries, o.AgentDir)
		}
	}
	files := o.PackageSkills
	if k == kindPrompts {
		files = o.PackagePrompts
	}
	out := acc.enabledPaths(c)
	seen := map[string]bool{}
	for _, cd := range out {
		seen[c.path(cd.path)] = true
	}
	for _, f := range files {
		if k := c.path(f.Path); !seen[k] {
			seen[k] = true
			out = append(out, &candidate{path: f.Path, enabled: true,
				info: SourceInfo{Path: f.Path, Source: f.Source, Scope: f.Scope, Origin: OriginPackage, BaseDir: f.BaseDir}})
		}
	}
	return out
}
