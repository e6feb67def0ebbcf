package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/packages"
	"github.com/relay-agent/relay/internal/resources"
	"github.com/relay-agent/relay/internal/settings"
)

// builtinExtensions are the built-in extensions the extensions setting
// names as builtin:<name> (settings.md "Resources").
var builtinExtensions = []string{"mcp", "llama.cpp", "codemode", "tool-search"}

// runResources is what the packages and resource settings make active for
// this run (internal/packages): the extension host loads Extensions, the
// resources loader adds the packages' skills and prompt templates, the TUI
// loads Themes.
type runResources struct {
	resolved *packages.Resolved // settings, conventional dirs, packages
	once     *packages.Resolved // -e values
	// Themes are theme files in precedence order: --theme paths, then
	// (unless --no-themes) the resolved ones. nil leaves the TUI's own
	// agent-dir discovery alone.
	Themes []string
}

// resolveResources resolves packages (installing missing npm and git
// ones unless offline) with the settings configure loaded, so an
// untrusted project's packages and .relay directories are absent.
func (l *launch) resolveResources(ctx context.Context) {
	r := l.resolvePackages(ctx, l.st, l.trusted)
	for _, res := range []*packages.Resolved{r.resolved, r.once} {
		if res == nil {
			continue
		}
		for _, d := range res.Diagnostics {
			fmt.Fprintln(l.stderr, "Warning:", d)
		}
	}
	r.Themes = []string{}
	for _, p := range l.a.Themes {
		path := config.ResolvePath(l.cwd, p)
		st, err := os.Stat(path)
		switch {
		case err != nil:
			fmt.Fprintf(l.stderr, "Warning: --theme %s: %v\n", p, err)
		case st.IsDir():
			r.Themes = append(r.Themes, resources.FilesWithSuffix(path, ".json")...)
		default:
			r.Themes = append(r.Themes, path)
		}
	}
	if !l.a.NoThemes {
		for _, t := range r.resolved.Enabled(packages.Themes) {
			r.Themes = append(r.Themes, t.Path)
		}
	}
	l.res = r
	l.applyBuiltins()
}

// resolvePackages resolves the packages and resource settings of st and
// the -e values (installing missing npm and git packages unless offline);
// nothing is reported here.
func (l *launch) resolvePackages(ctx context.Context, st *settings.Settings, trusted bool) *runResources {
	m := &packages.Manager{Cwd: l.cwd, AgentDir: l.agentDir, NpmCommand: st.NpmCommand, Offline: l.env.Offline,
		ProjectTrusted: trusted, Progress: l.stderr}
	r := &runResources{resolved: m.Resolve(ctx, st, packages.ResolveOptions{Builtins: builtinExtensions, InstallMissing: true})}
	if len(l.a.Extensions) > 0 {
		r.once = m.ResolveSources(ctx, l.a.Extensions)
	}
	return r
}

// applyBuiltins records in the run's settings which built-in extensions
// this run enables (the features read builtinDisabled): the resolved
// state, which honours a project's "+builtin:" / "-builtin:" over the
// user's; none with --no-extensions; -e builtin:<name> turns one on.
func (l *launch) applyBuiltins() {
	on := map[string]bool{}
	for _, r := range l.res.resolved.Of(packages.Extensions) {
		if name, ok := strings.CutPrefix(r.Path, packages.BuiltinPrefix); ok {
			on[name] = r.Enabled && !l.a.NoExtensions
		}
	}
	if l.res.once != nil {
		for _, r := range l.res.once.Enabled(packages.Extensions) {
			if name, ok := strings.CutPrefix(r.Path, packages.BuiltinPrefix); ok {
				if _, known := on[name]; !known {
					fmt.Fprintf(l.stderr, "Warning: -e %s: no such built-in extension (%s)\n", r.Path, strings.Join(builtinExtensions, ", "))
					continue
				}
				on[name] = true
			}
		}
	}
	for _, name := range builtinExtensions {
		op := "-"
		if on[name] {
			op = "+"
		}
		l.st.Extensions = append(l.st.Extensions, settings.Resource{Entry: op + packages.BuiltinPrefix + name, Scope: settings.ScopeUser, BaseDir: l.agentDir})
	}
}

// Extensions lists the extensions of this run in load order: the resolved
// ones (none with --no-extensions), then -e. Built-in extensions appear as
// "builtin:<name>".
func (r *runResources) Extensions(noExtensions bool) []packages.Resource {
	var out []packages.Resource
	seen := map[string]bool{}
	add := func(list []packages.Resource) {
		for _, e := range list {
			if k := filepath.Clean(e.Path); !seen[k] {
				seen[k] = true
				out = append(out, e)
			}
		}
	}
	if !noExtensions {
		add(r.resolved.Enabled(packages.Extensions))
	}
	if r.once != nil {
		add(r.once.Enabled(packages.Extensions))
	}
	return out
}

// packageFiles converts the packages' skills or prompt templates for the
// resources loader.
func packageFiles(list []packages.Resource) []resources.PackageFile {
	out := make([]resources.PackageFile, 0, len(list))
	for _, r := range list {
		out = append(out, resources.PackageFile{Path: r.Path, Source: r.Meta.Source, Scope: r.Meta.Scope, BaseDir: r.Meta.BaseDir})
	}
	return out
}
