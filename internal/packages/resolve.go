package packages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/resources"
	"github.com/relay-agent/relay/internal/settings"
)

// Kind is a resource type a package can carry.
type Kind int

const (
	Extensions Kind = iota
	Skills
	Prompts
	Themes
)

// Kinds lists every Kind in settings order.
var Kinds = []Kind{Extensions, Skills, Prompts, Themes}

func (k Kind) String() string {
	return [...]string{"extensions", "skills", "prompts", "themes"}[k]
}

// Scopes and sources of Meta (the original's PathMetadata).
const (
	ScopeUser      = "user"
	ScopeProject   = "project"
	ScopeTemporary = "temporary"

	SourceLocal   = "local"   // a settings entry
	SourceAuto    = "auto"    // a conventional directory
	SourceBuiltin = "builtin" // a built-in extension

	OriginPackage  = "package"
	OriginTopLevel = "top-level"
)

// BuiltinPrefix names built-in extensions in the extensions setting and -e.
const BuiltinPrefix = "builtin:"

// Meta says where a resolved resource came from.
type Meta struct {
	// Source is the package source as declared for package resources,
	// otherwise SourceLocal, SourceAuto or SourceBuiltin.
	Source string
	Scope  string // ScopeUser, ScopeProject or ScopeTemporary
	Origin string // OriginPackage or OriginTopLevel
	// BaseDir resolves the resource's relative references; PackageRoot is
	// the package directory of package resources.
	BaseDir     string
	PackageRoot string
}

// Resource is one resolved file (or "builtin:<name>").
type Resource struct {
	Path    string
	Enabled bool
	Meta    Meta
}

// Resolved is every resource found, per kind, in precedence order (first
// wins on a name collision), disabled ones included so `relay config` can
// show them. Diagnostics name the package or file they are about.
type Resolved struct {
	Extensions, Skills, Prompts, Themes []Resource
	Diagnostics                         []string
}

// Of returns the resources of one kind.
func (r *Resolved) Of(k Kind) []Resource {
	switch k {
	case Extensions:
		return r.Extensions
	case Skills:
		return r.Skills
	case Prompts:
		return r.Prompts
	}
	return r.Themes
}

// Enabled returns the enabled resources of one kind.
func (r *Resolved) Enabled(k Kind) []Resource {
	var out []Resource
	for _, res := range r.Of(k) {
		if res.Enabled {
			out = append(out, res)
		}
	}
	return out
}

// FromPackages returns the enabled resources of one kind that packages
// supplied (resources.Load finds the settings entries and conventional
// directories of skills and prompts itself).
func (r *Resolved) FromPackages(k Kind) []Resource {
	var out []Resource
	for _, res := range r.Enabled(k) {
		if res.Meta.Origin == OriginPackage {
			out = append(out, res)
		}
	}
	return out
}

// accumulator keeps the first sighting of each path per kind.
type accumulator struct {
	order [4][]string
	byKey [4]map[string]*Resource
	diags []string
}

func (a *accumulator) add(k Kind, path string, m Meta, enabled bool) {
	if path == "" {
		return
	}
	if a.byKey[k] == nil {
		a.byKey[k] = map[string]*Resource{}
	}
	if _, ok := a.byKey[k][path]; ok {
		return
	}
	a.byKey[k][path] = &Resource{Path: path, Enabled: enabled, Meta: m}
	a.order[k] = append(a.order[k], path)
}

func (a *accumulator) warn(format string, args ...any) {
	a.diags = append(a.diags, fmt.Sprintf(format, args...))
}

// rank orders sources, lower first: project settings entries, project
// directories, user settings entries, user directories, packages, then
// built-in extensions.
func rank(m Meta) int {
	switch {
	case m.Source == SourceBuiltin:
		return 5
	case m.Origin == OriginPackage:
		return 4
	}
	r := 2
	if m.Scope == ScopeProject {
		r = 0
	}
	if m.Source != SourceLocal {
		r++
	}
	return r
}

func (a *accumulator) resolved() *Resolved {
	out := &Resolved{Diagnostics: a.diags}
	dst := [4]*[]Resource{&out.Extensions, &out.Skills, &out.Prompts, &out.Themes}
	for k := range Kinds {
		list := make([]Resource, 0, len(a.order[k]))
		for _, p := range a.order[k] {
			list = append(list, *a.byKey[k][p])
		}
		sort.SliceStable(list, func(i, j int) bool { return rank(list[i].Meta) < rank(list[j].Meta) })
		seen := map[string]bool{}
		for _, r := range list {
			c := canonical(r.Path)
			if seen[c] {
				continue
			}
			seen[c] = true
			*dst[k] = append(*dst[k], r)
		}
	}
	return out
}

func canonical(p string) string {
	if strings.HasPrefix(p, BuiltinPrefix) {
		return p
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// ResolveOptions select what Resolve does besides reading the settings.
type ResolveOptions struct {
	// Builtins are the built-in extension names ("mcp", ...), resolved as
	// "builtin:<name>" extensions the extensions setting can turn off.
	Builtins []string
	// InstallMissing installs configured npm and git packages that are not
	// installed yet (never when offline); otherwise they are reported.
	InstallMissing bool
}

// Resolve finds every extension, skill, prompt template and theme the
// settings make active: packages (project entries replace user entries of
// the same identity; a project entry with autoload false filters the user
// entry instead), settings entries, the conventional directories of the
// agent directory and (trusted projects only) <cwd>/.relay, and built-in
// extensions. st holds the project's entries only when it is trusted.
func (m *Manager) Resolve(ctx context.Context, st *settings.Settings, o ResolveOptions) *Resolved {
	acc := &accumulator{}
	var pkgs []settings.PackageSource
	for _, p := range st.Packages {
		if p.Scope == settings.ScopeProject {
			pkgs = append(pkgs, p)
		}
	}
	for _, p := range st.Packages {
		if p.Scope != settings.ScopeProject {
			pkgs = append(pkgs, p)
		}
	}
	m.resolvePackages(ctx, dedupe(acc, pkgs), acc, o.InstallMissing)

	projBase := config.Project{Cwd: m.Cwd}.Dir()
	entries := func(rs []settings.Resource, scope settings.Scope) []string {
		var out []string
		for _, r := range rs {
			if r.Scope == scope {
				out = append(out, r.Entry)
			}
		}
		return out
	}
	lists := [4][]settings.Resource{st.Extensions, st.Skills, st.Prompts, st.Themes}
	for _, k := range Kinds {
		m.resolveEntries(acc, k, entries(lists[k], settings.ScopeProject), Meta{Source: SourceLocal, Scope: ScopeProject, Origin: OriginTopLevel}, projBase)
		m.resolveEntries(acc, k, entries(lists[k], settings.ScopeUser), Meta{Source: SourceLocal, Scope: ScopeUser, Origin: OriginTopLevel}, m.AgentDir)
	}
	m.addAuto(acc, lists, entries)

	projExt, userExt := overrides(entries(st.Extensions, settings.ScopeProject)), entries(st.Extensions, settings.ScopeUser)
	for _, name := range o.Builtins {
		path := BuiltinPrefix + name
		meta := Meta{Source: SourceBuiltin, Scope: ScopeUser, Origin: OriginTopLevel}
		// The last entry naming a built-in wins (so "+builtin:x" after
		// "-builtin:x" turns it back on).
		enabled := true
		if v, ok := deltaEnabled([]string{path}, overrides(userExt), m.AgentDir)[path]; ok {
			enabled = v
		}
		if v, ok := deltaEnabled([]string{path}, projExt, projBase)[path]; ok {
			meta.Scope, enabled = ScopeProject, v
		}
		acc.add(Extensions, path, meta, enabled)
	}
	return acc.resolved()
}

// ResolveSources resolves -e values for one run: built-in names, package
// sources (installed on demand under the agent directory's tmp/extensions
// unless offline) and local paths, relative to the working directory.
func (m *Manager) ResolveSources(ctx context.Context, sources []string) *Resolved {
	acc := &accumulator{}
	var pkgs []settings.PackageSource
	for _, s := range sources {
		if strings.HasPrefix(s, BuiltinPrefix) {
			acc.add(Extensions, s, Meta{Source: SourceBuiltin, Scope: ScopeTemporary, Origin: OriginTopLevel}, true)
			continue
		}
		pkgs = append(pkgs, settings.PackageSource{Source: s, BaseDir: m.Cwd})
	}
	var list []scoped
	for _, p := range pkgs {
		list = append(list, scoped{pkg: p, scope: ScopeTemporary})
	}
	m.resolvePackages(ctx, list, acc, true)
	return acc.resolved()
}

type scoped struct {
	pkg   settings.PackageSource
	scope string
}

func scopeOf(p settings.PackageSource) string {
	if p.Scope == settings.ScopeProject {
		return ScopeProject
	}
	return ScopeUser
}

// dedupe keeps one entry per identity, project first: a later user entry
// of a project identity is dropped, unless the project entry has
// autoload false (then both stay, the project delta first).
func dedupe(acc *accumulator, pkgs []settings.PackageSource) []scoped {
	var out []scoped
	seen := map[string]int{}
	for _, p := range pkgs {
		src, err := ParseSource(p.Source)
		if err != nil {
			acc.warn("package %s: %v", p.Source, err)
			continue
		}
		e := scoped{pkg: p, scope: scopeOf(p)}
		id := src.Identity(p.BaseDir)
		i, ok := seen[id]
		if !ok {
			seen[id] = len(out)
			out = append(out, e)
			continue
		}
		prev := out[i]
		switch {
		case prev.scope == ScopeProject && e.scope == ScopeUser:
			if prev.pkg.Autoload != nil && !*prev.pkg.Autoload {
				out = append(out, e)
			}
		case e.scope == ScopeProject:
			out[i] = e
		}
	}
	return out
}

// deltaBase returns the user entry a project entry with autoload false
// filters: that entry's source and scope decide where the package lives.
func deltaBase(e scoped, all []scoped) (settings.PackageSource, string, bool) {
	if e.scope != ScopeProject || e.pkg.Autoload == nil || *e.pkg.Autoload {
		return settings.PackageSource{}, "", false
	}
	src, err := ParseSource(e.pkg.Source)
	if err != nil {
		return settings.PackageSource{}, "", false
	}
	id := src.Identity(e.pkg.BaseDir)
	for _, o := range all {
		if o.scope != ScopeUser {
			continue
		}
		if s, err := ParseSource(o.pkg.Source); err == nil && s.Identity(o.pkg.BaseDir) == id {
			return o.pkg, ScopeUser, true
		}
	}
	return settings.PackageSource{}, "", false
}

func (m *Manager) resolvePackages(ctx context.Context, list []scoped, acc *accumulator, install bool) {
	for _, e := range list {
		pkg, scope := e.pkg, e.scope
		if base, bscope, ok := deltaBase(e, list); ok {
			pkg, scope = base, bscope
		}
		src, err := ParseSource(pkg.Source)
		if err != nil {
			acc.warn("package %s: %v", pkg.Source, err)
			continue
		}
		meta := Meta{Source: e.pkg.Source, Scope: e.scope, Origin: OriginPackage}
		var f *filter
		if e.pkg.Filtered {
			f = &filter{autoload: e.pkg.Autoload, lists: [4][]string{e.pkg.Extensions, e.pkg.Skills, e.pkg.Prompts, e.pkg.Themes}}
		}
		if src.Type == TypeLocal {
			path := src.LocalPath(pkg.BaseDir)
			st, err := os.Stat(path)
			if err != nil {
				acc.warn("package %s: path does not exist: %s", e.pkg.Source, path)
				continue
			}
			if !st.IsDir() {
				meta.BaseDir = filepath.Dir(path)
				acc.add(Extensions, path, meta, true)
				continue
			}
			meta.BaseDir, meta.PackageRoot = path, path
			if !m.collectPackage(acc, path, f, meta) {
				acc.add(Extensions, path, meta, true)
			}
			continue
		}
		dir, ok := m.installedDir(src, scope)
		if !ok {
			if !install || m.Offline {
				acc.warn("package %s is not installed (run: relay install %s%s)", e.pkg.Source, pkg.Source, localFlag(scope))
				continue
			}
			if err := m.install(ctx, src, scope); err != nil {
				acc.warn("package %s: %v", e.pkg.Source, err)
				continue
			}
			if dir, ok = m.installedDir(src, scope); !ok {
				acc.warn("package %s: installed but not found at %s", e.pkg.Source, dir)
				continue
			}
		}
		meta.BaseDir, meta.PackageRoot = dir, dir
		m.collectPackage(acc, dir, f, meta)
	}
}

func localFlag(scope string) string {
	if scope == ScopeProject {
		return " -l"
	}
	return ""
}

// filter is the object form of a packages entry.
type filter struct {
	autoload *bool
	lists    [4][]string // nil = everything the package allows
}

// collectPackage adds a package directory's resources and reports whether
// it declared any (a manifest key or a conventional directory).
func (m *Manager) collectPackage(acc *accumulator, root string, f *filter, meta Meta) bool {
	man, err := ReadManifest(root)
	if err != nil {
		acc.warn("package %s: %v (using its conventional directories)", meta.Source, err)
		man = nil
	}
	if man != nil && len(man.HostDeps) > 0 {
		acc.warn("package %s lists host-provided packages in dependencies (%s); declare them in peerDependencies with \"*\"", meta.Source, strings.Join(man.HostDeps, ", "))
	}
	if f != nil {
		for _, k := range Kinds {
			patterns := f.lists[k]
			switch {
			case f.autoload != nil && !*f.autoload:
				if len(patterns) == 0 {
					continue
				}
				for path, on := range deltaEnabled(packageFiles(root, man, k), patterns, root) {
					acc.add(k, path, meta, on)
				}
			case patterns != nil:
				files := packageFiles(root, man, k)
				on := resources.ApplyPatterns(files, patterns, root)
				for _, path := range files {
					acc.add(k, path, meta, len(patterns) > 0 && on[path])
				}
			default:
				for _, path := range packageFiles(root, man, k) {
					acc.add(k, path, meta, true)
				}
			}
		}
		return true
	}
	if man != nil && man.HasKey {
		for _, k := range Kinds {
			if _, ok := man.Lists[k]; ok {
				for _, path := range packageFiles(root, man, k) {
					acc.add(k, path, meta, true)
				}
			}
		}
		return true
	}
	any := false
	for _, k := range Kinds {
		dir := filepath.Join(root, k.String())
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			any = true
			for _, path := range collectKind(dir, k) {
				acc.add(k, path, meta, true)
			}
		}
	}
	return any
}

// packageFiles lists what a package allows of kind k: its manifest
// entries (globs expanded, the manifest's own "!", "+", "-" applied) or
// else its conventional directory.
func packageFiles(root string, man *Manifest, k Kind) []string {
	if man != nil {
		if entries := man.Lists[k]; len(entries) > 0 {
			var plain, overrides []string
			for _, e := range entries {
				if isOverride(e) {
					overrides = append(overrides, e)
					continue
				}
				if hasGlob(e) {
					plain = append(plain, expandGlob(e, root)...)
				} else {
					plain = append(plain, filepath.Join(root, e))
				}
			}
			files := filesFromPaths(plain, k)
			if len(overrides) == 0 {
				return files
			}
			on := resources.ApplyPatterns(files, overrides, root)
			var out []string
			for _, f := range files {
				if on[f] {
					out = append(out, f)
				}
			}
			return out
		}
	}
	dir := filepath.Join(root, k.String())
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil
	}
	return collectKind(dir, k)
}

// expandGlob matches a manifest glob below root, leaving out paths with a
// dot segment (list those directly).
func expandGlob(pattern, root string) []string {
	matches, err := doublestar.Glob(os.DirFS(root), filepath.ToSlash(strings.TrimPrefix(pattern, "./")))
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range matches {
		hidden := false
		for _, seg := range strings.Split(m, "/") {
			if strings.HasPrefix(seg, ".") && seg != "." && seg != ".." {
				hidden = true
			}
		}
		if !hidden {
			out = append(out, filepath.Join(root, filepath.FromSlash(m)))
		}
	}
	sort.Strings(out)
	return out
}

func isOverride(e string) bool {
	return strings.HasPrefix(e, "!") || strings.HasPrefix(e, "+") || strings.HasPrefix(e, "-")
}

func hasGlob(e string) bool { return strings.ContainsAny(e, "*?") }

// overrides keeps the "!", "+" and "-" entries.
func overrides(entries []string) []string {
	var out []string
	for _, e := range entries {
		if isOverride(e) {
			out = append(out, e)
		}
	}
	return out
}

// deltaEnabled applies patterns in order to files, recording only the
// files a pattern names: "+path" and plain globs enable, "-path" and
// "!glob" disable (a project filter over a user package, or over
// built-in extensions).
func deltaEnabled(files, patterns []string, base string) map[string]bool {
	out := map[string]bool{}
	for _, p := range patterns {
		target, exact, on := p, false, true
		switch {
		case strings.HasPrefix(p, "+"):
			target, exact = p[1:], true
		case strings.HasPrefix(p, "-"):
			target, exact, on = p[1:], true, false
		case strings.HasPrefix(p, "!"):
			target, on = p[1:], false
		}
		for _, f := range files {
			if exact && resources.MatchesExact(f, target, base) || !exact && resources.MatchesGlob(f, target, base) {
				out[f] = on
			}
		}
	}
	return out
}

// filesFromPaths expands files and directories of kind k.
func filesFromPaths(paths []string, k Kind) []string {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		switch {
		case err != nil:
		case st.Mode().IsRegular():
			out = append(out, p)
		case st.IsDir():
			out = append(out, collectKind(p, k)...)
		}
	}
	return out
}

// collectKind lists the resources of kind k in a directory: extensions
// by their entry points, skills as skill directories find them, prompt
// templates and themes recursively by extension.
func collectKind(dir string, k Kind) []string {
	switch k {
	case Extensions:
		return extensionEntries(dir)
	case Skills:
		return resources.SkillFiles(dir)
	case Prompts:
		return resources.FilesWithSuffix(dir, ".md")
	}
	return resources.FilesWithSuffix(dir, ".json")
}

// extensionEntries lists the extensions of a directory: its own entry
// points when it is one extension (a package.json naming extensions, or an
// index.ts / index.js), else its *.ts and *.js files and the entry points
// of its subdirectories.
func extensionEntries(dir string) []string {
	if own := extensionEntryPoints(dir); own != nil {
		return own
	}
	var out []string
	for _, e := range resources.VisibleEntries(dir) {
		switch {
		case e.IsFile && (strings.HasSuffix(e.Path, ".ts") || strings.HasSuffix(e.Path, ".js")):
			out = append(out, e.Path)
		case e.IsDir:
			out = append(out, extensionEntryPoints(e.Path)...)
		}
	}
	return out
}

func extensionEntryPoints(dir string) []string {
	if man, err := ReadManifest(dir); err == nil && man != nil {
		var out []string
		for _, e := range man.Lists[Extensions] {
			p := filepath.Join(dir, e)
			if _, err := os.Stat(p); err == nil {
				out = append(out, p)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, name := range []string{"index.ts", "index.js"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return []string{p}
		}
	}
	return nil
}

// resolveEntries applies one settings file's entries of kind k: plain
// paths supply files, glob and "!", "+", "-" entries select among them.
func (m *Manager) resolveEntries(acc *accumulator, k Kind, entries []string, meta Meta, base string) {
	var plain, patterns []string
	for _, e := range entries {
		switch {
		case isOverride(e) || hasGlob(e):
			patterns = append(patterns, e)
		case strings.HasPrefix(e, BuiltinPrefix):
		default:
			plain = append(plain, config.ResolvePath(base, e))
		}
	}
	files := filesFromPaths(plain, k)
	on := resources.ApplyPatterns(files, patterns, base)
	for _, f := range files {
		acc.add(k, f, meta, on[f])
	}
}

// addAuto adds the conventional directories: <cwd>/.relay (trusted
// projects) and the project's .agents/skills, then the agent directory and
// ~/.agents/skills. A settings file's "!", "+" and "-" entries filter its
// scope's directories.
func (m *Manager) addAuto(acc *accumulator, lists [4][]settings.Resource, entries func([]settings.Resource, settings.Scope) []string) {
	projBase := config.Project{Cwd: m.Cwd}.Dir()
	add := func(k Kind, files []string, meta Meta, rules []string, base string) {
		for _, f := range files {
			acc.add(k, f, meta, resources.EnabledByOverrides(f, rules, base))
		}
	}
	home := m.HomeDir
	if home == "" {
		home, _ = config.HomeDir()
	}
	userAgents := ""
	if home != "" {
		userAgents = filepath.Join(home, ".agents", "skills")
	}
	if m.ProjectTrusted {
		meta := Meta{Source: SourceAuto, Scope: ScopeProject, Origin: OriginTopLevel, BaseDir: projBase}
		for _, k := range Kinds {
			add(k, autoFiles(filepath.Join(projBase, k.String()), k), meta, entries(lists[k], settings.ScopeProject), projBase)
		}
		for _, d := range ancestorAgentsSkillDirs(m.Cwd) {
			if userAgents != "" && canonical(d) == canonical(userAgents) {
				continue
			}
			meta := meta
			meta.BaseDir = filepath.Dir(d)
			add(Skills, resources.AgentsSkillFiles(d), meta, entries(lists[Skills], settings.ScopeProject), meta.BaseDir)
		}
	}
	if m.AgentDir != "" {
		meta := Meta{Source: SourceAuto, Scope: ScopeUser, Origin: OriginTopLevel, BaseDir: m.AgentDir}
		for _, k := range Kinds {
			add(k, autoFiles(filepath.Join(m.AgentDir, k.String()), k), meta, entries(lists[k], settings.ScopeUser), m.AgentDir)
		}
	}
	if userAgents != "" {
		meta := Meta{Source: SourceAuto, Scope: ScopeUser, Origin: OriginTopLevel, BaseDir: filepath.Dir(userAgents)}
		add(Skills, resources.AgentsSkillFiles(userAgents), meta, entries(lists[Skills], settings.ScopeUser), meta.BaseDir)
	}
}

// autoFiles lists a conventional directory: prompt templates and themes
// are its direct children only.
func autoFiles(dir string, k Kind) []string {
	switch k {
	case Prompts:
		return resources.DirectFilesWithSuffix(dir, ".md")
	case Themes:
		return resources.DirectFilesWithSuffix(dir, ".json")
	}
	return collectKind(dir, k)
}

// ancestorAgentsSkillDirs lists <dir>/.agents/skills from cwd upwards to
// the enclosing git repository's root.
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
