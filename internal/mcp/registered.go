package mcp

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/relay-agent/relay/internal/hooks"
)

// syncRegistered makes the extension-registered servers (spec §14
// registerMcpServer, announced by mcp_servers_change) part of the
// manager: new ones are added (and connect at once when the manager has
// started), removed ones and ones registered again with a different
// configuration close, and a name mcp.json defines wins over a
// registration. Invalid configurations are reported, naming the extension.
func (m *Manager) syncRegistered(regs []hooks.MCPServer) []error {
	var errs []error
	m.serversMu.Lock()
	configured := map[string]string{}
	for _, s := range m.servers {
		if s.Entry.Scope != ScopeExtension {
			configured[Namespace(s.Entry.Name)] = s.Entry.Name
		}
	}
	current := map[string]*Server{}
	for _, s := range m.servers {
		if s.Entry.Scope == ScopeExtension {
			current[s.Entry.Name] = s
		}
	}
	wanted := map[string]bool{}
	var added, removed []*Server
	m.overridden = nil
	for _, r := range regs {
		if owner, ok := configured[Namespace(r.Name)]; ok {
			m.overridden = append(m.overridden, fmt.Sprintf("%q registered by %s is overridden by %q in mcp.json", r.Name, r.Source, owner))
			continue
		}
		if !ValidServerName(r.Name) {
			errs = append(errs, fmt.Errorf("%s: MCP server name %q: use letters, digits, _ and -", r.Source, r.Name))
			continue
		}
		raw, err := parseJSON(r.Config)
		var cfg *ServerConfig
		if err == nil {
			cfg, err = parseServer(r.Name, raw)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: MCP server %q: %v", r.Source, r.Name, err))
			continue
		}
		wanted[r.Name] = true
		if old, ok := current[r.Name]; ok {
			if bytes.Equal(old.registered, r.Config) {
				continue
			}
			removed = append(removed, old)
		}
		o, _ := raw.(*object)
		s := newServer(m, Entry{Name: r.Name, Config: *cfg, Source: r.Source, Scope: ScopeExtension, raw: o})
		s.registered = append([]byte(nil), r.Config...)
		added = append(added, s)
	}
	for name, s := range current {
		if !wanted[name] {
			removed = append(removed, s)
		}
	}
	keep := m.servers[:0:0]
	for _, s := range m.servers {
		gone := false
		for _, r := range removed {
			gone = gone || r == s
		}
		if !gone {
			keep = append(keep, s)
		}
	}
	m.servers = append(keep, added...)
	started := m.started
	m.serversMu.Unlock()

	for _, s := range removed {
		s.close()
	}
	for _, s := range added {
		if started && s.Entry.Config.IsEnabled() {
			s.connect()
		}
	}
	if len(added) > 0 || len(removed) > 0 {
		m.notifyListener()
	}
	return errs
}

// ServersSectionName is the name of the system prompt section that lists
// the servers whose tools are not declared.
const ServersSectionName = "mcp_servers"

func (m *Manager) setRegisterErrors(errs []error) {
	m.serversMu.Lock()
	m.regErrs = errs
	m.serversMu.Unlock()
}

func (m *Manager) registerErrors() []error {
	m.serversMu.RLock()
	defer m.serversMu.RUnlock()
	return append([]error(nil), m.regErrs...)
}

func (m *Manager) overriddenNotes() []string {
	m.serversMu.RLock()
	defer m.serversMu.RUnlock()
	return append([]string(nil), m.overridden...)
}

func (m *Manager) notifyListener() {
	if m.opts.OnChange != nil {
		m.opts.OnChange()
	}
	m.listenMu.Lock()
	fn := m.listener
	m.listenMu.Unlock()
	if fn != nil {
		fn()
	}
}

// ServersSection is the mcp_servers system prompt section: the enabled
// servers whose tools are not declared to the model (codemode or deferred
// exposure), how their tools are reached, and a one-line summary (the
// configured description, else the server's instructions). The model has
// no other way to learn of them: neither codemode's description nor
// tool_search lists them. "" when there are none.
func (m *Manager) ServersSection() string {
	type listed struct {
		name, reach, summary string
	}
	var ls []listed
	reaches := map[string]bool{}
	for _, s := range m.Servers() {
		c := &s.Entry.Config
		if !c.IsEnabled() {
			continue
		}
		exps := map[Exposure]bool{c.ServerExposure(): true}
		for _, r := range c.ToolExposure {
			exps[r.Exposure] = true
		}
		if !exps[ExposureCodemode] && !exps[ExposureDeferred] {
			continue
		}
		reach := "tool_search"
		if exps[ExposureCodemode] {
			reach = "codemode"
		}
		reaches[reach] = true
		summary := strings.TrimSpace(c.Description)
		if summary == "" {
			summary = strings.TrimSpace(s.Status().Instructions)
		}
		summary, _, _ = strings.Cut(summary, "\n")
		ls = append(ls, listed{Namespace(s.Entry.Name), reach, strings.TrimSpace(summary)})
	}
	if len(ls) == 0 {
		return ""
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].name < ls[j].name })
	intro := "MCP servers whose tools are not declared to you."
	if reaches["codemode"] {
		intro += " Call the tools of `codemode` servers from codemode scripts."
	}
	if reaches["tool_search"] {
		intro += " Load the tools of `tool_search` servers with `tool_search`."
	}
	heads := make([]string, len(ls))
	for i, l := range ls {
		heads[i] = "- " + l.name + " (" + l.reach + ")"
	}
	omitted := func(n int) []string {
		if n == 0 {
			return nil
		}
		s := "s"
		if n == 1 {
			s = ""
		}
		return []string{fmt.Sprintf("- … %d more server%s; find their tools with searchTools()", n, s)}
	}
	size := func(kept int) int {
		parts := append(append([]string{intro}, heads[:kept]...), omitted(len(ls)-kept)...)
		return len(strings.Join(parts, "\n"))
	}
	kept := len(ls)
	for kept > 0 && size(kept) > maxServersSection {
		kept--
	}
	per := 0
	if kept > 0 {
		per = min(maxServerSummary, (maxServersSection-size(kept))/kept-2)
	}
	lines := []string{intro}
	for i := 0; i < kept; i++ {
		line := heads[i]
		if per > 0 && ls[i].summary != "" {
			line += ": " + clipRunes(ls[i].summary, per)
		}
		lines = append(lines, line)
	}
	lines = append(lines, omitted(len(ls)-kept)...)
	return strings.Join(lines, "\n")
}

// Bounds of the mcp_servers section: descriptions shrink to fit; when the
// server lines alone do not fit, the last ones are counted instead.
const (
	maxServersSection = 4096
	maxServerSummary  = 250
)

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return ""
	}
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}
