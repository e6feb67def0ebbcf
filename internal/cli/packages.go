package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/packages"
	"github.com/relay-agent/relay/internal/settings"
)

// Package commands (cli.md "Package commands"): relay install, remove
// (uninstall), update and list.

var packageUsage = map[string]string{
	"install": "relay install <source> [-l] [--approve|--no-approve]",
	"remove":  "relay remove <source> [-l] [--approve|--no-approve]",
	"update":  "relay update [source] [--extensions|--extension <source>|--models] [--approve|--no-approve]",
	"list":    "relay list [--approve|--no-approve]",
}

var packageHelp = map[string]string{
	"install": `Install a package and add it to settings.

Options:
  -l, --local       Install project-locally (.relay/settings.json)
  -a, --approve     Trust project-local files for this command
  -na, --no-approve Ignore project-local files for this command

Examples:
  relay install npm:@foo/bar
  relay install npm:@foo/bar@1.2.3
  relay install git:github.com/user/repo@v1
  relay install https://github.com/user/repo
  relay install ssh://git@github.com/user/repo
  relay install ./local/path
`,
	"remove": `Remove a package and its source from settings.
Alias: relay uninstall <source> [-l]

Options:
  -l, --local       Remove from project settings (.relay/settings.json)
  -a, --approve     Trust project-local files for this command
  -na, --no-approve Ignore project-local files for this command

Examples:
  relay remove npm:@foo/bar
  relay uninstall npm:@foo/bar
`,
	"update": `Update installed packages. Without a target, every configured package
is updated; versioned npm sources and git refs stay pinned. relay update
never updates relay itself.

Options:
  --extensions            Update installed packages (the default)
  --extension <source>    Update one package only
  --models                Refresh model catalogs
  -a, --approve           Trust project-local files for this command
  -na, --no-approve       Ignore project-local files for this command
`,
	"list": `List installed packages from user and project settings.

Options:
  -a, --approve      Trust project-local files for this command
  -na, --no-approve  Ignore project-local files for this command
`,
}

type packageCmd struct {
	command, source string
	local, help     bool
	approve         *bool
	models          bool
}

func parsePackageCommand(args []string) (packageCmd, error) {
	c := packageCmd{command: args[0]}
	if c.command == "uninstall" {
		c.command = "remove"
	}
	usage := "Usage: " + packageUsage[c.command]
	extension := ""
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-h" || a == "--help":
			c.help = true
		case (a == "-l" || a == "--local") && (c.command == "install" || c.command == "remove"):
			c.local = true
		case a == "-a" || a == "--approve":
			t := true
			c.approve = &t
		case a == "-na" || a == "--no-approve":
			f := false
			c.approve = &f
		case a == "--extensions" && c.command == "update":
		case a == "--models" && c.command == "update":
			c.models = true
		case a == "--extension" && c.command == "update":
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
				return c, fmt.Errorf("missing value for --extension.\n%s", usage)
			}
			i++
			extension = args[i]
		case strings.HasPrefix(a, "-"):
			return c, fmt.Errorf("unknown option %s for %q.\n%s", a, c.command, usage)
		case c.source == "" && c.command != "list":
			c.source = a
		default:
			return c, fmt.Errorf("unexpected argument %s.\n%s", a, usage)
		}
	}
	if extension != "" {
		if c.source != "" {
			return c, fmt.Errorf("--extension cannot be combined with a positional source.\n%s", usage)
		}
		c.source = extension
	}
	if c.models && c.source != "" {
		return c, fmt.Errorf("--models cannot be combined with a package source.\n%s", usage)
	}
	if !c.help && c.source == "" && (c.command == "install" || c.command == "remove") {
		return c, fmt.Errorf("missing %s source.\n%s", c.command, usage)
	}
	return c, nil
}

// commandTrust decides project trust for a command without a session:
// --approve / --no-approve, else the saved decision, else
// defaultProjectTrust "always" (commands never prompt).
func commandTrust(cwd, agentDir string, flag *bool) bool {
	userSettings, _ := settings.Load(settings.LoadOptions{AgentDir: agentDir})
	return settings.DecideTrust(settings.TrustInput{Cwd: cwd, Flag: flag, Store: settings.NewTrustStore(agentDir),
		Default: userSettings.DefaultProjectTrust}).Trusted
}

// runPackageCommand is relay install|remove|uninstall|update|list.
func runPackageCommand(ctx context.Context, args []string, env config.Env, stdout, stderr io.Writer) int {
	c, err := parsePackageCommand(args)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	if c.help {
		fmt.Fprintf(stdout, "Usage:\n  %s\n\n%s", packageUsage[c.command], packageHelp[c.command])
		return 0
	}
	if c.models {
		return runUpdateModels(ctx, env, catalogBaseURL, nil, stdout, stderr)
	}
	if c.command == "update" && (c.source == "self" || c.source == "relay") {
		fmt.Fprintln(stderr, "Error: relay update never updates relay itself; rebuild or reinstall relay to update it.")
		return 1
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
	trusted := commandTrust(cwd, agentDir, c.approve)
	if c.local && !trusted {
		fmt.Fprintln(stderr, "Error: project is not trusted. Use --approve to modify local package config.")
		return 1
	}
	st, diags := settings.Load(settings.LoadOptions{AgentDir: agentDir, Cwd: cwd, ProjectTrusted: trusted})
	for _, d := range diags {
		fmt.Fprintln(stderr, settingsDiagLine(d))
	}
	m := &packages.Manager{Cwd: cwd, AgentDir: agentDir, NpmCommand: st.NpmCommand, Offline: env.Offline,
		ProjectTrusted: trusted, Progress: stdout}
	switch c.command {
	case "install":
		// An explicit install is a request the person makes: it goes out
		// even offline.
		m.Offline = false
		if err := m.Install(ctx, c.source, c.local); err != nil {
			fmt.Fprintf(stderr, "Error: install %s: %v\n", c.source, err)
			return 1
		}
		fmt.Fprintf(stdout, "Installed %s\n", c.source)
	case "remove":
		removed, err := m.Remove(ctx, c.source, c.local)
		if err != nil {
			fmt.Fprintf(stderr, "Error: remove %s: %v\n", c.source, err)
			return 1
		}
		if !removed {
			fmt.Fprintf(stderr, "Error: no matching package found for %s\n", c.source)
			return 1
		}
		fmt.Fprintf(stdout, "Removed %s\n", c.source)
	case "list":
		formatPackageList(stdout, m.List(st))
	case "update":
		m.Offline = false
		if err := m.Update(ctx, st, c.source); err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			return 1
		}
		if c.source != "" {
			fmt.Fprintf(stdout, "Updated %s\n", c.source)
		} else {
			fmt.Fprintln(stdout, "Updated packages")
		}
	}
	return 0
}

// formatPackageList prints relay list.
func formatPackageList(w io.Writer, list []packages.Configured) {
	if len(list) == 0 {
		fmt.Fprintln(w, "No packages installed.")
		return
	}
	section := ""
	for _, p := range list {
		title := "User packages:"
		if p.Scope == packages.ScopeProject {
			title = "Project packages:"
		}
		if title != section {
			if section != "" {
				fmt.Fprintln(w)
			}
			fmt.Fprintln(w, title)
			section = title
		}
		display := p.Source
		if p.Filtered {
			display += " (filtered)"
		}
		fmt.Fprintf(w, "  %s\n", display)
		if p.Installed != "" {
			fmt.Fprintf(w, "    %s\n", p.Installed)
		} else {
			fmt.Fprintln(w, "    (not installed)")
		}
	}
}
