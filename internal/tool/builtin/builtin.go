// Package builtin holds relay's built-in tools: read, bash, edit, write,
// grep, find, ls and (where PowerShell exists) powershell. Their parameters,
// limits, notices and error texts follow upstream-spec-core.md §10.
package builtin

import (
	"fmt"
	"os"

	"github.com/relay-agent/relay/internal/shell"
	"github.com/relay-agent/relay/internal/tool"
)

// Env is what the tools need from the session and settings.
type Env struct {
	Cwd                string // session working directory; relative paths resolve against it
	ShellPath          string // settings.shellPath ("" = platform default)
	ShellCommandPrefix string // settings.shellCommandPrefix, prepended with "\n"
	ImagesAutoResize   bool   // settings images.autoResize (default true)
	ImagesBlock        bool   // settings images.blockImages: never return image blocks
	ImageMaxWidth      int    // 0 = 2000
	ImageMaxHeight     int    // 0 = 2000
	TempDir            string // where relay-bash-*.log files go ("" = os.TempDir())
}

func (e Env) tempDir() string {
	if e.TempDir != "" {
		return e.TempDir
	}
	return os.TempDir()
}

var order = []string{"read", "bash", "edit", "write", "grep", "find", "ls", "powershell"}

// Names lists the built-in tools available on this machine in their
// canonical order; powershell is listed only when pwsh or powershell is on
// PATH.
func Names() []string {
	out := make([]string, 0, len(order))
	for _, n := range order {
		if n == "powershell" {
			if _, ok := shell.PowerShell(); !ok {
				continue
			}
		}
		out = append(out, n)
	}
	return out
}

// New returns the built-in tool called name.
func New(name string, env Env) (tool.Tool, error) {
	switch name {
	case "read":
		return &readTool{env: env}, nil
	case "bash":
		return &shellTool{env: env, kind: bashKind}, nil
	case "powershell":
		if _, ok := shell.PowerShell(); !ok {
			return nil, fmt.Errorf("tool powershell: PowerShell (pwsh or powershell) is not installed")
		}
		return &shellTool{env: env, kind: powershellKind}, nil
	case "edit":
		return &editTool{env: env}, nil
	case "write":
		return &writeTool{env: env}, nil
	case "grep":
		return &grepTool{env: env}, nil
	case "find":
		return &findTool{env: env}, nil
	case "ls":
		return &lsTool{env: env}, nil
	}
	return nil, fmt.Errorf("unknown built-in tool %q", name)
}

// NewRegistry returns a registry of the named built-ins (all available ones
// when names is empty).
func NewRegistry(env Env, names ...string) (*tool.Registry, error) {
	if len(names) == 0 {
		names = Names()
	}
	r, _ := tool.NewRegistry()
	for _, n := range names {
		t, err := New(n, env)
		if err != nil {
			return nil, err
		}
		if err := r.Add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}
