package models

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/config"
)

// CommandTimeout bounds a `!command` credential or header value: the
// command and everything it started are killed when it passes, and the
// credential fails with a CommandError saying so.
var CommandTimeout = 10 * time.Second

// stderrTail is how much of a failed command's stderr its error quotes.
const stderrTail = 400

// maxCommandOutput bounds what a credential command may print.
const maxCommandOutput = 64 << 10

// commandRunner runs `!command` values. Tests swap it to count calls.
var commandRunner = runShellCommand

// CommandError reports a `!command` credential that failed: which
// provider and which value ran it, and why (exit status and the tail of
// its stderr, a timeout, or no output).
type CommandError struct {
	Provider string
	// Source names the value: "auth.json key", "models.json apiKey" or
	// `models.json header "X-Name"`.
	Source string
	Err    error
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("%s command for provider %q failed: %v", e.Source, e.Provider, e.Err)
}

func (e *CommandError) Unwrap() error { return e.Err }

// runFailure is why one command run failed.
type runFailure struct {
	timedOut bool
	timeout  time.Duration
	exit     error // *exec.ExitError or a start error
	stderr   string
	empty    bool
}

func (f *runFailure) Error() string {
	var msg string
	switch {
	case f.timedOut:
		msg = fmt.Sprintf("timed out after %s", f.timeout)
	case f.empty:
		msg = "it printed nothing"
	default:
		msg = f.exit.Error()
	}
	if f.stderr != "" {
		msg += ": " + f.stderr
	}
	return msg
}

// tailWriter keeps the last n bytes written to it.
type tailWriter struct {
	n   int
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if len(w.buf) > 2*w.n {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.n:]...)
	}
	return len(p), nil
}

func (w *tailWriter) String() string {
	b := w.buf
	cut := len(b) > w.n
	if cut {
		b = b[len(b)-w.n:]
	}
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "")), " ")
	if cut {
		s = "…" + s
	}
	return s
}

// limitWriter keeps the first n bytes written to it and drops the rest.
type limitWriter struct {
	n   int
	buf bytes.Buffer
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if room := w.n - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func runShellCommand(ctx context.Context, command string) (string, error) {
	timeout := CommandTimeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	out := &limitWriter{n: maxCommandOutput}
	errTail := &tailWriter{n: stderrTail}
	cmd.Stdout = out
	cmd.Stderr = errTail
	cmd.Stdin = nil
	// Kill the whole process group, so a child that keeps the output
	// open cannot stretch the bound; WaitDelay covers what escapes it.
	killGroup(cmd)
	cmd.WaitDelay = 500 * time.Millisecond
	err := cmd.Run()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return "", &runFailure{timedOut: true, timeout: timeout, stderr: errTail.String()}
	case err != nil:
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", ctxErr // the caller gave up
		}
		return "", &runFailure{exit: err, stderr: errTail.String()}
	}
	v := strings.TrimSpace(out.buf.String())
	if v == "" {
		return "", &runFailure{empty: true, stderr: errTail.String()}
	}
	return v, nil
}

// commandCache memoises `!command` results for the process lifetime
// (auth.json semantics): a failure is cached too, so a broken command is
// not retried (nor waited for again) until relay restarts.
type commandCache struct {
	mu      sync.Mutex
	results map[string]*cachedCommand
}

type cachedCommand struct {
	mu    sync.Mutex // held while the command runs: callers wait for it
	done  bool
	value string
	err   error
}

func (c *commandCache) run(ctx context.Context, command string) (string, error) {
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
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.done {
		v, err := commandRunner(ctx, command)
		if err != nil && ctx.Err() != nil {
			return "", err // the caller gave up: not the command's verdict
		}
		r.value, r.err, r.done = v, err, true
	}
	return r.value, r.err
}

// resolveValue expands a credential or header value: `!command` runs the
// command (through cache when non-nil, else every time), `$NAME` is the
// variable, `${NAME}` references are interpolated, anything else is
// literal. An unset variable yields ""; a failing command an error (see
// runFailure) that the caller wraps in a CommandError.
func resolveValue(ctx context.Context, v string, getenv func(string) string, cache *commandCache) (string, error) {
	if cmd, ok := strings.CutPrefix(v, "!"); ok {
		cmd = strings.TrimSpace(cmd)
		if cmd == "" {
			return "", nil
		}
		if cache != nil {
			return cache.run(ctx, cmd)
		}
		return commandRunner(ctx, cmd)
	}
	if name, ok := strings.CutPrefix(v, "$"); ok && config.IsEnvName(name) {
		return getenv(name), nil
	}
	if isLegacyEnvName(v) {
		if val := getenv(v); val != "" {
			return val, nil
		}
	}
	if !strings.Contains(v, "${") {
		return v, nil
	}
	return expandBraced(v, getenv), nil
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
		if j < 0 || !config.IsEnvName(s[i+2:i+j]) {
			b.WriteString(s[:i+2])
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(getenv(s[i+2 : i+j]))
		s = s[i+j+1:]
	}
}

// valueConfigured reports, without running anything, whether v can yield a
// value: commands count as configured, variable references only when set.
func valueConfigured(v string, getenv func(string) string) bool {
	if strings.HasPrefix(v, "!") {
		return strings.TrimSpace(v[1:]) != ""
	}
	if name, ok := strings.CutPrefix(v, "$"); ok && config.IsEnvName(name) {
		return getenv(name) != ""
	}
	if strings.Contains(v, "${") {
		return expandBraced(v, getenv) != ""
	}
	return v != "" // a legacy bare name is still a literal when unset
}

func osGetenv(name string) string { return os.Getenv(name) }
