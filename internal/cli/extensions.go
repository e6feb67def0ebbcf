package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/ext"
	"github.com/relay-agent/relay/internal/packages"
	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tool/builtin"
)

// extensionPaths lists the extension files of this run in load order, as
// the package resolver found them (settings, conventional directories,
// packages, then -e); built-in extensions are relay's own and skipped.
func (l *launch) extensionPaths() []string { return l.res.extensionFiles(l.a.NoExtensions) }

func (r *runResources) extensionFiles(noExtensions bool) []string {
	var out []string
	for _, e := range r.Extensions(noExtensions) {
		if !strings.HasPrefix(e.Path, packages.BuiltinPrefix) {
			out = append(out, e.Path)
		}
	}
	return out
}

// preloadExtensions starts the user and command-line extensions before the
// project trust decision, which only they may take (project_trust), and
// waits for them. It runs only when the decision is needed; their load
// errors are reported with the others by waitExtensions.
func (l *launch) preloadExtensions(ctx context.Context, user *settings.Settings) {
	paths := l.resolvePackages(ctx, user, false).extensionFiles(l.a.NoExtensions)
	if len(paths) == 0 {
		return
	}
	l.ext = l.startExt(ctx, paths, user)
	l.ext.Wait(ctx)
}

// startExtensions starts loading the run's extensions in the background
// (nil when there are none: no Node process). Those loaded before the
// trust decision stay; the project's are added to the same host, unless
// the project's settings turned one of them off.
func (l *launch) startExtensions(ctx context.Context) error {
	if l.extStarted {
		return nil // started early (--list-models)
	}
	l.extStarted = true
	defer l.bindProviders()
	paths := l.extensionPaths()
	if l.ext.Hosted() {
		pre := l.ext.Paths()
		if extra, ok := addedTo(pre, paths); ok {
			l.ext.LoadMore(ctx, extra, l.st)
			return nil
		}
		l.ext.Discard()
	}
	l.ext = nil
	if len(paths) == 0 {
		return nil
	}
	l.ext = l.startExt(ctx, paths, l.st)
	return nil
}

// addedTo returns the paths of final that are not in pre, in order; ok
// is false when final leaves out one of pre.
func addedTo(pre, final []string) (extra []string, ok bool) {
	in := map[string]bool{}
	for _, p := range final {
		in[filepath.Clean(p)] = true
	}
	had := map[string]bool{}
	for _, p := range pre {
		if !in[filepath.Clean(p)] {
			return nil, false
		}
		had[filepath.Clean(p)] = true
	}
	for _, p := range final {
		if !had[filepath.Clean(p)] {
			extra = append(extra, p)
		}
	}
	return extra, true
}

func (l *launch) startExt(ctx context.Context, paths []string, st *settings.Settings) *ext.Manager {
	var timeout time.Duration
	if v, err := strconv.Atoi(l.env.Get("RELAY_EXTENSION_TIMEOUT_MS")); err == nil && v > 0 {
		timeout = time.Duration(v) * time.Millisecond
	}
	mode := map[mode]string{modeTUI: "tui", modeRPC: "rpc", modeJSON: "json", modePrint: "print"}[l.mode]
	return ext.Start(ctx, ext.Options{Paths: paths, AgentDir: l.agentDir, Cwd: l.cwd, Mode: mode,
		HasUI: l.mode == modeTUI || l.mode == modeRPC, Flags: l.a.ExtFlags, NpmCommand: st.NpmCommand,
		Environ: environ(l.env), Hooks: l.seam, Commands: l.cmds, Shutdown: l.requestShutdown, Log: extensionLog(l.agentDir), HandlerTimeout: timeout, Settings: st,
		// The tool factories' built-ins run with the run's final settings.
		ToolEnv: func() builtin.Env { return builtinEnv(l.st, l.cwd) }})
}

// extensionLog is where extensions' console output goes: a file in the
// agent dir, never the terminal or a protocol stream.
func extensionLog(agentDir string) io.Writer {
	f, err := os.OpenFile(filepath.Join(agentDir, "extensions.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil
	}
	if st, err := f.Stat(); err == nil && st.Size() > 4<<20 {
		_ = f.Truncate(0)
	}
	return f
}

// bindProviders hands the model registry to the extensions: the
// providers they registered so far (a preloaded extension registers
// before the registry exists) and later ones land there.
func (l *launch) bindProviders() {
	for _, err := range l.ext.BindProviders(l.reg) {
		fmt.Fprintf(l.stderr, "Warning: %v\n", err)
	}
}

// waitExtensions waits for the extensions to load and reports each that
// failed, by path; the others and relay go on.
func (l *launch) waitExtensions(ctx context.Context) {
	if l.extWaited {
		return
	}
	l.extWaited = true
	for _, err := range l.ext.Wait(ctx) {
		fmt.Fprintf(l.stderr, "Warning: %v\n", err)
	}
}

// requestShutdown is an extension's ctx.shutdown(): the TUI and RPC
// front ends quit once the agent is idle; print and JSON modes end on
// their own.
func (l *launch) requestShutdown() {
	l.shutdownOnce.Do(func() { close(l.shutdownReq) })
}

// quitOnShutdown waits for ctx.shutdown() and ends the front end once
// the runtime is idle: RPC sees its input end (it finishes what is in
// flight and exits 0), the TUI's context ends.
func (l *launch) quitOnShutdown(ctx context.Context, rt interface{ WaitIdle() }, endInput, stop func()) {
	select {
	case <-l.shutdownReq:
	case <-ctx.Done():
		return
	}
	rt.WaitIdle()
	if endInput != nil {
		endInput()
		return
	}
	stop()
}
