package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/packages"
	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tui"
)

const configUsage = "relay config [-l] [--approve|--no-approve]"

const configHelp = `Open the resource configuration to enable or disable the extensions,
skills, prompt templates and themes of packages, settings entries and
conventional directories, and relay's built-in extensions.
Without -l it starts with the user settings (~/.relay/agent/settings.json);
Tab switches to the project's .relay/settings.json when it is trusted.

Options:
  -l, --local       Start with the project overrides (.relay/settings.json)
  -a, --approve     Trust project-local files for this command
  -na, --no-approve Ignore project-local files for this command
`

// runConfigCommand is relay config.
func runConfigCommand(ctx context.Context, args []string, env config.Env, stdin io.Reader, stdout, stderr io.Writer) int {
	local := false
	var approve *bool
	for _, a := range args {
		switch a {
		case "-h", "--help":
			fmt.Fprintf(stdout, "Usage:\n  %s\n\n%s", configUsage, configHelp)
			return 0
		case "-l", "--local":
			local = true
		case "-a", "--approve":
			t := true
			approve = &t
		case "-na", "--no-approve":
			f := false
			approve = &f
		default:
			fmt.Fprintf(stderr, "Error: unknown option %s for \"config\".\nUsage: %s\n", a, configUsage)
			return 1
		}
	}
	agentDir, err := env.AgentDir()
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "Error: working directory: %v\n", err)
		return 1
	}
	trusted := commandTrust(cwd, agentDir, approve)
	if local && !trusted {
		fmt.Fprintln(stderr, "Error: project is not trusted. Use --approve to modify local resource config.")
		return 1
	}
	scopes := configScopes(ctx, cwd, agentDir, trusted, env.Offline, stderr)
	if !isTTY(stdin) || !isTTY(stdout) {
		// No terminal: print what the selector would show.
		for _, sc := range scopes {
			printConfigScope(stdout, sc)
		}
		return 0
	}
	start := 0
	if local {
		start = 1
	}
	if err := tui.RunConfig(ctx, stdin, stdout, scopes, start); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	return 0
}

// configScopes resolves the user view and, for a trusted project, the
// project view of every resource.
func configScopes(ctx context.Context, cwd, agentDir string, trusted, offline bool, stderr io.Writer) []tui.ConfigScope {
	var scopes []tui.ConfigScope
	userEnabled := map[string]bool{} // kind + path -> enabled, in the user view
	for _, project := range []bool{false, true} {
		if project && !trusted {
			break
		}
		st, diags := settings.Load(settings.LoadOptions{AgentDir: agentDir, Cwd: cwd, ProjectTrusted: project})
		if !project {
			for _, d := range diags {
				fmt.Fprintln(stderr, settingsDiagLine(d))
			}
		}
		m := &packages.Manager{Cwd: cwd, AgentDir: agentDir, NpmCommand: st.NpmCommand, Offline: offline, ProjectTrusted: project}
		res := m.Resolve(ctx, st, packages.ResolveOptions{Builtins: builtinExtensions})
		if !project {
			for _, d := range res.Diagnostics {
				fmt.Fprintln(stderr, "Warning:", d)
			}
		}
		sc := tui.ConfigScope{Title: "Global Resources", File: config.Agent{Dir: agentDir}.Settings()}
		want := packages.ScopeUser
		if project {
			sc.Title, sc.File, want = "Project Local Resources", config.Project{Cwd: cwd}.Settings(), packages.ScopeProject
		}
		var rows []configRow
		for _, k := range packages.Kinds {
			for _, r := range res.Of(k) {
				rows = append(rows, configRow{r: r, k: k})
			}
		}
		sortConfigRows(rows)
		byPath := map[string]packages.Resource{}
		for _, row := range rows {
			r, k := row.r, row.k
			key := k.String() + "\x00" + r.Path
			byPath[key] = r
			it := tui.ConfigItem{Group: packages.GroupLabel(r.Meta, agentDir), Kind: k.String(),
				Name: packages.DisplayName(r, k), Path: r.Path, Enabled: r.Enabled, Editable: r.Meta.Scope == want}
			if !project {
				userEnabled[key] = r.Enabled
			} else {
				_, it.Inherited = userEnabled[key]
				it.Editable = true
				if it.Override, _ = m.ProjectOverride(r, k, it.Inherited); it.Override == "" {
					it.Override = packages.OverrideInherit
				}
			}
			sc.Items = append(sc.Items, it)
		}
		sc.Toggle = func(it tui.ConfigItem, enabled bool) error {
			r := byPath[it.Kind+"\x00"+it.Path]
			for _, k := range packages.Kinds {
				if k.String() == it.Kind {
					return m.SetEnabled(r, k, enabled)
				}
			}
			return fmt.Errorf("unknown resource kind %s", it.Kind)
		}
		if project {
			sc.Cycle = func(it tui.ConfigItem) (tui.ConfigItem, error) {
				key := it.Kind + "\x00" + it.Path
				r := byPath[key]
				k, ok := kindNamed(it.Kind)
				if !ok {
					return it, fmt.Errorf("unknown resource kind %s", it.Kind)
				}
				// What the project inherits: the user view's state, or on
				// for the project's own resources.
				inheritedOn, inherited := userEnabled[key]
				if !inherited {
					inheritedOn = true
				}
				next := packages.NextOverride(it.Override, inheritedOn)
				if err := m.SetProjectOverride(r, k, next, inherited); err != nil {
					return it, err
				}
				it.Override = next
				it.Enabled = next == packages.OverrideLoad || next == packages.OverrideInherit && inheritedOn
				return it, nil
			}
		}
		scopes = append(scopes, sc)
	}
	return scopes
}

func printConfigScope(w io.Writer, sc tui.ConfigScope) {
	fmt.Fprintf(w, "%s (%s)\n", sc.Title, sc.File)
	group, kind := "", ""
	for _, it := range sc.Items {
		if it.Group != group {
			group, kind = it.Group, ""
			fmt.Fprintf(w, "  %s\n", it.Group)
		}
		if it.Kind != kind {
			kind = it.Kind
			fmt.Fprintf(w, "    %s\n", it.Kind)
		}
		box := "[ ]"
		if it.Enabled {
			box = "[x]"
		}
		switch {
		case sc.Cycle != nil && it.Override == packages.OverrideLoad:
			box = "[+]"
		case sc.Cycle != nil && it.Override == packages.OverrideUnload:
			box = "[-]"
		}
		fmt.Fprintf(w, "      %s %s\n", box, it.Name)
	}
	if len(sc.Items) == 0 {
		fmt.Fprintln(w, "  No resources found")
	}
}

// configRow is one resource with its kind, for sorting.
type configRow struct {
	r packages.Resource
	k packages.Kind
}

// sortConfigRows orders the rows as the original lists them: package
// groups first, then the others; user before project; then by source;
// kinds in settings order and names alphabetically within a group.
func sortConfigRows(rows []configRow) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if pa, pb := a.r.Meta.Origin == packages.OriginPackage, b.r.Meta.Origin == packages.OriginPackage; pa != pb {
			return pa
		}
		if a.r.Meta.Scope != b.r.Meta.Scope {
			return a.r.Meta.Scope == packages.ScopeUser
		}
		if a.r.Meta.Source != b.r.Meta.Source {
			return a.r.Meta.Source < b.r.Meta.Source
		}
		if a.r.Meta.BaseDir != b.r.Meta.BaseDir {
			return a.r.Meta.BaseDir < b.r.Meta.BaseDir
		}
		if a.k != b.k {
			return a.k < b.k
		}
		return packages.DisplayName(a.r, a.k) < packages.DisplayName(b.r, b.k)
	})
}

func kindNamed(name string) (packages.Kind, bool) {
	for _, k := range packages.Kinds {
		if k.String() == name {
			return k, true
		}
	}
	return 0, false
}
