package packages

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/settings"
)

// Pattern is how `relay config` names res in a "+path" / "-path" entry:
// relative to its package root for package resources, to its settings
// file's base for the rest; built-in extensions by their name.
func (m *Manager) Pattern(res Resource) string {
	if res.Meta.Source == SourceBuiltin {
		return res.Path
	}
	base := res.Meta.BaseDir
	if res.Meta.Origin == OriginPackage && res.Meta.PackageRoot != "" {
		base = res.Meta.PackageRoot
	}
	if base == "" {
		base = m.baseDir(res.Meta.Scope)
	}
	if rel, err := filepath.Rel(base, res.Path); err == nil {
		return filepath.ToSlash(rel)
	}
	return res.Path
}

func stripOp(e string) string {
	if isOverride(e) {
		return e[1:]
	}
	return e
}

// withOverride drops list's "!", "+" and "-" entries naming pattern and
// appends "+pattern" or "-pattern".
func withOverride(list []any, pattern string, enabled bool) []any {
	var out []any
	for _, e := range list {
		if s, ok := e.(string); ok && isOverride(s) && stripOp(s) == pattern {
			continue
		}
		out = append(out, e)
	}
	op := "-"
	if enabled {
		op = "+"
	}
	return append(out, op+pattern)
}

// SetEnabled turns res of kind k on or off in the settings file of its
// scope (`relay config`): a "+path" / "-path" entry in the kind's setting,
// or in the package's filter (a string entry becomes the object form).
func (m *Manager) SetEnabled(res Resource, k Kind, enabled bool) error {
	scope := res.Meta.Scope
	if scope != ScopeUser && scope != ScopeProject {
		return fmt.Errorf("%s is not from a settings file", res.Path)
	}
	if scope == ScopeProject && !m.ProjectTrusted {
		return ErrProjectNotTrusted
	}
	pattern := m.Pattern(res)
	save := func(edit func(*settings.Object) error) error {
		if scope == ScopeProject {
			return settings.SaveProject(m.Cwd, edit)
		}
		return settings.SaveUser(m.AgentDir, edit)
	}
	if res.Meta.Origin != OriginPackage {
		return save(func(o *settings.Object) error {
			v, _ := o.Get(k.String())
			list, _ := v.([]any)
			o.Put(k.String(), withOverride(list, pattern, enabled))
			return nil
		})
	}
	found := false
	err := save(func(o *settings.Object) error {
		v, _ := o.Get("packages")
		list, _ := v.([]any)
		for i, e := range list {
			if !sameSource(entrySource(e), res.Meta.Source, m.baseDir(scope)) {
				continue
			}
			found = true
			obj, ok := e.(*settings.Object)
			if !ok {
				obj = settings.NewObject()
				obj.Put("source", entrySource(e))
				list[i] = obj
			}
			kv, _ := obj.Get(k.String())
			kl, _ := kv.([]any)
			obj.Put(k.String(), withOverride(kl, pattern, enabled))
			o.Put("packages", list)
			return nil
		}
		return nil
	})
	if err == nil && !found {
		return fmt.Errorf("package %s is not declared in the %s settings", res.Meta.Source, scope)
	}
	return err
}

// sameSource compares two declarations of one settings file.
func sameSource(a, b, base string) bool {
	if a == b {
		return true
	}
	sa, err1 := ParseSource(a)
	sb, err2 := ParseSource(b)
	return err1 == nil && err2 == nil && sa.Identity(base) == sb.Identity(base)
}

// DisplayName is how a resource is listed: a built-in's name, a skill's
// directory, an extension with its parent directory when that is not
// extensions/, else the file name.
func DisplayName(res Resource, k Kind) string {
	if name, ok := strings.CutPrefix(res.Path, BuiltinPrefix); ok {
		return name
	}
	file, parent := filepath.Base(res.Path), filepath.Base(filepath.Dir(res.Path))
	switch {
	case k == Extensions && parent != "extensions":
		return parent + "/" + file
	case k == Skills && file == "SKILL.md":
		return parent
	}
	return file
}

// GroupLabel is the heading a resource is listed under.
func GroupLabel(m Meta, agentDir string) string {
	switch {
	case m.Origin == OriginPackage:
		return m.Source + " (" + m.Scope + ")"
	case m.Source == SourceBuiltin:
		if m.Scope == ScopeProject {
			return "Built-in (project override)"
		}
		return "Built-in"
	case m.Source == SourceAuto:
		base := m.BaseDir
		if base == "" {
			base = agentDir
		}
		if home, err := config.HomeDir(); err == nil && strings.HasPrefix(base, home) {
			base = "~" + strings.TrimPrefix(base, home)
		}
		if m.Scope == ScopeProject {
			return "Project (" + filepath.ToSlash(base) + "/)"
		}
		return "User (" + filepath.ToSlash(base) + "/)"
	case m.Scope == ScopeProject:
		return "Project settings"
	}
	return "User settings"
}
