// Package shell resolves the user's shell, runs one command in its own
// process group with the whole tree killed on cancel, and cleans terminal
// output (ANSI sequences, control bytes, carriage returns) for models.
package shell

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// Config is how to start a shell: Path Args... <command>.
type Config struct {
	Path string
	Args []string
}

// ExpandHome replaces a leading "~" or "~/" with the home directory.
func ExpandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") || (runtime.GOOS == "windows" && strings.HasPrefix(p, `~\`)) {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// Resolve picks the shell for the bash tool: shellPath when set (a leading
// "~" expanded), else bash (/bin/bash, then PATH), else sh. On Windows it
// prefers Git Bash and never System32's bash.exe, the WSL launcher.
func Resolve(shellPath string) (Config, error) {
	if shellPath != "" {
		p := ExpandHome(shellPath)
		if _, err := os.Stat(p); err != nil {
			found, lerr := exec.LookPath(p)
			if lerr != nil {
				return Config{}, fmt.Errorf("Custom shell path not found: %s", shellPath)
			}
			p = found
		}
		return Config{Path: p, Args: argsFor(p)}, nil
	}
	if runtime.GOOS == "windows" {
		return resolveWindows()
	}
	if _, err := os.Stat("/bin/bash"); err == nil {
		return Config{Path: "/bin/bash", Args: []string{"-c"}}, nil
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return Config{Path: p, Args: []string{"-c"}}, nil
	}
	if p, err := exec.LookPath("sh"); err == nil {
		return Config{Path: p, Args: []string{"-c"}}, nil
	}
	return Config{}, errors.New("no shell found: install bash or set shellPath in settings")
}

func argsFor(p string) []string {
	base := strings.ToLower(strings.TrimSuffix(filepath.Base(p), ".exe"))
	switch base {
	case "pwsh", "powershell":
		return powershellArgs
	case "cmd":
		return []string{"/d", "/s", "/c"}
	}
	return []string{"-c"}
}

var powershellArgs = []string{"-NoLogo", "-NoProfile", "-NonInteractive", "-Command"}

func resolveWindows() (Config, error) {
	var candidates []string
	for _, env := range []string{"ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA"} {
		if base := os.Getenv(env); base != "" {
			candidates = append(candidates,
				filepath.Join(base, "Git", "bin", "bash.exe"),
				filepath.Join(base, "Programs", "Git", "bin", "bash.exe"))
		}
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return Config{Path: c, Args: []string{"-c"}}, nil
		}
	}
	if p, err := exec.LookPath("bash.exe"); err == nil && !isWSLLauncher(p) {
		return Config{Path: p, Args: []string{"-c"}}, nil
	}
	return Config{}, errors.New("no bash shell found. Install Git for Windows (Git Bash) or set shellPath in settings")
}

func isWSLLauncher(p string) bool {
	root := os.Getenv("SystemRoot")
	if root == "" {
		root = `C:\Windows`
	}
	return strings.EqualFold(filepath.Dir(p), filepath.Join(root, "System32"))
}

var psOnce = sync.OnceValue(func() string {
	for _, n := range []string{"pwsh", "powershell"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
})

// PowerShell returns the PowerShell config (pwsh preferred) and whether one
// exists on PATH. The lookup runs once.
func PowerShell() (Config, bool) {
	p := psOnce()
	if p == "" {
		return Config{}, false
	}
	return Config{Path: p, Args: powershellArgs}, true
}
