package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// CommandOptions are what `relay mcp` needs from the composition root.
type CommandOptions struct {
	AgentDir       string
	Cwd            string
	ProjectTrusted bool
	Stdout, Stderr io.Writer
	// OpenURL opens the sign-in page (nil = print it only).
	OpenURL       func(string)
	ClientVersion string
	// ListTimeout bounds `relay mcp list` (default 30 s).
	ListTimeout time.Duration
	// Getenv and Environ: see Options.
	Getenv  func(string) string
	Environ []string
}

const commandUsage = `Usage:
  relay mcp add <server> [options] -- <command> [args...]
  relay mcp add <server> [options] --url <url>
  relay mcp remove <server> [-l]
  relay mcp list [--json]
  relay mcp login <server> [--timeout <seconds>]
  relay mcp logout <server>

Configure and check MCP servers and sign in to OAuth servers without starting a session.
Reads ~/.relay/agent/mcp.json and, in trusted projects, .relay/mcp.json.

Options for add and remove:
  -l, --local             Use .relay/mcp.json in the current project instead of the user file

Options for add:
  --url <url>             Streamable HTTP server URL (instead of a command)
  --env <KEY=VALUE>       Environment variable for a stdio server (repeatable)
  --cwd <dir>             Working directory for a stdio server
  --header <KEY=VALUE>    HTTP header (repeatable)
  --bearer-token-env-var <NAME>
                          Send "Authorization: Bearer ${NAME}"
  --oauth-client-id <id>  Pre-registered OAuth client id
  --oauth-client-secret <secret>
                          OAuth client secret (may be ${NAME} or !command)
  --oauth-callback-port <port>
                          Fixed OAuth callback port
  --oauth-client-name <name>
                          Client name sent when registering with the OAuth server
  --exposure <mode>       codemode (default), deferred, direct, or hidden
  --description <text>    What the server offers, shown in the system prompt

Other options:
  --json                  Print the list as JSON
  --timeout <seconds>     How long login waits for the browser (default: 300)
`

const helpHint = `Use "relay mcp --help" for usage.`

type parsedArgs struct {
	positional []string
	values     map[string]string
	flags      map[string]bool
	lists      map[string][]string
}

// parseCommandArgs reads --name value options; `--` ends them, and so does
// reaching maxPositional positionals (the rest is the server command).
func parseCommandArgs(args []string, known map[string]string, maxPositional int) (*parsedArgs, error) {
	p := &parsedArgs{values: map[string]string{}, flags: map[string]bool{}, lists: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-l" {
			a = "--local"
		}
		if a == "--" || (maxPositional > 0 && len(p.positional) >= maxPositional) {
			if a == "--" {
				i++
			}
			p.positional = append(p.positional, args[i:]...)
			break
		}
		if !strings.HasPrefix(a, "--") {
			p.positional = append(p.positional, a)
			continue
		}
		name, inline, hasInline := strings.Cut(a[2:], "=")
		kind, ok := known[name]
		if !ok {
			return nil, fmt.Errorf("unknown option %s.\n%s", a, helpHint)
		}
		if kind == "flag" {
			p.flags[name] = true
			continue
		}
		v := inline
		if !hasInline {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("%s needs a value", a)
			}
			i++
			v = args[i]
		}
		if kind == "list" {
			p.lists[name] = append(p.lists[name], v)
		} else {
			p.values[name] = v
		}
	}
	return p, nil
}

func parsePairs(option string, pairs []string) ([]KV, error) {
	var out []KV
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--%s expects KEY=VALUE, got %q", option, p)
		}
		out = append(out, KV{k, v})
	}
	return out, nil
}

// Command runs `relay mcp <args>` and returns the exit code.
func Command(ctx context.Context, args []string, o CommandOptions) int {
	out, errw := o.Stdout, o.Stderr
	if out == nil {
		out = io.Discard
	}
	if errw == nil {
		errw = io.Discard
	}
	if len(args) == 0 || args[0] == "help" || containsString(args, "--help") || containsString(args, "-h") {
		fmt.Fprint(out, commandUsage)
		return 0
	}
	userConfig := o.AgentDir + string(os.PathSeparator) + "mcp.json"
	projectConfig := o.Cwd + string(os.PathSeparator) + ".relay" + string(os.PathSeparator) + "mcp.json"
	cmd, rest := args[0], args[1:]
	fail := func(format string, a ...any) int {
		fmt.Fprintf(errw, "Error: "+format+"\n", a...)
		return 1
	}
	switch cmd {
	case "add":
		return commandAdd(rest, userConfig, projectConfig, o, out, fail)
	case "remove":
		p, err := parseCommandArgs(rest, map[string]string{"local": "flag"}, 0)
		if err != nil {
			return fail("%v", err)
		}
		if len(p.positional) != 1 {
			return fail("usage: relay mcp remove <server> [-l]\n%s", helpHint)
		}
		name := p.positional[0]
		path, scope := userConfig, "user"
		if p.flags["local"] {
			path, scope = projectConfig, "project"
		}
		removed, err := RemoveServer(path, name)
		if err != nil {
			return fail("could not update %s: %v", path, err)
		}
		if !removed {
			other := Load(LoadOptions{UserConfig: userConfig, ProjectConfig: projectConfig, ProjectTrusted: true})
			hint := ""
			if e, ok := other.Server(name); ok && e.Source != path {
				flag := "; omit --local"
				if e.Scope == ScopeProject {
					flag = "; use --local"
				}
				hint = fmt.Sprintf(" It is defined in %s%s.", e.Source, flag)
			}
			return fail("no %s MCP server named %q in %s.%s", scope, name, path, hint)
		}
		fmt.Fprintf(out, "Removed %s MCP server %q from %s.\n", scope, name, path)
		return 0
	}
	loaded := Load(LoadOptions{UserConfig: userConfig, ProjectConfig: projectConfig, ProjectTrusted: o.ProjectTrusted})
	untrusted := ""
	if loaded.IgnoredProjectConfig != "" {
		untrusted = fmt.Sprintf("%s is ignored because the project is not trusted. Start relay in the project to trust it.", loaded.IgnoredProjectConfig)
	}
	creds := NewCredentialStore(o.AgentDir + string(os.PathSeparator) + "mcp-auth.json")
	switch cmd {
	case "list":
		p, err := parseCommandArgs(rest, map[string]string{"json": "flag"}, 0)
		if err != nil {
			return fail("%v", err)
		}
		if len(p.positional) > 0 {
			return fail("usage: relay mcp list [--json]\n%s", helpHint)
		}
		return commandList(ctx, loaded, p.flags["json"], untrusted, o, creds, out)
	case "login", "logout":
		known := map[string]string{}
		if cmd == "login" {
			known["timeout"] = "value"
		}
		p, err := parseCommandArgs(rest, known, 0)
		if err != nil {
			return fail("%v", err)
		}
		if len(p.positional) != 1 {
			return fail("usage: relay mcp %s <server>\n%s", cmd, helpHint)
		}
		name := p.positional[0]
		e, ok := loaded.Server(name)
		if !ok {
			var names []string
			for _, s := range loaded.Servers {
				names = append(names, s.Name)
			}
			msg := fmt.Sprintf("no MCP server named %q.", name)
			if untrusted != "" {
				msg += " " + untrusted
			}
			if len(names) == 0 {
				names = []string{"none"}
			}
			return fail("%s Configured: %s.", msg, strings.Join(names, ", "))
		}
		if !e.Config.UsesOAuth() {
			return fail("MCP server %q does not use OAuth. Only HTTP servers without an Authorization header do.", name)
		}
		if cmd == "logout" {
			removed, err := creds.Remove(name, e.Config.URL)
			if err != nil {
				return fail("%v", err)
			}
			if removed {
				fmt.Fprintf(out, "Signed out of MCP server %q.\n", name)
			} else {
				fmt.Fprintf(out, "No stored credentials for MCP server %q.\n", name)
			}
			return 0
		}
		timeout := 300.0
		if v, ok := p.values["timeout"]; ok {
			timeout, err = strconv.ParseFloat(v, 64)
			if err != nil || timeout <= 0 {
				return fail("--timeout must be a positive number of seconds")
			}
		}
		res := defaultResolver()
		if o.Getenv != nil {
			res.getenv = o.Getenv
		}
		headers, err := res.pairs(ctx, e.Config.Headers, "header")
		if err != nil {
			return fail("MCP server %q: %v", name, err)
		}
		secret := ""
		if e.Config.OAuth != nil && e.Config.OAuth.ClientSecret != "" {
			if secret, err = res.value(ctx, e.Config.OAuth.ClientSecret, "oauth.clientSecret"); err != nil {
				return fail("MCP server %q: %v", name, err)
			}
		}
		err = creds.Login(ctx, name, &e.Config, LoginOptions{Timeout: time.Duration(timeout * float64(time.Second)),
			Headers: headers, ClientSecret: secret, OpenURL: func(u string) {
				fmt.Fprintf(out, "Open this URL to sign in to %q:\n%s\n", name, u)
				if o.OpenURL != nil {
					o.OpenURL(u)
				}
			}})
		if err != nil {
			return fail("sign-in to %q failed: %v", name, err)
		}
		fmt.Fprintf(out, "Signed in to MCP server %q.\n", name)
		return 0
	}
	return fail("unknown mcp command %q.\n%s", cmd, helpHint)
}

func commandAdd(rest []string, userConfig, projectConfig string, o CommandOptions, out io.Writer, fail func(string, ...any) int) int {
	known := map[string]string{"local": "flag", "url": "value", "env": "list", "cwd": "value", "header": "list",
		"bearer-token-env-var": "value", "oauth-client-id": "value", "oauth-client-secret": "value",
		"oauth-callback-port": "value", "oauth-client-name": "value", "exposure": "value", "description": "value"}
	p, err := parseCommandArgs(rest, known, 2)
	if err != nil {
		return fail("%v", err)
	}
	usage := "usage: relay mcp add <server> [options] (--url <url> | -- <command> [args...])\n" + helpHint
	if len(p.positional) == 0 {
		return fail("%s", usage)
	}
	name, command := p.positional[0], p.positional[1:]
	url, hasURL := p.values["url"]
	if hasURL == (len(command) > 0) {
		return fail("%s", usage)
	}
	httpOnly := []string{"header", "bearer-token-env-var", "oauth-client-id", "oauth-client-secret", "oauth-callback-port", "oauth-client-name"}
	stdioOnly := []string{"env", "cwd"}
	misplaced, where := httpOnly, "HTTP servers (--url)"
	if hasURL {
		misplaced, where = stdioOnly, "stdio servers"
	}
	for _, opt := range misplaced {
		if _, ok := p.values[opt]; ok || len(p.lists[opt]) > 0 {
			return fail("--%s only applies to %s", opt, where)
		}
	}
	c := &ServerConfig{Description: p.values["description"]}
	if e, ok := p.values["exposure"]; ok {
		exp, ok := parseExposure(e)
		if !ok {
			return fail(`--exposure must be codemode, deferred, direct or hidden`)
		}
		c.Exposure = exp
	}
	if hasURL {
		c.URL = url
		if c.Headers, err = parsePairs("header", p.lists["header"]); err != nil {
			return fail("%v", err)
		}
		if v, ok := p.values["bearer-token-env-var"]; ok {
			c.Headers = append(c.Headers, KV{"Authorization", "Bearer ${" + v + "}"})
		}
		oc := &OAuthConfig{ClientID: p.values["oauth-client-id"], ClientSecret: p.values["oauth-client-secret"], ClientName: p.values["oauth-client-name"]}
		if v, ok := p.values["oauth-callback-port"]; ok {
			if oc.CallbackPort, err = strconv.Atoi(v); err != nil {
				return fail("--oauth-callback-port must be a port number")
			}
		}
		if *oc != (OAuthConfig{}) {
			c.OAuth = oc
		}
	} else {
		c.Command, c.Args = command[0], command[1:]
		if c.Env, err = parsePairs("env", p.lists["env"]); err != nil {
			return fail("%v", err)
		}
		c.Cwd = p.values["cwd"]
	}
	path, scope := userConfig, "user"
	if p.flags["local"] {
		path, scope = projectConfig, "project"
	}
	replaced, err := AddServer(path, name, c)
	if err != nil {
		return fail("could not update %s: %v", path, err)
	}
	verb := "Added"
	if replaced {
		verb = "Replaced"
	}
	fmt.Fprintf(out, "%s %s MCP server %q in %s.\n", verb, scope, name, path)
	if p.flags["local"] && !o.ProjectTrusted {
		fmt.Fprintf(out, "The project is not trusted, so %s is ignored until you start relay in the project and trust it.\n", path)
	}
	hint := "Check it with: relay mcp list"
	if c.UsesOAuth() {
		hint += ". If it requires sign-in: relay mcp login " + name
	}
	fmt.Fprintln(out, hint)
	return 0
}

// ListReport is one server in `relay mcp list --json`.
type ListReport struct {
	Name         string            `json:"name"`
	Scope        string            `json:"scope"`
	Source       string            `json:"source"`
	Override     string            `json:"override,omitempty"`
	Enabled      bool              `json:"enabled"`
	Exposure     string            `json:"exposure"`
	Transport    string            `json:"transport"`
	State        string            `json:"state"`
	Tools        []string          `json:"tools"`
	ToolExposure map[string]string `json:"toolExposure,omitempty"`
	Resources    *int              `json:"resources,omitempty"`
	Templates    *int              `json:"resourceTemplates,omitempty"`
	Error        string            `json:"error,omitempty"`
}

func describeTransport(c *ServerConfig) string {
	if c.IsHTTP() {
		return c.URL
	}
	return strings.Join(append([]string{c.Command}, c.Args...), " ")
}

func commandList(ctx context.Context, loaded *Loaded, asJSON bool, untrusted string, o CommandOptions, creds *CredentialStore, out io.Writer) int {
	timeout := o.ListTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	m := NewManager(Options{Cwd: o.Cwd, Config: loaded, Auth: creds, ClientVersion: o.ClientVersion, Getenv: o.Getenv, Environ: o.Environ,
		Log: NewServerLog(o.AgentDir + string(os.PathSeparator) + "mcp.log")})
	defer m.Close()
	m.Start()
	m.WaitAll(ctx, timeout)
	code := 0
	if len(loaded.Errors) > 0 {
		code = 1
	}
	var reports []ListReport
	for _, s := range m.Servers() {
		st := s.Status()
		e := s.Entry
		r := ListReport{Name: e.Name, Scope: string(e.Scope), Source: e.Source, Override: e.Override, Enabled: e.Config.IsEnabled(),
			Exposure: string(e.Config.ServerExposure()), Transport: describeTransport(&e.Config), State: string(st.State),
			Tools: st.Tools, Error: st.Error}
		if r.Tools == nil {
			r.Tools = []string{}
		}
		for _, t := range st.Tools {
			if x := e.Config.ToolExposureOf(t); x != e.Config.ServerExposure() {
				if r.ToolExposure == nil {
					r.ToolExposure = map[string]string{}
				}
				r.ToolExposure[t] = string(x)
			}
		}
		if st.HasResources {
			n, t := st.Resources, st.Templates
			r.Resources, r.Templates = &n, &t
		}
		if st.State == StateConnecting {
			r.Error = fmt.Sprintf("no answer within %s", timeout)
		}
		if r.Enabled && st.State != StateConnected {
			code = 1
		}
		reports = append(reports, r)
	}
	if asJSON {
		errs := []string{}
		for _, e := range loaded.Errors {
			errs = append(errs, e.Error())
		}
		doc := map[string]any{"servers": reports, "errors": errs}
		if reports == nil {
			doc["servers"] = []ListReport{}
		}
		if untrusted != "" {
			doc["note"] = untrusted
		}
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(doc)
		return code
	}
	for _, e := range loaded.Errors {
		fmt.Fprintf(out, "error: %v\n", e)
	}
	if untrusted != "" {
		fmt.Fprintln(out, untrusted)
	}
	if len(reports) == 0 {
		fmt.Fprintln(out, "No MCP servers configured. Add one with: relay mcp add <server> -- <command> [args...]")
		return code
	}
	for _, r := range reports {
		state := r.State
		if r.State == string(StateNeedsAuth) {
			state = "needs sign-in (relay mcp login " + r.Name + ")"
		}
		fmt.Fprintf(out, "%s  %s  [%s, %s]  %s\n", r.Name, state, r.Scope, r.Exposure, r.Transport)
		fmt.Fprintf(out, "  source: %s\n", r.Source)
		if r.Override != "" {
			fmt.Fprintf(out, "  overridden by: %s\n", r.Override)
		}
		if r.Error != "" {
			fmt.Fprintf(out, "  error: %s\n", strings.ReplaceAll(r.Error, "\n", "\n    "))
		}
		if len(r.Tools) > 0 {
			var names []string
			for _, t := range r.Tools {
				if x, ok := r.ToolExposure[t]; ok {
					t += " (" + x + ")"
				}
				names = append(names, t)
			}
			sort.Strings(names)
			fmt.Fprintf(out, "  tools (%d): %s\n", len(names), strings.Join(names, ", "))
		}
		if r.Resources != nil {
			fmt.Fprintf(out, "  resources: %d, templates: %d\n", *r.Resources, *r.Templates)
		}
	}
	return code
}
