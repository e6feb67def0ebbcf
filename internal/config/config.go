// Package config knows where relay keeps things: the agent directory and its
// well-known files, the project .relay directory, the default session store,
// and the environment variables that configure the process. It does no
// parsing of those files; settings, models, auth and sessions own that.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Names of directories and environment variables.
const (
	// DirName is the name of the project configuration directory and of the
	// directory under the home directory that holds the agent directory.
	DirName = ".relay"

	EnvAgentDir   = "RELAY_CODING_AGENT_DIR"
	EnvSessionDir = "RELAY_CODING_AGENT_SESSION_DIR"
)

// AgentDir returns the agent directory: RELAY_CODING_AGENT_DIR (with a
// leading ~ expanded, relative paths made absolute) or ~/.relay/agent.
func (e Env) AgentDir() (string, error) {
	if v := e.vars[EnvAgentDir]; v != "" {
		p, err := ExpandHome(v)
		if err != nil {
			return "", fmt.Errorf("agent dir %s: %w", EnvAgentDir, err)
		}
		return filepath.Abs(p)
	}
	home, err := HomeDir()
	if err != nil {
		return "", fmt.Errorf("agent dir: %w", err)
	}
	return filepath.Join(home, DirName, "agent"), nil
}

// HomeDir returns the user's home directory ($HOME first, as the original
// does, so tests and sandboxes can move it).
func HomeDir() (string, error) {
	if h := os.Getenv("HOME"); h != "" {
		return h, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if h == "" {
		return "", errors.New("home directory unknown")
	}
	return h, nil
}

// ExpandHome replaces a leading "~" (alone, or followed by a path separator)
// with the home directory. Other paths are returned unchanged; "~user" forms
// are not expanded.
func ExpandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !(runtime.GOOS == "windows" && strings.HasPrefix(p, `~\`)) {
		return p, nil
	}
	home, err := HomeDir()
	if err != nil {
		return "", err
	}
	if p == "~" {
		return home, nil
	}
	return filepath.Join(home, p[2:]), nil
}

// ResolvePath expands a leading ~ and resolves a relative p against base.
// The result is cleaned. An empty p stays empty.
func ResolvePath(base, p string) string {
	if p == "" {
		return ""
	}
	if e, err := ExpandHome(p); err == nil {
		p = e
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// Canonical returns the absolute, symlink-resolved form of dir. When the
// path cannot be resolved (it may not exist) the cleaned absolute path is
// returned. Trust decisions and session grouping key on this form.
func Canonical(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}
