package packages

import (
	"path/filepath"

	"github.com/relay-agent/relay/internal/settings"
)

// save edits the packages array of a scope's settings file.
func (m *Manager) save(scope string, edit func([]any) []any) error {
	fn := func(o *settings.Object) error {
		v, _ := o.Get("packages")
		list, _ := v.([]any)
		next := edit(list)
		if len(next) == 0 {
			o.Delete("packages")
			return nil
		}
		o.Put("packages", next)
		return nil
	}
	if scope == ScopeProject {
		return settings.SaveProject(m.Cwd, fn)
	}
	return settings.SaveUser(m.AgentDir, fn)
}

func entrySource(e any) string {
	switch x := e.(type) {
	case string:
		return x
	case *settings.Object:
		v, _ := x.Get("source")
		s, _ := v.(string)
		return s
	}
	return ""
}

// settingsSource is what install writes: local paths relative to the
// scope's base directory, other sources as typed.
func (m *Manager) settingsSource(src Source, scope string) string {
	if src.Type != TypeLocal {
		return src.Raw
	}
	abs := src.LocalPath(m.Cwd)
	if rel, err := filepath.Rel(m.baseDir(scope), abs); err == nil {
		return rel
	}
	return abs
}

func (m *Manager) addToSettings(src Source, scope string) error {
	want := m.inputIdentity(src)
	value := m.settingsSource(src, scope)
	return m.save(scope, func(list []any) []any {
		for i, e := range list {
			s, err := ParseSource(entrySource(e))
			if err != nil || s.Identity(m.baseDir(scope)) != want {
				continue
			}
			if o, ok := e.(*settings.Object); ok {
				o.Put("source", value)
			} else {
				list[i] = value
			}
			return list
		}
		return append(list, value)
	})
}

func (m *Manager) removeFromSettings(src Source, scope string) (bool, error) {
	want := m.inputIdentity(src)
	removed := false
	err := m.save(scope, func(list []any) []any {
		var out []any
		for _, e := range list {
			if s, err := ParseSource(entrySource(e)); err == nil && s.Identity(m.baseDir(scope)) == want {
				removed = true
				continue
			}
			out = append(out, e)
		}
		return out
	})
	return removed, err
}
