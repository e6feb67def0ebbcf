package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
)

// ToolHost takes MCP tools into a runtime's tool set. SetMCPTools replaces
// the previous set: every tool is registered (codemode and tool search
// reach non-direct ones by name), direct ones are declared to the model.
type ToolHost interface {
	SetMCPTools(tools []Exposed)
}

// Register wires the manager into a runtime: the tools follow the servers
// as they connect, the first prompt waits up to DirectWait for servers with
// direct tools (which must be in its request), and /mcp shows and changes
// the servers. UserConfig and ProjectConfig are where /mcp enable|disable
// save; ProjectConfig is "" in untrusted projects.
func (m *Manager) Register(s *hooks.Set, cmds *commands.Registry, host ToolHost) (off func(), err error) {
	var mu sync.Mutex
	syncTools := func() {
		mu.Lock()
		defer mu.Unlock()
		host.SetMCPTools(m.AllTools())
	}
	m.listenMu.Lock()
	m.listener = syncTools
	m.listenMu.Unlock()
	// Servers extensions registered before now, and as they change.
	m.setRegisterErrors(m.syncRegistered(s.MCPServers()))
	syncTools()
	offRegistered := s.MCPServersChange.On("builtin:mcp", func(_ context.Context, e *hooks.MCPServersChange) (hooks.None, error) {
		m.setRegisterErrors(m.syncRegistered(e.Servers))
		return hooks.None{}, nil
	})
	// The model learns of servers whose tools it is not declared from the
	// mcp_servers section.
	offPrompt := s.SystemPrompt.On("builtin:mcp", func(context.Context, *hooks.SystemPrompt) (hooks.SystemPromptResult, error) {
		return hooks.SystemPromptResult{Sections: []hooks.PromptSection{{Name: ServersSectionName, Text: m.ServersSection()}}}, nil
	})
	// The wait runs on input, the first point of a prompt, because the
	// request's tool declarations are fixed right after it; steering input
	// (a run is active) does not wait.
	offStart := s.Input.On("builtin:mcp", func(ctx context.Context, in *hooks.Input) (hooks.InputResult, error) {
		if in.StreamingBehavior == "" {
			m.WaitDirect(ctx, DirectWait)
			syncTools()
		}
		return hooks.InputResult{}, nil
	})
	cmd := commands.Command{Name: "mcp", Source: commands.Builtin,
		Description: "MCP servers: status; tools, reconnect, enable, disable, login, logout <server>",
		Run: func(ctx context.Context, args string) (commands.Output, error) {
			text, err := m.slash(ctx, s, args)
			return commands.Output{Text: text}, err
		},
		Complete: m.complete,
	}
	if err := cmds.Register(cmd); err != nil {
		offStart()
		offRegistered()
		offPrompt()
		return nil, err
	}
	return func() {
		offStart()
		offRegistered()
		offPrompt()
		cmds.Unregister("mcp")
		m.listenMu.Lock()
		m.listener = nil
		m.listenMu.Unlock()
	}, nil
}

var slashVerbs = []string{"tools", "reconnect", "enable", "disable", "login", "logout"}

func (m *Manager) complete(prefix string) []commands.Completion {
	verb, rest, hasSpace := strings.Cut(prefix, " ")
	var out []commands.Completion
	if !hasSpace {
		for _, v := range slashVerbs {
			if strings.HasPrefix(v, verb) {
				out = append(out, commands.Completion{Value: v + " "})
			}
		}
		return out
	}
	for _, s := range m.Servers() {
		if strings.HasPrefix(s.Entry.Name, strings.TrimSpace(rest)) {
			out = append(out, commands.Completion{Value: verb + " " + s.Entry.Name, Description: string(s.Status().State)})
		}
	}
	return out
}

// slash runs /mcp [verb server].
func (m *Manager) slash(ctx context.Context, s *hooks.Set, args string) (string, error) {
	f := strings.Fields(args)
	if len(f) == 0 {
		// With a front end that has dialogs (the TUI, an RPC client), /mcp
		// is a manager: pick a server, then what to do with it.
		if ui := s.UI(); ui != nil && len(m.Servers()) > 0 {
			return m.manage(ctx, s, ui)
		}
		return m.statusText(), nil
	}
	if len(f) != 2 || !containsString(slashVerbs, f[0]) {
		return "", fmt.Errorf("usage: /mcp [%s <server>]", strings.Join(slashVerbs, "|"))
	}
	srv := m.Server(f[1])
	if srv == nil {
		var names []string
		for _, x := range m.Servers() {
			names = append(names, x.Entry.Name)
		}
		if len(names) == 0 {
			names = []string{"none"}
		}
		return "", fmt.Errorf("no MCP server named %q (configured: %s)", f[1], strings.Join(names, ", "))
	}
	name := srv.Entry.Name
	switch f[0] {
	case "tools":
		return m.toolsText(srv), nil
	case "reconnect":
		if err := srv.Reconnect(ctx); err != nil {
			return "", err
		}
		return fmt.Sprintf("Reconnected to %q (%d tools).", name, len(srv.Status().Tools)), nil
	case "enable", "disable":
		on := f[0] == "enable"
		srv.SetEnabled(on)
		saved := ""
		if path, override := m.savePath(srv); path != "" {
			if err := UpdateServer(path, name, Patch{Enabled: &on}, override); err != nil {
				return "", fmt.Errorf("%s %q for this session; could not save: %w", f[0]+"d", name, err)
			}
			saved = " Saved to " + path + "."
		}
		return fmt.Sprintf("MCP server %q %sd.%s", name, f[0], saved), nil
	case "login":
		if m.opts.Auth == nil || !srv.Entry.Config.UsesOAuth() {
			return "", fmt.Errorf("MCP server %q does not use OAuth; only HTTP servers without an Authorization header do", name)
		}
		res := *m.opts.resolver
		headers, err := res.pairs(ctx, srv.Entry.Config.Headers, "header")
		if err != nil {
			return "", err
		}
		secret := ""
		if oc := srv.Entry.Config.OAuth; oc != nil && oc.ClientSecret != "" {
			if secret, err = res.value(ctx, oc.ClientSecret, "oauth.clientSecret"); err != nil {
				return "", err
			}
		}
		err = m.opts.Auth.Login(ctx, name, &srv.Entry.Config, LoginOptions{Headers: headers, ClientSecret: secret,
			OpenURL: func(u string) {
				s.Notify("mcp", fmt.Sprintf("Open this URL to sign in to MCP server %q:\n%s", name, u))
				if m.opts.OpenURL != nil {
					m.opts.OpenURL(u)
				}
			}})
		if err != nil {
			return "", fmt.Errorf("sign-in to %q failed: %w", name, err)
		}
		if err := srv.Reconnect(ctx); err != nil {
			return "", fmt.Errorf("signed in to %q, but connecting failed: %w", name, err)
		}
		return fmt.Sprintf("Signed in to MCP server %q.", name), nil
	case "logout":
		if m.opts.Auth == nil || !srv.Entry.Config.UsesOAuth() {
			return "", fmt.Errorf("MCP server %q does not use OAuth", name)
		}
		removed, err := m.opts.Auth.Remove(name, srv.Entry.Config.URL)
		if err != nil {
			return "", err
		}
		if sess := srv.currentSession(); sess != nil {
			srv.dropSession(sess)
		}
		if !removed {
			return fmt.Sprintf("No stored credentials for MCP server %q.", name), nil
		}
		return fmt.Sprintf("Signed out of MCP server %q.", name), nil
	}
	return "", nil
}

// savePath is the file where /mcp saves a change of srv: the project
// override when there is one, else the defining file; in a trusted project
// a user server is overridden in the project file.
func (m *Manager) savePath(srv *Server) (string, bool) {
	e := srv.Entry
	switch {
	case e.Override != "":
		return e.Override, true
	case e.Scope == ScopeUser && m.opts.Config.ProjectConfig != "":
		return m.opts.Config.ProjectConfig, true
	case e.Scope == ScopeUser || e.Scope == ScopeProject:
		return e.Source, false
	}
	return "", false // extension servers: this session only
}

// manage is /mcp as dialogs: the servers, those needing attention first,
// with their state, tool count and exposure; then the actions of the
// chosen one (its tools, reconnect, enable or disable, sign in or out).
// Dismissing a dialog closes the manager.
func (m *Manager) manage(ctx context.Context, s *hooks.Set, ui hooks.Dialogs) (string, error) {
	servers := m.sortedServers()
	labels := make([]string, len(servers))
	for i, srv := range servers {
		st := srv.Status()
		labels[i] = fmt.Sprintf("%s — %s · %d tools · %s", st.Name, stateText(st), len(st.Tools), srv.Entry.Config.ServerExposure())
	}
	choice, ok, err := ui.Select(ctx, "MCP servers", labels)
	if err != nil || !ok {
		return "", err
	}
	var srv *Server
	for i, l := range labels {
		if l == choice {
			srv = servers[i]
		}
	}
	if srv == nil {
		return "", fmt.Errorf("no MCP server %q", choice)
	}
	st := srv.Status()
	type action struct{ label, verb string }
	actions := []action{{"Show tools", "tools"}, {"Reconnect", "reconnect"}}
	if srv.Entry.Config.IsEnabled() {
		actions = append(actions, action{"Disable", "disable"})
	} else {
		actions = append(actions, action{"Enable", "enable"})
	}
	if m.opts.Auth != nil && srv.Entry.Config.UsesOAuth() {
		actions = append(actions, action{"Sign in", "login"}, action{"Sign out", "logout"})
	}
	opts := make([]string, len(actions))
	for i, a := range actions {
		opts[i] = a.label
	}
	title := fmt.Sprintf("%s — %s", st.Name, stateText(st))
	if st.Error != "" {
		first, _, _ := strings.Cut(st.Error, "\n")
		title += ": " + first
	}
	pick, ok, err := ui.Select(ctx, title, opts)
	if err != nil || !ok {
		return "", err
	}
	for _, a := range actions {
		if a.label == pick {
			return m.slash(ctx, s, a.verb+" "+st.Name)
		}
	}
	return "", nil
}

func stateText(st Status) string {
	if st.State == StateNeedsAuth {
		return "needs sign-in"
	}
	return string(st.State)
}

// sortedServers lists the servers that need attention first.
func (m *Manager) sortedServers() []*Server {
	servers := m.Servers()
	rank := func(st State) int {
		switch st {
		case StateFailed, StateNeedsAuth, StateDisconnected:
			return 0
		case StateConnecting:
			return 1
		case StateConnected:
			return 2
		}
		return 3
	}
	sort.SliceStable(servers, func(i, j int) bool { return rank(servers[i].Status().State) < rank(servers[j].Status().State) })
	return servers
}

func (s *Server) currentSession() *sdk.ClientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

func (m *Manager) statusText() string {
	var b strings.Builder
	for _, e := range m.opts.Config.Errors {
		fmt.Fprintf(&b, "error: %v\n", e)
	}
	for _, e := range m.registerErrors() {
		fmt.Fprintf(&b, "error: %v\n", e)
	}
	for _, o := range m.overriddenNotes() {
		fmt.Fprintf(&b, "overridden: %s\n", o)
	}
	if p := m.opts.Config.IgnoredProjectConfig; p != "" {
		fmt.Fprintf(&b, "%s is ignored: the project is not trusted.\n", p)
	}
	if len(m.Servers()) == 0 {
		b.WriteString("No MCP servers configured. Add one with: relay mcp add <server> -- <command> [args...]")
		return strings.TrimRight(b.String(), "\n")
	}
	for _, s := range m.sortedServers() {
		st := s.Status()
		state := string(st.State)
		if st.State == StateNeedsAuth {
			state = "needs sign-in: /mcp login " + st.Name
		}
		src := string(s.Entry.Scope) + " " + s.Entry.Source
		if s.Entry.Override != "" {
			src += ", overridden in " + s.Entry.Override
		}
		fmt.Fprintf(&b, "%s  %s  %d tools  %s  (%s)\n", st.Name, state, len(st.Tools), s.Entry.Config.ServerExposure(), src)
		if st.Error != "" {
			fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(st.Error, "\n", "\n  "))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func (m *Manager) toolsText(srv *Server) string {
	var b strings.Builder
	n := 0
	for _, t := range m.Tools() {
		if t.server != srv {
			continue
		}
		n++
		desc, _, _ := strings.Cut(t.Spec().Description, "\n")
		fmt.Fprintf(&b, "%s  [%s]  %s\n", t.Name(), t.Exposure(), desc)
	}
	for _, name := range srv.Status().Tools {
		if srv.Entry.Config.ToolExposureOf(name) == ExposureHidden {
			n++
			fmt.Fprintf(&b, "%s  [hidden]\n", name)
		}
	}
	if n == 0 {
		return fmt.Sprintf("MCP server %q has no tools (%s).", srv.Entry.Name, srv.Status().State)
	}
	return strings.TrimRight(b.String(), "\n")
}
