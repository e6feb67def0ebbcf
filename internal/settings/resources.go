package settings

import (
	"path/filepath"
	"strings"

	"github.com/relay-agent/relay/internal/config"
)

// Scope says which settings file a value came from.
type Scope string

const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project"
)

// Resource is one entry of extensions, skills, prompts or themes. Entries
// keep their prefix: "!glob" excludes glob matches, "+path" includes one
// exact path, "-path" excludes one, "builtin:<name>" names a built-in
// extension. BaseDir is where relative paths of this entry's file resolve:
// the agent directory for user entries, the project .relay directory for
// project entries (settings.md "Resources").
type Resource struct {
	Entry   string
	Scope   Scope
	BaseDir string
}

// Op is the entry's prefix: '!', '+', '-' or 0 for a plain path.
func (r Resource) Op() byte {
	if r.Entry != "" && strings.ContainsRune("!+-", rune(r.Entry[0])) {
		return r.Entry[0]
	}
	return 0
}

// Builtin returns the built-in extension name of "builtin:<name>",
// "+builtin:<name>" or "-builtin:<name>".
func (r Resource) Builtin() (string, bool) {
	e := r.Entry
	if r.Op() == '+' || r.Op() == '-' {
		e = e[1:]
	}
	return strings.CutPrefix(e, "builtin:")
}

// Path returns the entry without its prefix, resolved: "~" expanded and
// relative paths joined to BaseDir. Glob patterns ("!pattern" and plain
// entries with glob characters) resolve the same way. Built-in names are
// returned unchanged.
func (r Resource) Path() string {
	if name, ok := r.Builtin(); ok {
		return "builtin:" + name
	}
	e := r.Entry
	if r.Op() != 0 {
		e = e[1:]
	}
	return config.ResolvePath(r.BaseDir, e)
}

// PackageSource is one packages entry: a source string, or an object that
// narrows which resources load (packages.md). A nil filter list loads
// everything of that type the package allows; an empty one loads none.
type PackageSource struct {
	Source     string
	Autoload   *bool
	Extensions []string
	Skills     []string
	Prompts    []string
	Themes     []string
	// Filtered is true for the object form.
	Filtered bool
	Scope    Scope
	BaseDir  string
}

// IsLocal reports a local path source (not npm:, git:, or a URL).
func (p PackageSource) IsLocal() bool {
	s := p.Source
	for _, pre := range []string{"npm:", "git:", "http://", "https://", "ssh://", "git://", "git+ssh://", "file://", "git@"} {
		if strings.HasPrefix(s, pre) {
			return false
		}
	}
	return true
}

// LocalPath resolves a local source against the directory of the settings
// file that declared it; non-local sources are returned unchanged.
func (p PackageSource) LocalPath() string {
	if !p.IsLocal() {
		return p.Source
	}
	return config.ResolvePath(p.BaseDir, p.Source)
}

func stringList(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// resources converts a validated resource list.
func resources(v any, scope Scope, base string) []Resource {
	var out []Resource
	for _, s := range stringList(v) {
		out = append(out, Resource{Entry: s, Scope: scope, BaseDir: base})
	}
	return out
}

// packages converts a validated packages list.
func packages(v any, scope Scope, base string) []PackageSource {
	arr, _ := v.([]any)
	var out []PackageSource
	for _, e := range arr {
		p := PackageSource{Scope: scope, BaseDir: base}
		switch x := e.(type) {
		case string:
			p.Source = x
		case *Object:
			p.Filtered = true
			src, _ := x.Get("source")
			p.Source, _ = src.(string)
			if a, ok := x.Get("autoload"); ok {
				b, _ := a.(bool)
				p.Autoload = &b
			}
			for key, dst := range map[string]*[]string{"extensions": &p.Extensions, "skills": &p.Skills, "prompts": &p.Prompts, "themes": &p.Themes} {
				if v, ok := x.Get(key); ok {
					*dst = stringList(v)
				}
			}
		default:
			continue
		}
		out = append(out, p)
	}
	return out
}

// projectBase is the base directory of project resource paths.
func projectBase(cwd string) string { return filepath.Join(cwd, config.DirName) }
