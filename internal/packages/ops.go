package packages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/relay-agent/relay/internal/settings"
)

func scopeFor(local bool) string {
	if local {
		return ScopeProject
	}
	return ScopeUser
}

// inputIdentity is the identity of a source typed on the command line
// (local paths relative to the working directory).
func (m *Manager) inputIdentity(src Source) string { return src.Identity(m.Cwd) }

// Install installs source (npm, git or local) into the user scope, or the
// project scope with local, and adds it to that scope's settings file. A
// source already declared with the same identity is replaced in place.
func (m *Manager) Install(ctx context.Context, raw string, local bool) error {
	src, err := ParseSource(raw)
	if err != nil {
		return err
	}
	scope := scopeFor(local)
	if local && !m.ProjectTrusted {
		return ErrProjectNotTrusted
	}
	if src.Type == TypeLocal {
		path := src.LocalPath(m.Cwd)
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("path does not exist: %s", path)
		}
	} else if err := m.install(ctx, src, scope); err != nil {
		return err
	}
	return m.addToSettings(src, scope)
}

// Remove uninstalls source from the scope and removes its settings entry.
// It reports false when no entry of that identity was declared.
func (m *Manager) Remove(ctx context.Context, raw string, local bool) (bool, error) {
	src, err := ParseSource(raw)
	if err != nil {
		return false, err
	}
	scope := scopeFor(local)
	if local && !m.ProjectTrusted {
		return false, ErrProjectNotTrusted
	}
	m.progress("Removing %s...", raw)
	switch src.Type {
	case TypeNpm:
		root := m.npmRoot(scope)
		if _, err := os.Stat(filepath.Join(root, "package.json")); err == nil {
			args := []string{"uninstall", src.Name, "--prefix", root}
			switch m.managerName() {
			case "bun":
				args = []string{"uninstall", src.Name, "--cwd", root}
			case "npm":
				args = append(args, "--legacy-peer-deps")
			}
			if _, err := m.npm(ctx, root, args...); err != nil {
				return false, err
			}
		}
	case TypeGit:
		dir, err := m.InstallDir(src, scope)
		if err != nil {
			return false, err
		}
		if err := os.RemoveAll(dir); err != nil {
			return false, fmt.Errorf("remove %s: %w", dir, err)
		}
		pruneEmptyParents(dir, m.gitRoot(scope))
	}
	return m.removeFromSettings(src, scope)
}

// Configured is one declared package for `relay list`.
type Configured struct {
	Source   string
	Scope    string
	Filtered bool
	// Installed is where it lives; "" when not installed (or a local
	// path that does not exist).
	Installed string
}

// List returns the declared packages, user entries first. st holds the
// project's entries only when the project is trusted.
func (m *Manager) List(st *settings.Settings) []Configured {
	var out []Configured
	for _, scope := range []settings.Scope{settings.ScopeUser, settings.ScopeProject} {
		for _, p := range st.Packages {
			if p.Scope != scope {
				continue
			}
			c := Configured{Source: p.Source, Scope: scopeOf(p), Filtered: p.Filtered}
			if src, err := ParseSource(p.Source); err == nil {
				var dir string
				ok := false
				if src.Type == TypeLocal {
					dir = src.LocalPath(p.BaseDir)
					_, err := os.Stat(dir)
					ok = err == nil
				} else {
					dir, ok = m.installedDir(src, c.Scope)
				}
				if ok {
					c.Installed = dir
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// Update brings the declared packages (or the one whose identity matches
// source) up to date: npm packages without an exact version are
// reinstalled at their latest matching version, git checkouts are
// reconciled with their ref or upstream branch, local paths are left
// alone. Offline it does nothing. A source matching no declaration is an
// error naming it.
func (m *Manager) Update(ctx context.Context, st *settings.Settings, source string) error {
	var targets []settings.PackageSource
	id := ""
	if source != "" {
		src, err := ParseSource(source)
		if err != nil {
			return err
		}
		id = m.inputIdentity(src)
	}
	for _, p := range st.Packages {
		src, err := ParseSource(p.Source)
		if err != nil {
			continue
		}
		if id != "" && src.Identity(p.BaseDir) != id {
			continue
		}
		targets = append(targets, p)
	}
	if source != "" && len(targets) == 0 {
		return fmt.Errorf("no matching package found for %s", source)
	}
	if m.Offline {
		return nil
	}
	var errs []error
	for _, p := range targets {
		src, _ := ParseSource(p.Source)
		scope := scopeOf(p)
		if scope == ScopeProject && !m.ProjectTrusted {
			continue
		}
		var err error
		switch src.Type {
		case TypeNpm:
			if src.Pinned() {
				if _, ok := m.installedDir(src, scope); !ok {
					err = m.install(ctx, src, scope)
				}
				break
			}
			err = m.updateNpm(ctx, src, scope)
		case TypeGit:
			m.progress("Updating %s...", p.Source)
			err = m.updateGit(ctx, src, scope)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("update %s: %w", p.Source, err))
		}
	}
	return joinErrs(errs)
}

func joinErrs(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	msg := errs[0].Error()
	for _, e := range errs[1:] {
		msg += "\n" + e.Error()
	}
	return fmt.Errorf("%s", msg)
}

// updateNpm reinstalls an unpinned npm package when the registry has a
// newer version than the installed one (or when that cannot be told).
func (m *Manager) updateNpm(ctx context.Context, src Source, scope string) error {
	if dir, ok := m.installedDir(src, scope); ok {
		if man, err := ReadManifest(dir); err == nil && man != nil && man.Version != "" {
			if latest, err := m.latestVersion(ctx, src); err == nil && !newer(latest, man.Version) {
				return nil
			}
		}
	}
	spec := src.Spec
	if src.Version == "" {
		spec = src.Name + "@latest"
	}
	m.progress("Updating %s...", src.Raw)
	root := m.npmRoot(scope)
	if err := ensureNpmProject(root); err != nil {
		return err
	}
	_, err := m.npm(ctx, root, m.installArgs(root, spec)...)
	return err
}
