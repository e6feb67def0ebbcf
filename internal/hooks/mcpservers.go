package hooks

import (
	"context"
	"encoding/json"
	"sync"
)

// MCPServer is an MCP server an extension registered (spec §14
// registerMcpServer): its name, its configuration in the shape of an
// mcp.json entry, and the extension that registered it. A server of the
// same name in mcp.json takes precedence.
type MCPServer struct {
	Name   string
	Config json.RawMessage
	Source string
}

// MCPServersChange is the registered servers after a registration or an
// unregistration (spec: mcp_servers_change {servers}); the MCP feature
// connects the new ones and closes the removed ones.
type MCPServersChange struct {
	Servers []MCPServer
}

// mcpRegistry holds the registered servers; registrations may come
// before any feature listens, so the list is kept, not only announced.
type mcpRegistry struct {
	mu      sync.Mutex
	seq     uint64
	servers []registeredMCP
}

type registeredMCP struct {
	id uint64
	MCPServer
}

// RegisterMCPServer registers srv, replacing a server of the same name
// registered before, and announces the change on MCPServersChange. The
// returned func unregisters it (a no-op once it was replaced).
func (s *Set) RegisterMCPServer(srv MCPServer) (unregister func()) {
	r := &s.mcp
	r.mu.Lock()
	r.seq++
	id := r.seq
	srv.Config = append(json.RawMessage(nil), srv.Config...)
	replaced := false
	for i := range r.servers {
		if r.servers[i].Name == srv.Name {
			r.servers[i] = registeredMCP{id, srv}
			replaced = true
		}
	}
	if !replaced {
		r.servers = append(r.servers, registeredMCP{id, srv})
	}
	r.mu.Unlock()
	s.announceMCP()
	return func() {
		r.mu.Lock()
		removed := false
		for i := range r.servers {
			if r.servers[i].id == id {
				r.servers = append(r.servers[:i], r.servers[i+1:]...)
				removed = true
				break
			}
		}
		r.mu.Unlock()
		if removed {
			s.announceMCP()
		}
	}
}

// MCPServers returns the registered servers in registration order.
func (s *Set) MCPServers() []MCPServer {
	r := &s.mcp
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]MCPServer, len(r.servers))
	for i, x := range r.servers {
		out[i] = x.MCPServer
	}
	return out
}

func (s *Set) announceMCP() {
	s.MCPServersChange.Notify(context.Background(), &MCPServersChange{Servers: s.MCPServers()})
}
