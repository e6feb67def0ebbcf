package packages

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/settings"
)

// Project overrides (`relay config`'s project mode): every resource the
// project sees, the user's included, is inherited as the user settings
// leave it, or loaded or unloaded by the project's .relay/settings.json.
// An inherited user file is named in the project's list (its absolute
// path, so the project entry shadows the user's copy) with "+path" or
// "-path"; a user package gets a project entry with autoload false whose
// filter says "+path" / "-path" relative to the package.
const (
	OverrideInherit = "inherit"
	OverrideLoad    = "load"
	OverrideUnload  = "unload"
)

// NextOverride is the cycle Space walks in project mode: from inherit to
// the opposite of what is inherited, then the other override, then back.
func NextOverride(state string, inheritedEnabled bool) string {
	switch state {
	case OverrideUnload:
		if inheritedEnabled {
			return OverrideLoad
		}
		return OverrideInherit
	case OverrideLoad:
		if inheritedEnabled {
			return OverrideInherit
		}
		return OverrideUnload
	}
	if inheritedEnabled {
		return OverrideUnload
	}
	return OverrideLoad
}

var errReadOnly = errors.New("read only")

// readProject returns the project settings file as written.
func (m *Manager) readProject() (*settings.Object, error) {
	var obj *settings.Object
	err := settings.SaveProject(m.Cwd, func(o *settings.Object) error {
		obj = o
		return errReadOnly // nothing is written
	})
	if !errors.Is(err, errReadOnly) {
		return nil, err
	}
	return obj, nil
}

// overrideTargets are the ways a project entry can name res: its absolute
// path, and for the project's own resources and built-ins their pattern
// (relative to the project's .relay directory).
func (m *Manager) overrideTargets(res Resource, inherited bool) map[string]bool {
	t := map[string]bool{res.Path: true}
	if inherited && res.Meta.Source != SourceBuiltin {
		// A relative entry in the project file names a project file.
		return t
	}
	t[m.Pattern(res)] = true
	if rel, err := filepath.Rel(config.Project{Cwd: m.Cwd}.Dir(), res.Path); err == nil {
		t[filepath.ToSlash(rel)] = true
	}
	return t
}

// overridePattern is how the project names res: its own resources and
// built-ins by their pattern, an inherited user file by its absolute path.
func (m *Manager) overridePattern(res Resource, inherited bool) string {
	if inherited && res.Meta.Source != SourceBuiltin {
		return res.Path
	}
	return m.Pattern(res)
}

// stateOf is the last "+"/"-"/"!" entry of list naming one of targets.
func stateOf(list []any, targets map[string]bool) string {
	state := OverrideInherit
	for _, e := range list {
		s, ok := e.(string)
		if !ok || !isOverride(s) || !targets[stripOp(s)] {
			continue
		}
		if s[0] == '+' {
			state = OverrideLoad
		} else {
			state = OverrideUnload
		}
	}
	return state
}

// ProjectOverride reads res's state in the project settings. inherited
// says res is also one of the user's (the user view lists its path): the
// project then names it by its absolute path.
func (m *Manager) ProjectOverride(res Resource, k Kind, inherited bool) (string, error) {
	obj, err := m.readProject()
	if err != nil {
		return "", err
	}
	if res.Meta.Origin != OriginPackage {
		v, _ := obj.Get(k.String())
		list, _ := v.([]any)
		return stateOf(list, m.overrideTargets(res, inherited)), nil
	}
	v, _ := obj.Get("packages")
	list, _ := v.([]any)
	for _, e := range list {
		if !m.samePackage(entrySource(e), ScopeProject, res) {
			continue
		}
		p, ok := e.(*settings.Object)
		if !ok {
			return OverrideInherit, nil
		}
		kv, present := p.Get(k.String())
		if !present {
			return OverrideInherit, nil
		}
		kl, _ := kv.([]any)
		auto, _ := p.Get("autoload")
		if len(kl) == 0 && auto != false {
			return OverrideUnload, nil // [] = none of this kind
		}
		return stateOf(kl, map[string]bool{m.Pattern(res): true}), nil
	}
	return OverrideInherit, nil
}

// samePackage reports whether source (declared in scope) is res's package.
func (m *Manager) samePackage(source, scope string, res Resource) bool {
	a, err1 := ParseSource(source)
	b, err2 := ParseSource(res.Meta.Source)
	return err1 == nil && err2 == nil && a.Identity(m.baseDir(scope)) == b.Identity(m.baseDir(res.Meta.Scope))
}

// SetProjectOverride writes res's state to the project settings
// (inherited as for ProjectOverride).
func (m *Manager) SetProjectOverride(res Resource, k Kind, state string, inherited bool) error {
	if !m.ProjectTrusted {
		return ErrProjectNotTrusted
	}
	switch state {
	case OverrideInherit, OverrideLoad, OverrideUnload:
	default:
		return fmt.Errorf("unknown override state %q", state)
	}
	op := map[string]string{OverrideLoad: "+", OverrideUnload: "-"}[state]
	if res.Meta.Origin != OriginPackage {
		targets := m.overrideTargets(res, inherited)
		pattern := m.overridePattern(res, inherited)
		inherited := inherited && res.Meta.Source != SourceBuiltin
		return settings.SaveProject(m.Cwd, func(o *settings.Object) error {
			v, _ := o.Get(k.String())
			list, _ := v.([]any)
			var out []any
			for _, e := range list {
				s, ok := e.(string)
				if ok && isOverride(s) && targets[stripOp(s)] {
					continue
				}
				if ok && state == OverrideInherit && inherited && s == pattern {
					continue
				}
				out = append(out, e)
			}
			if state != OverrideInherit {
				// The plain entry makes the project load the user's file
				// itself, ahead of the user's copy, so the "-" holds.
				if inherited && !containsString(out, pattern) {
					out = append(out, pattern)
				}
				out = append(out, op+pattern)
			}
			if len(out) == 0 {
				o.Delete(k.String())
			} else {
				o.Put(k.String(), out)
			}
			return nil
		})
	}
	pattern := m.Pattern(res)
	return settings.SaveProject(m.Cwd, func(o *settings.Object) error {
		v, _ := o.Get("packages")
		list, _ := v.([]any)
		idx := -1
		for i, e := range list {
			if m.samePackage(entrySource(e), ScopeProject, res) {
				idx = i
				break
			}
		}
		if idx < 0 {
			if state == OverrideInherit {
				return nil
			}
			p := settings.NewObject()
			p.Put("source", m.projectSource(res))
			p.Put("autoload", false)
			list = append(list, p)
			idx = len(list) - 1
		}
		p, ok := list[idx].(*settings.Object)
		if !ok {
			p = settings.NewObject()
			p.Put("source", entrySource(list[idx]))
			list[idx] = p
		}
		kv, _ := p.Get(k.String())
		kl, _ := kv.([]any)
		var out []any
		for _, e := range kl {
			if s, ok := e.(string); ok && stripOp(s) == pattern {
				continue
			}
			out = append(out, e)
		}
		if state != OverrideInherit {
			out = append(out, op+pattern)
		}
		if len(out) > 0 {
			p.Put(k.String(), out)
		} else {
			p.Delete(k.String())
		}
		filtered := false
		for _, kind := range Kinds {
			if _, ok := p.Get(kind.String()); ok {
				filtered = true
			}
		}
		if !filtered {
			if auto, _ := p.Get("autoload"); auto == false {
				list = append(list[:idx:idx], list[idx+1:]...)
			} else {
				list[idx] = entrySource(p)
			}
		}
		if len(list) == 0 {
			o.Delete("packages")
		} else {
			o.Put("packages", list)
		}
		return nil
	})
}

// projectSource is res's package source as the project file writes it: a
// local path relative to the project's .relay directory.
func (m *Manager) projectSource(res Resource) string {
	src, err := ParseSource(res.Meta.Source)
	if err != nil || src.Type != TypeLocal {
		return res.Meta.Source
	}
	abs := src.LocalPath(m.baseDir(res.Meta.Scope))
	if rel, err := filepath.Rel(m.baseDir(ScopeProject), abs); err == nil {
		return filepath.ToSlash(rel)
	}
	return abs
}

func containsString(list []any, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
