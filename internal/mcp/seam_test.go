package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
)

type fakeHost struct {
	mu    sync.Mutex
	tools []Exposed
}

func (h *fakeHost) SetMCPTools(t []Exposed) {
	h.mu.Lock()
	h.tools = t
	h.mu.Unlock()
}

func (h *fakeHost) direct() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.tools {
		if e.Exposure == ExposureDirect {
			out = append(out, e.Tool.Spec().Name)
		}
	}
	return out
}

func TestRegisterOnTheSeam(t *testing.T) {
	dir := t.TempDir()
	cfg := helperConfig(t)
	user := filepath.Join(dir, "mcp.json")
	if _, err := AddServer(user, "h", &ServerConfig{Command: cfg.Command, Args: cfg.Args, Env: cfg.Env,
		ToolExposure: []ToolRule{{"echo", ExposureDirect}}}); err != nil {
		t.Fatal(err)
	}
	loaded := Load(LoadOptions{UserConfig: user})
	m := NewManager(Options{Cwd: dir, Config: loaded})
	defer m.Close()
	set, cmds, host := hooks.New(), commands.New(), &fakeHost{}
	off, err := m.Register(set, cmds, host)
	if err != nil {
		t.Fatal(err)
	}
	defer off()
	m.Start()
	// The first prompt waits for the server with a direct tool.
	set.RunInput(context.Background(), hooks.Input{Text: "hi", Source: "interactive"})
	if d := host.direct(); len(d) != 1 || d[0] != "mcp__h__echo" {
		t.Fatalf("direct tools after the first prompt's wait = %v", d)
	}
	out, handled, err := cmds.Run(context.Background(), "/mcp")
	if err != nil || !handled || !strings.Contains(out.Text, "h  connected  ") {
		t.Fatalf("/mcp = %q %v %v", out.Text, handled, err)
	}
	out, _, err = cmds.Run(context.Background(), "/mcp tools h")
	if err != nil || !strings.Contains(out.Text, "mcp__h__echo  [direct]") || !strings.Contains(out.Text, "mcp__h__big  [codemode]") {
		t.Fatalf("/mcp tools = %q %v", out.Text, err)
	}
	out, _, err = cmds.Run(context.Background(), "/mcp disable h")
	if err != nil || !strings.Contains(out.Text, "Saved to "+user) {
		t.Fatalf("/mcp disable = %q %v", out.Text, err)
	}
	if d := host.direct(); len(d) != 0 {
		t.Fatalf("a disabled server's tools stayed: %v", d)
	}
	if data, _ := os.ReadFile(user); !strings.Contains(string(data), `"enabled": false`) {
		t.Fatalf("file = %s", data)
	}
	out, _, err = cmds.Run(context.Background(), "/mcp enable h")
	if err != nil {
		t.Fatal(err)
	}
	m.WaitAll(context.Background(), DirectWait)
	if _, err := m.Server("h").session(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := host.direct(); len(d) != 1 {
		t.Fatalf("direct tools after enable = %v", d)
	}
	if data, _ := os.ReadFile(user); strings.Contains(string(data), `"enabled"`) {
		t.Fatalf("enable kept the key: %s", data)
	}
	if _, _, err := cmds.Run(context.Background(), "/mcp reconnect nope"); err == nil || !strings.Contains(err.Error(), `no MCP server named "nope"`) {
		t.Fatalf("unknown server: %v", err)
	}
}
