package commands

import (
	"context"
	"fmt"
	"strings"
)

// Shortcut is a key an extension bound to a handler (registerShortcut).
// Front ends with a keyboard run it when the key is not one of relay's
// own bindings; /hotkeys lists it.
type Shortcut struct {
	// Key in the keybindings format ("ctrl+shift+p", "alt+x").
	Key         string
	Description string
	Source      Source
	SourceInfo  any
	Run         func(ctx context.Context) error
}

// NormalizeKey lower-cases a key and orders its modifiers as
// ctrl+alt+shift+super so "Shift+Ctrl+P" and "ctrl+shift+p" are one key.
func NormalizeKey(key string) string {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(key)), "+")
	if len(parts) == 0 {
		return ""
	}
	base := parts[len(parts)-1]
	has := map[string]bool{}
	for _, p := range parts[:len(parts)-1] {
		has[p] = true
	}
	var out []string
	for _, mod := range []string{"ctrl", "alt", "shift", "super"} {
		if has[mod] {
			out = append(out, mod)
		}
	}
	return strings.Join(append(out, base), "+")
}

// RegisterShortcut binds s.Key. A key already bound is an error naming
// both sources; the returned func removes the binding.
func (r *Registry) RegisterShortcut(s Shortcut) (func(), error) {
	key := NormalizeKey(s.Key)
	if key == "" || strings.HasSuffix(key, "+") {
		return nil, fmt.Errorf("register shortcut %q: invalid key", s.Key)
	}
	s.Key = key
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.shortcuts[key]; ok {
		return nil, fmt.Errorf("register shortcut %s (%s): already bound by %s", key, s.Source, old.Source)
	}
	if r.shortcuts == nil {
		r.shortcuts = map[string]*Shortcut{}
	}
	p := &s
	r.shortcuts[key] = p
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.shortcuts[key] == p {
			delete(r.shortcuts, key)
		}
	}, nil
}

// Shortcut returns the binding of key, if any.
func (r *Registry) Shortcut(key string) (Shortcut, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.shortcuts[NormalizeKey(key)]
	if !ok {
		return Shortcut{}, false
	}
	return *s, true
}

// Shortcuts lists the bindings (for /hotkeys).
func (r *Registry) Shortcuts() []Shortcut {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Shortcut, 0, len(r.shortcuts))
	for _, s := range r.shortcuts {
		out = append(out, *s)
	}
	return out
}
