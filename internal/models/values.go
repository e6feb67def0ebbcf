package models

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// CommandTimeout bounds a `!command` credential. A command that times out
// yields no value.
var CommandTimeout = 10 * time.Second

// commandRunner runs `!command` values. Tests swap it to count calls.
var commandRunner = runShellCommand

func runShellCommand(ctx context.Context, command string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = nil
	cmd.Stdin = nil
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

// commandCache memoises `!command` results for the process lifetime
// (auth.json semantics): a failed or empty result is cached too, so a
// broken command is not retried until relay restarts.
type commandCache struct {
	mu      sync.Mutex
	results map[string]*cachedCommand
}

type cachedCommand struct {
	once  sync.Once
	value string
}

func (c *commandCache) run(ctx context.Context, command string) string {
	c.mu.Lock()
	if c.results == nil {
		c.results = map[string]*cachedCommand{}
	}
	r := c.results[command]
	if r == nil {
		r = &cachedCommand{}
		c.results[command] = r
	}
	c.mu.Unlock()
	r.once.Do(func() {
		v, err := commandRunner(ctx, command)
		if err == nil {
			r.value = v
		}
	})
	return r.value
}

// resolveValue expands a credential or header value: `!command` runs the
// command (through cache when non-nil, else every time), `$NAME` is the
// variable, `${NAME}` references are interpolated, anything else is
// literal. An unset variable or a failing command yields "".
func resolveValue(ctx context.Context, v string, getenv func(string) string, cache *commandCache) string {
	if cmd, ok := strings.CutPrefix(v, "!"); ok {
		cmd = strings.TrimSpace(cmd)
		if cmd == "" {
			return ""
		}
		if cache != nil {
			return cache.run(ctx, cmd)
		}
		out, err := commandRunner(ctx, cmd)
		if err != nil {
			return ""
		}
		return out
	}
	if name, ok := strings.CutPrefix(v, "$"); ok && isEnvName(name) {
		return getenv(name)
	}
	if isLegacyEnvName(v) {
		if val := getenv(v); val != "" {
			return val
		}
	}
	if !strings.Contains(v, "${") {
		return v
	}
	return expandBraced(v, getenv)
}

// isLegacyEnvName reports values like OPENAI_API_KEY: pi-family
// models.json files name the variable without "$". When such a variable is
// set we use it; otherwise the value stays literal, as the spec says. Real
// keys are never upper-case-and-underscore only, so nothing is lost.
func isLegacyEnvName(v string) bool {
	if len(v) < 2 || !strings.Contains(v, "_") {
		return false
	}
	for i, c := range v {
		switch {
		case c == '_', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// expandBraced replaces each ${NAME} in s; malformed references stay as
// written.
func expandBraced(s string, getenv func(string) string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 || !isEnvName(s[i+2:i+j]) {
			b.WriteString(s[:i+2])
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(getenv(s[i+2 : i+j]))
		s = s[i+j+1:]
	}
}

func isEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// valueConfigured reports, without running anything, whether v can yield a
// value: commands count as configured, variable references only when set.
func valueConfigured(v string, getenv func(string) string) bool {
	if strings.HasPrefix(v, "!") {
		return strings.TrimSpace(v[1:]) != ""
	}
	if name, ok := strings.CutPrefix(v, "$"); ok && isEnvName(name) {
		return getenv(name) != ""
	}
	if strings.Contains(v, "${") {
		return expandBraced(v, getenv) != ""
	}
	return v != "" // a legacy bare name is still a literal when unset
}

func osGetenv(name string) string { return os.Getenv(name) }
