package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/codemode"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/mcp"
	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tool"
	"github.com/relay-agent/relay/internal/toolsearch"
)

// runMCPCommand is `relay mcp ...`: configuration and sign-in without a
// session.
func runMCPCommand(ctx context.Context, args []string, env config.Env, stdout, stderr io.Writer) int {
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
	userSettings, _ := settings.Load(settings.LoadOptions{AgentDir: agentDir})
	trust := settings.DecideTrust(settings.TrustInput{Cwd: cwd, Store: settings.NewTrustStore(agentDir), Default: userSettings.DefaultProjectTrust})
	return mcp.Command(ctx, args, mcp.CommandOptions{AgentDir: agentDir, Cwd: cwd, ProjectTrusted: trust.Trusted,
		Stdout: stdout, Stderr: stderr, ClientVersion: Version, Getenv: env.Get, Environ: environ(env)})
}

// environ is env as NAME=value lines, what stdio servers start with.
func environ(env config.Env) []string {
	names := env.Names()
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, n+"="+env.Get(n))
	}
	return out
}

// startMCP loads mcp.json (the project file only when trusted), connects
// the servers in the background and registers them on the seam. It returns
// nil when MCP is off or nothing is configured.
func startMCP(env config.Env, st *settings.Settings, agentDir, cwd string, trusted bool, seam *hooks.Set, cmds *commands.Registry,
	reg *tool.Registry, active *tool.Active, rt *app.Runtime, toolsOn bool, stderr io.Writer) *mcp.Manager {
	if builtinDisabled(st, "mcp") {
		return nil
	}
	loaded := mcp.Load(mcp.LoadOptions{UserConfig: config.Agent{Dir: agentDir}.MCP(),
		ProjectConfig: config.Project{Cwd: cwd}.MCP(), ProjectTrusted: trusted})
	for _, e := range loaded.Errors {
		fmt.Fprintf(stderr, "Warning: mcp: %v\n", e)
	}
	m := mcp.NewManager(mcp.Options{Cwd: cwd, Config: loaded, ClientVersion: Version, Getenv: env.Get, Environ: environ(env),
		Log:  mcp.NewServerLog(filepath.Join(agentDir, "mcp.log")),
		Auth: mcp.NewCredentialStore(filepath.Join(agentDir, "mcp-auth.json"))})
	host := &mcpHost{reg: reg, active: active, toolsOn: toolsOn, autoCodemode: loaded.AutoEnableCodemode == nil || *loaded.AutoEnableCodemode}
	if _, err := m.Register(seam, cmds, host); err != nil {
		fmt.Fprintf(stderr, "Warning: mcp: %v\n", err)
		m.Close()
		return nil
	}
	m.Start()
	// Servers without direct tools start once the first answer arrives, so
	// they do not compete with the first request.
	rt.Subscribe(func(e agent.Event) {
		if _, ok := e.Message.(*llm.AssistantMessage); ok && e.Type == agent.MessageStart {
			m.StartRest()
		}
	})
	return m
}

// mcpHost keeps the registry and the active tools in step with the MCP
// servers: every tool registered, direct ones active; codemode becomes
// active once a server has codemode tools (unless autoEnableCodemode is
// false) and tool_search once one has deferred tools, so they are reachable.
type mcpHost struct {
	reg          *tool.Registry
	active       toolsearch.Loadout
	toolsOn      bool // false with --no-tools and an empty defaultTools
	autoCodemode bool

	mu     sync.Mutex
	names  map[string]bool
	direct map[string]bool
}

func (h *mcpHost) SetMCPTools(ts []mcp.Exposed) {
	h.mu.Lock()
	defer h.mu.Unlock()
	names, direct := map[string]bool{}, map[string]bool{}
	var order []string
	for _, e := range ts {
		n := e.Tool.Spec().Name
		switch e.Exposure {
		case mcp.ExposureCodemode:
			if h.autoCodemode {
				h.want(codemode.Name, &order)
			}
		case mcp.ExposureDeferred:
			h.want(toolsearch.Name, &order)
		}
		// Codemode and tool_search read the exposure from the tool.
		h.reg.Replace(tool.WithExposure(e.Tool, e.Exposure))
		names[n] = true
		if e.Exposure == mcp.ExposureDirect {
			direct[n] = true
			order = append(order, n)
		}
	}
	for n := range h.names {
		if !names[n] {
			h.reg.Remove(n)
		}
	}
	if h.toolsOn {
		active := h.active.Names()
		next := make([]string, 0, len(active)+len(order))
		have := map[string]bool{}
		changed := false
		for _, n := range active {
			if h.direct[n] && !direct[n] {
				changed = true
				continue
			}
			have[n] = true
			next = append(next, n)
		}
		for _, n := range order {
			if !have[n] {
				next = append(next, n)
				changed = true
			}
		}
		if changed {
			h.active.Set(next)
		}
	}
	h.names, h.direct = names, direct
}

// want puts the registered tool name in order once, to be activated.
func (h *mcpHost) want(name string, order *[]string) {
	if _, ok := h.reg.Get(name); ok && !slices.Contains(*order, name) {
		*order = append(*order, name)
	}
}
