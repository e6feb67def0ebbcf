package mcp

import (
	"context"
	"strings"
	"time"
)

// This file is what codemode and tool_search build on: the servers as
// namespaces, name lookup in every spelling scripts use, and waiting for
// the servers a script names. Tools() gives each tool's name, description,
// schema (Spec), exposure and a Call that returns the whole result.

// NamespaceInfo describes one server for describeNamespace() and tool
// search ranking.
type NamespaceInfo struct {
	Server    string
	Namespace string // mcp__<server> with - as _
	// Description is the configured description, else the first line of
	// the server's instructions once it connected.
	Description  string
	Instructions string
	Exposure     Exposure
	State        State
	Tools        []string // model-facing tool names, hidden ones left out
}

// Namespaces lists the enabled servers that are not hidden.
func (m *Manager) Namespaces() []NamespaceInfo {
	byServer := map[*Server][]string{}
	for _, t := range m.Tools() {
		byServer[t.server] = append(byServer[t.server], t.name)
	}
	var out []NamespaceInfo
	for _, s := range m.Servers() {
		c := &s.Entry.Config
		if !c.IsEnabled() || c.ServerExposure() == ExposureHidden && len(byServer[s]) == 0 {
			continue
		}
		st := s.Status()
		desc := strings.TrimSpace(c.Description)
		if desc == "" {
			desc, _, _ = strings.Cut(st.Instructions, "\n")
			desc = strings.TrimSpace(desc)
		}
		out = append(out, NamespaceInfo{Server: s.Entry.Name, Namespace: Namespace(s.Entry.Name), Description: desc,
			Instructions: st.Instructions, Exposure: c.ServerExposure(), State: st.State, Tools: byServer[s]})
	}
	return out
}

// Lookup finds a server by any spelling scripts use: "mcp__dev-tools",
// "mcp__dev_tools", "dev-tools" or "dev_tools".
func (m *Manager) Lookup(name string) *Server {
	name = strings.TrimPrefix(name, "mcp__")
	want := Namespace(name)
	for _, s := range m.Servers() {
		if Namespace(s.Entry.Name) == want {
			return s
		}
	}
	return nil
}

// Wait starts the server if it has not started and waits, at most max, for
// its first connection attempt to end. It reports whether it is connected.
func (s *Server) Wait(ctx context.Context, max time.Duration) bool {
	if !s.Entry.Config.IsEnabled() {
		return false
	}
	s.connect()
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-s.tried:
	case <-t.C:
	case <-ctx.Done():
	}
	return s.Status().State == StateConnected
}
