package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
)

func (h *fakeHost) names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.tools {
		out = append(out, e.Tool.Spec().Name)
	}
	return out
}

// waitNames waits until the host's tools satisfy ok (servers connect in
// the background); the host is updated on every state change.
func waitNames(t *testing.T, m *Manager, h *fakeHost, ok func([]string) bool) []string {
	t.Helper()
	for i := 0; i < 2; i++ {
		m.WaitAll(context.Background(), DirectWait)
		if n := h.names(); ok(n) {
			return n
		}
		for _, s := range m.Servers() {
			if s.Entry.Config.IsEnabled() {
				_, _ = s.session(context.Background())
			}
		}
	}
	n := h.names()
	if !ok(n) {
		t.Fatalf("tools %v", n)
	}
	return n
}

func has(names []string, prefix string) bool {
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// Extensions register servers on the seam (registerMcpServer) before the
// MCP feature starts and while it runs; mcp.json wins a name; invalid
// configurations are reported naming the extension; unregistering closes
// the server and withdraws its tools.
func TestRegisteredServers(t *testing.T) {
	cfg := helperConfig(t)
	raw := func(description string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"command": cfg.Command, "args": cfg.Args,
			"env": map[string]string{"RELAY_MCP_TEST_SERVER": "stdio"}, "description": description})
		return b
	}
	set, cmds, host := hooks.New(), commands.New(), &fakeHost{}
	var changes int
	set.MCPServersChange.On("test", func(context.Context, *hooks.MCPServersChange) (hooks.None, error) {
		changes++
		return hooks.None{}, nil
	})
	early := set.RegisterMCPServer(hooks.MCPServer{Name: "early", Config: raw("Early bird tools"), Source: "/ext/early.js"})
	set.RegisterMCPServer(hooks.MCPServer{Name: "h", Config: raw("shadowed"), Source: "/ext/shadow.js"})
	set.RegisterMCPServer(hooks.MCPServer{Name: "bad", Config: json.RawMessage(`{"url": "ftp://x"}`), Source: "/ext/bad.js"})
	m := newTestManager(t, Entry{Name: "h", Config: cfg})
	off, err := m.Register(set, cmds, host)
	if err != nil {
		t.Fatal(err)
	}
	defer off()
	m.Start()
	waitNames(t, m, host, func(n []string) bool { return has(n, "mcp__early__") && has(n, "mcp__h__") })
	out, _, err := cmds.Run(context.Background(), "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/ext/bad.js: MCP server \"bad\"", `"h" registered by /ext/shadow.js is overridden by "h" in mcp.json`, "early  connected", "(extension /ext/early.js)"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("/mcp lacks %q:\n%s", want, out.Text)
		}
	}
	// The model is told of both servers: their tools are codemode tools.
	_, secs := set.PromptAdditions(context.Background(), "")
	if len(secs) != 1 || secs[0].Name != ServersSectionName || !strings.Contains(secs[0].Text, "- mcp__early (codemode): Early bird tools") ||
		!strings.Contains(secs[0].Text, "- mcp__h (codemode): Test helper server.") || strings.Contains(secs[0].Text, "Second line") {
		t.Errorf("sections %+v", secs)
	}
	// Registered while running: connects at once.
	late := set.RegisterMCPServer(hooks.MCPServer{Name: "late", Config: raw(""), Source: "/ext/late.js"})
	waitNames(t, m, host, func(n []string) bool { return has(n, "mcp__late__") })
	early()
	late()
	n := waitNames(t, m, host, func(n []string) bool { return !has(n, "mcp__late__") && !has(n, "mcp__early__") })
	if !has(n, "mcp__h__") {
		t.Errorf("the configured server's tools went too: %v", n)
	}
	if m.Server("late") != nil || m.Server("early") != nil {
		t.Error("unregistered servers are still listed")
	}
	if changes != 6 {
		t.Errorf("%d mcp_servers_change events, want 6", changes)
	}
}

// The section lists only servers whose tools are not declared, and stays
// within its bound however many there are.
func TestServersSectionBounds(t *testing.T) {
	var entries []Entry
	for i := 0; i < 300; i++ {
		entries = append(entries, Entry{Name: "server" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("0", i/26),
			Config: ServerConfig{Command: "x", Description: strings.Repeat("word ", 80)}})
	}
	entries = append(entries, Entry{Name: "direct", Config: ServerConfig{Command: "x", Exposure: ExposureDirect}})
	m := NewManager(Options{Config: &Loaded{Servers: entries}})
	defer m.Close()
	s := m.ServersSection()
	if len(s) > maxServersSection || !strings.Contains(s, "more servers; find their tools with searchTools()") || strings.Contains(s, "mcp__direct") {
		t.Errorf("section of %d chars:\n%s", len(s), s)
	}
	m2 := NewManager(Options{Config: &Loaded{Servers: []Entry{{Name: "d", Config: ServerConfig{Command: "x", Exposure: ExposureDeferred, Description: "Docs search"}}}}})
	defer m2.Close()
	if got := m2.ServersSection(); got != "MCP servers whose tools are not declared to you. Load the tools of `tool_search` servers with `tool_search`.\n- mcp__d (tool_search): Docs search" {
		t.Errorf("section %q", got)
	}
}

// scriptedUI answers Select dialogs with the option that starts with the
// next scripted prefix, and records what it was offered.
type scriptedUI struct {
	hooks.Headless
	picks   []string
	offered []string
}

func (u *scriptedUI) Select(_ context.Context, title string, options []string) (string, bool, error) {
	u.offered = append(u.offered, title+": "+strings.Join(options, " | "))
	if len(u.picks) == 0 {
		return "", false, nil
	}
	p := u.picks[0]
	u.picks = u.picks[1:]
	for _, o := range options {
		if strings.HasPrefix(o, p) {
			return o, true, nil
		}
	}
	return "", false, nil
}

// With dialogs bound (the TUI), /mcp is a manager: a server list with
// state, tools and exposure, then the chosen server's actions.
func TestMCPManagerDialogs(t *testing.T) {
	m := newTestManager(t, Entry{Name: "h", Config: helperConfig(t)})
	set, cmds, host := hooks.New(), commands.New(), &fakeHost{}
	off, err := m.Register(set, cmds, host)
	if err != nil {
		t.Fatal(err)
	}
	defer off()
	m.Start()
	waitNames(t, m, host, func(n []string) bool { return has(n, "mcp__h__") })
	ui := &scriptedUI{picks: []string{"h ", "Show tools"}}
	defer set.BindUI(ui)()
	out, _, err := cmds.Run(context.Background(), "/mcp")
	if err != nil || !strings.Contains(out.Text, "mcp__h__echo  [codemode]") {
		t.Fatalf("tools: %q %v", out.Text, err)
	}
	if len(ui.offered) != 2 || !strings.Contains(ui.offered[0], "MCP servers: h — connected · ") || !strings.Contains(ui.offered[0], " tools · codemode") ||
		ui.offered[1] != "h — connected: Show tools | Reconnect | Disable" {
		t.Errorf("offered %q", ui.offered)
	}
	ui.picks, ui.offered = []string{"h ", "Disable"}, nil
	out, _, err = cmds.Run(context.Background(), "/mcp")
	if err != nil || !strings.Contains(out.Text, `MCP server "h" disabled`) || m.Server("h").Status().State != StateDisabled {
		t.Fatalf("disable: %q %v", out.Text, err)
	}
	// Dismissed: nothing happens; without dialogs the status text.
	ui.picks = nil
	if out, _, err = cmds.Run(context.Background(), "/mcp"); err != nil || out.Text != "" {
		t.Fatalf("dismissed: %q %v", out.Text, err)
	}
}
