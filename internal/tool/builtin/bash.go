package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/shell"
	"github.com/relay-agent/relay/internal/tool"
)

type shellArgs struct {
	Command string  `json:"command" jsonschema:"Shell command to execute"`
	Timeout float64 `json:"timeout,omitempty" jsonschema:"Timeout in seconds (optional, no default timeout)"`
}

var shellSchema = sync.OnceValue(tool.SchemaFor[shellArgs])

// BashDetails is the bash and powershell tools' details object.
type BashDetails struct {
	Truncation     *tool.Truncation `json:"truncation,omitempty"`
	FullOutputPath string           `json:"fullOutputPath,omitempty"`
}

type shellKind struct {
	name, shellName, tempPrefix string
	prefix                      string // a line prepended to every command
}

var (
	bashKind       = shellKind{name: "bash", shellName: "bash", tempPrefix: "relay-bash"}
	powershellKind = shellKind{name: "powershell", shellName: "PowerShell", tempPrefix: "relay-powershell",
		prefix: "try { [Console]::OutputEncoding=[System.Text.Encoding]::UTF8 } catch {}\n"}
)

// updateThrottle is the minimum interval between partial results.
const updateThrottle = 100 * time.Millisecond

// maxTimeoutSeconds is the largest timeout a timer can hold (2^31-1 ms).
const maxTimeoutSeconds = 2147483.647

type shellTool struct {
	env  Env
	kind shellKind
}

func (t *shellTool) Spec() llm.ToolSpec {
	return withPrompt(llm.ToolSpec{
		Name: t.kind.name,
		Description: fmt.Sprintf("Execute a %s command in the current working directory. Returns stdout and stderr. "+
			"Output is truncated to last %d lines or %dKB (whichever is hit first). If truncated, full output is saved to a temp file. "+
			"Optionally provide a timeout in seconds.", t.kind.shellName, tool.DefaultMaxLines, tool.DefaultMaxBytes/1024),
		Parameters: shellSchema(),
	})
}

var sessionVars = []string{"RELAY_SESSION_ID", "RELAY_SESSION_FILE", "RELAY_PROVIDER", "RELAY_MODEL", "RELAY_REASONING_LEVEL"}

// commandEnv is the process environment without inherited session
// variables, with GIT_TERMINAL_PROMPT=0 and the caller's extra variables.
func commandEnv(extra []string) []string {
	base := os.Environ()
	out := make([]string, 0, len(base)+8)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		drop := name == "GIT_TERMINAL_PROMPT"
		for _, v := range sessionVars {
			drop = drop || name == v
		}
		if !drop {
			out = append(out, kv)
		}
	}
	out = append(out, "GIT_TERMINAL_PROMPT=0")
	// Children learn they run under a coding agent (AI_AGENT=relay,
	// RELAY_CODING_AGENT=true) without relay changing its own environment.
	for _, kv := range config.ChildMarkers() {
		out = append(out, kv[0]+"="+kv[1])
	}
	return append(out, extra...)
}

// turnEnv are the variables a tool command learns the run from
// (RELAY_SESSION_ID, RELAY_SESSION_FILE, RELAY_PROVIDER, RELAY_MODEL,
// RELAY_REASONING_LEVEL), from the run on ctx; none outside a run.
func turnEnv(ctx context.Context) []string {
	turn, ok := tool.TurnFrom(ctx)
	if !ok {
		return nil
	}
	out := []string{"RELAY_SESSION_ID=" + turn.SessionID, "RELAY_REASONING_LEVEL=" + string(turn.ThinkingLevel)}
	if turn.SessionFile != "" {
		out = append(out, "RELAY_SESSION_FILE="+turn.SessionFile)
	}
	if m := turn.Model; m != nil {
		out = append(out, "RELAY_PROVIDER="+m.Provider, "RELAY_MODEL="+m.ID)
	}
	return out
}

// findPowerShell locates PowerShell; tests replace it.
var findPowerShell = shell.PowerShell

func (t *shellTool) config() (shell.Config, error) {
	if t.kind.name == "powershell" {
		c, ok := findPowerShell()
		if !ok {
			return shell.Config{}, errors.New("PowerShell (pwsh or powershell) is not installed")
		}
		return c, nil
	}
	return shell.Resolve(t.env.ShellPath)
}

var errTimeout = errors.New("command timed out")

func (t *shellTool) Execute(ctx context.Context, raw json.RawMessage, onUpdate func(tool.Result)) tool.Result {
	a := tool.ParseArgs(t.kind.name, raw)
	command := a.String("command", true)
	timeout, hasTimeout := a.Number("timeout")
	if r := a.Err(); r != nil {
		return *r
	}
	if hasTimeout {
		if math.IsNaN(timeout) || math.IsInf(timeout, 0) || timeout <= 0 {
			return tool.Error("Invalid timeout: must be a finite number of seconds")
		}
		if timeout > maxTimeoutSeconds {
			return tool.Error("Invalid timeout: maximum is 2147483.647 seconds")
		}
	}
	if ctx.Err() != nil {
		return tool.Error("Command aborted")
	}
	cfg, err := t.config()
	if err != nil {
		return tool.Error(err.Error())
	}
	if t.env.ShellCommandPrefix != "" {
		command = t.env.ShellCommandPrefix + "\n" + command
	}
	command = t.kind.prefix + command

	runCtx := ctx
	if hasTimeout {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeoutCause(ctx, time.Duration(timeout*float64(time.Second)), errTimeout)
		defer cancel()
	}
	out := newOutputAccumulator(t.env.tempDir(), t.kind.tempPrefix)
	up := newThrottledUpdates(onUpdate, out)
	exit, runErr := shell.Run(runCtx, shell.Spec{Shell: cfg, Command: command, Dir: t.env.Cwd, Env: commandEnv(turnEnv(ctx))},
		func(p []byte) {
			out.write(p)
			up.dirty()
		})
	up.finish()
	out.close()
	if errors.Is(runErr, shell.ErrNoDir) {
		return tool.Errorf("Working directory does not exist: %s\nCannot execute %s commands.", t.env.Cwd, t.kind.shellName)
	}
	text, details := formatShellOutput(out)
	if runErr != nil {
		status := ""
		switch {
		case errors.Is(context.Cause(runCtx), errTimeout) && ctx.Err() == nil:
			status = "Command timed out after " + strconv.FormatFloat(timeout, 'f', -1, 64) + " seconds"
		case ctx.Err() != nil:
			status = "Command aborted"
		default:
			return tool.Error(runErr.Error())
		}
		r := tool.Error(appendStatus(text, status))
		if details != nil {
			r.Details = details
		}
		return r
	}
	if text == "" {
		text = "(no output)"
	}
	var r tool.Result
	if exit.Code != 0 {
		r = tool.Error(appendStatus(text, fmt.Sprintf("Command exited with code %d", exit.Code)))
	} else {
		r = tool.Text(text)
	}
	if details != nil {
		r.Details = details
	}
	return r
}

func appendStatus(text, status string) string {
	if text == "" {
		return status
	}
	return text + "\n\n" + status
}

// formatShellOutput renders the display text with the §10 notice when the
// output was truncated.
func formatShellOutput(out *outputAccumulator) (string, *BashDetails) {
	tr, path := out.snapshot()
	text := tr.Content
	if !tr.Truncated {
		return text, nil
	}
	// Output ending in "\n" splits into a last empty element, which is not a
	// line of the output: count only the lines actually shown.
	shown := tr.OutputLines
	if strings.HasSuffix(tr.Content, "\n") {
		shown--
	}
	start := tr.TotalLines - shown + 1
	end := tr.TotalLines
	switch {
	case tr.LastLinePartial:
		size, number := out.lastLine()
		text += fmt.Sprintf("\n\n[Showing last %s of line %d (line is %s). Full output: %s]",
			tool.FormatSize(tr.OutputBytes), number, tool.FormatSize(size), path)
	case tr.TruncatedBy == "lines":
		text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d. Full output: %s]", start, end, tr.TotalLines, path)
	default:
		text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d (%s limit). Full output: %s]",
			start, end, tr.TotalLines, tool.FormatSize(tool.DefaultMaxBytes), path)
	}
	return text, &BashDetails{Truncation: &tr, FullOutputPath: path}
}

// throttledUpdates sends partial results at most every updateThrottle,
// never after finish.
type throttledUpdates struct {
	onUpdate func(tool.Result)
	out      *outputAccumulator
	mu       sync.Mutex
	last     time.Time
	timer    *time.Timer
	pending  bool
	closed   bool
}

func newThrottledUpdates(onUpdate func(tool.Result), out *outputAccumulator) *throttledUpdates {
	u := &throttledUpdates{onUpdate: onUpdate, out: out}
	if onUpdate != nil {
		onUpdate(tool.Result{Content: llm.Blocks{}})
	}
	return u
}

func (u *throttledUpdates) dirty() {
	if u.onUpdate == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return
	}
	u.pending = true
	wait := updateThrottle - time.Since(u.last)
	if wait <= 0 {
		if u.timer != nil {
			u.timer.Stop()
			u.timer = nil
		}
		u.emitLocked()
		return
	}
	if u.timer == nil {
		u.timer = time.AfterFunc(wait, func() {
			u.mu.Lock()
			defer u.mu.Unlock()
			u.timer = nil
			if !u.closed {
				u.emitLocked()
			}
		})
	}
}

func (u *throttledUpdates) emitLocked() {
	if !u.pending {
		return
	}
	u.pending = false
	u.last = time.Now()
	text, details := formatShellOutput(u.out)
	r := tool.Text(text)
	if details != nil {
		r.Details = details
	}
	u.onUpdate(r)
}

// finish sends a last pending update and stops the timer.
func (u *throttledUpdates) finish() {
	if u.onUpdate == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.timer != nil {
		u.timer.Stop()
		u.timer = nil
	}
	u.emitLocked()
	u.closed = true
}

// ShellResult is the outcome of RunShell.
type ShellResult struct {
	Output         string // sanitized, tail-truncated output (no notice)
	ExitCode       *int   // nil when cancelled
	Cancelled      bool
	Truncated      bool
	FullOutputPath string // the full raw output when truncated
}

// RunShell runs command with env's shell, prefix and cwd (user "!"
// commands: no RELAY_* variables),
// streaming sanitized chunks to onChunk. Output is tail-truncated like the
// bash tool's and spilled to relay-bash-*.log when over the limits. ctx
// cancellation kills the whole process tree and sets Cancelled.
func RunShell(ctx context.Context, env Env, command string, onChunk func(string)) (ShellResult, error) {
	cfg, err := shell.Resolve(env.ShellPath)
	if err != nil {
		return ShellResult{}, err
	}
	if env.ShellCommandPrefix != "" {
		command = env.ShellCommandPrefix + "\n" + command
	}
	out := newOutputAccumulator(env.tempDir(), "relay-bash")
	exit, runErr := shell.Run(ctx, shell.Spec{Shell: cfg, Command: command, Dir: env.Cwd, Env: commandEnv(nil)},
		func(p []byte) {
			if s := out.write(p); s != "" && onChunk != nil {
				onChunk(s)
			}
		})
	out.close()
	if runErr != nil && ctx.Err() == nil {
		return ShellResult{}, runErr
	}
	tr, path := out.snapshot()
	res := ShellResult{Output: tr.Content, Truncated: tr.Truncated}
	if tr.Truncated {
		res.FullOutputPath = path
	}
	if ctx.Err() != nil {
		res.Cancelled = true
		return res, nil
	}
	code := exit.Code
	res.ExitCode = &code
	return res, nil
}
