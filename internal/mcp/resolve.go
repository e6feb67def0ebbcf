package mcp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/config"
)

// commandTimeout bounds a `!command` value.
const commandTimeout = 10 * time.Second

// resolver expands env and header values: a value that starts with `!` is a
// shell command whose trimmed output is the value; `${NAME}` references are
// replaced by the variable. A failing command or an unset variable is an
// error naming what could not be resolved, never a silently empty value.
type resolver struct {
	getenv func(string) string
	run    func(ctx context.Context, command string) (string, error)
}

func defaultResolver() resolver {
	return resolver{getenv: os.Getenv, run: runShellCommand}
}

func runShellCommand(ctx context.Context, command string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	var out, errb bytes.Buffer
	cmd.Stdout = &limitedBuffer{b: &out, max: 1 << 20}
	cmd.Stderr = &limitedBuffer{b: &errb, max: 4 << 10}
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", fmt.Errorf("%w: %s", err, msg)
		}
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

// limitedBuffer keeps the first max bytes written and drops the rest.
type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		if len(p) > room {
			l.b.Write(p[:room])
		} else {
			l.b.Write(p)
		}
	}
	return len(p), nil
}

// value resolves v; what names it in errors ("env \"TOKEN\"").
func (r resolver) value(ctx context.Context, v, what string) (string, error) {
	if cmd, ok := strings.CutPrefix(v, "!"); ok {
		cmd = strings.TrimSpace(cmd)
		out, err := r.run(ctx, cmd)
		if err != nil {
			return "", fmt.Errorf("resolve %s from shell command %q: %v", what, cmd, err)
		}
		if out == "" {
			return "", fmt.Errorf("resolve %s from shell command %q: no output", what, cmd)
		}
		return out, nil
	}
	var b strings.Builder
	var missing []string
	s := v
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 || !config.IsEnvName(s[i+2:i+j]) {
			b.WriteString(s[:i+2])
			s = s[i+2:]
			continue
		}
		name := s[i+2 : i+j]
		val := r.getenv(name)
		if val == "" {
			missing = append(missing, name)
		}
		b.WriteString(s[:i])
		b.WriteString(val)
		s = s[i+j+1:]
	}
	if len(missing) == 1 {
		return "", fmt.Errorf("resolve %s: environment variable %s is not set", what, missing[0])
	}
	if len(missing) > 1 {
		return "", fmt.Errorf("resolve %s: environment variables %s are not set", what, strings.Join(missing, ", "))
	}
	return b.String(), nil
}

// pairs resolves every value of kv.
func (r resolver) pairs(ctx context.Context, kv []KV, kind string) ([]KV, error) {
	out := make([]KV, 0, len(kv))
	for _, p := range kv {
		v, err := r.value(ctx, p.Value, fmt.Sprintf("%s %q", kind, p.Key))
		if err != nil {
			return nil, err
		}
		out = append(out, KV{p.Key, v})
	}
	return out, nil
}
