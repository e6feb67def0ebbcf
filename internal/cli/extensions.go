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
)

// extensionPaths lists the extension files of this run in load order, as
// the package resolver found them (settings, conventional directories,
// packages, then -e); built-in extensions are relay's own and skipped.
func (l *launch) extensionPaths() []string {
	var out []string
	for _, r := range l.res.Extensions(l.a.NoExtensions) {
		if !strings.HasPrefix(r.Path, packages.BuiltinPrefix) {
			out = append(out, r.Path)
		}
	}
	return out
}

// startExtensions starts loading the run's extensions in the background
// (nil when there are none: no Node process).
func (l *launch) startExtensions(ctx context.Context) error {
	paths := l.extensionPaths()
	if len(paths) == 0 {
		return nil
	}
	var timeout time.Duration
	if v, err := strconv.Atoi(l.env.Get("RELAY_EXTENSION_TIMEOUT_MS")); err == nil && v > 0 {
		timeout = time.Duration(v) * time.Millisecond
	}
	mode := map[mode]string{modeTUI: "tui", modeRPC: "rpc", modeJSON: "json", modePrint: "print"}[l.mode]
	l.ext = ext.Start(ctx, ext.Options{Paths: paths, AgentDir: l.agentDir, Cwd: l.cwd, Mode: mode,
		HasUI: l.mode == modeTUI || l.mode == modeRPC, Flags: l.a.ExtFlags, NpmCommand: l.st.NpmCommand,
		Environ: environ(l.env), Hooks: l.seam, Commands: l.cmds, Log: extensionLog(l.agentDir), HandlerTimeout: timeout, Settings: l.st})
	return nil
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

// waitExtensions waits for the extensions to load and reports each that
// failed, by path; the others and relay go on.
func (l *launch) waitExtensions(ctx context.Context) {
	for _, err := range l.ext.Wait(ctx) {
		fmt.Fprintf(l.stderr, "Warning: %v\n", err)
	}
}
