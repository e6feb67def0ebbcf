package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/settings"
)

// decideTrust applies security.md's order: --approve / --no-approve, then
// project_trust handlers (user and CLI extensions; remember saves the
// verdict), then the nearest saved decision, then defaultProjectTrust.
// With "ask" in the TUI and a terminal on stdin it asks before the TUI
// starts, so project extensions, packages and themes load only once the
// person trusts the project.
func (l *launch) decideTrust(ctx context.Context) bool {
	userSettings, _ := settings.Load(settings.LoadOptions{AgentDir: l.agentDir})
	store := settings.NewTrustStore(l.agentDir)
	interactive := l.mode == modeTUI && isTTY(l.stdin)
	hook := func() (bool, bool) {
		// Only now (a decision is needed) do the user and command-line
		// extensions load ahead of the rest.
		l.preloadExtensions(ctx, userSettings)
		if !l.seam.ProjectTrust.Has() {
			return false, false
		}
		if interactive && l.seam.UI() == nil {
			// The TUI is not up yet: its handlers ask on the terminal.
			defer l.seam.BindUI(&lineUI{in: l.stdin, out: l.stdout})()
		}
		// The runtime that turns failures into extension_error events
		// does not exist yet: a failing handler is a warning.
		prev := l.seam.OnError
		l.seam.OnError = func(e *hooks.HandlerError) { fmt.Fprintln(l.stderr, "Warning:", e) }
		v := l.seam.RunTrust(ctx, hooks.Trust{Cwd: l.cwd})
		l.seam.OnError = prev
		if v.Trusted == hooks.TrustUndecided {
			return false, false
		}
		yes := v.Trusted == hooks.TrustYes
		if v.Remember {
			if err := store.Set(settings.TrustUpdate{Dir: l.cwd, Decision: &yes}); err != nil {
				fmt.Fprintln(l.stderr, "Warning:", err)
			}
		}
		return yes, true
	}
	d := settings.DecideTrust(settings.TrustInput{Cwd: l.cwd, Flag: l.a.Approve, Hook: hook, Store: store,
		Default: userSettings.DefaultProjectTrust, Interactive: interactive})
	if d.StoreErr != nil {
		fmt.Fprintln(l.stderr, "Warning:", d.StoreErr)
	}
	if !d.Prompt {
		return d.Trusted
	}
	trusted, err := askTrust(l.stdin, l.stdout, l.cwd, store)
	if err != nil {
		fmt.Fprintln(l.stderr, "Warning:", err)
	}
	return trusted
}

// maxTrustAnswer bounds the line read from the terminal.
const maxTrustAnswer = 256

// askTrust shows the project's protected resources and the trust choices
// and reads one answer; an empty or unreadable answer trusts nothing, for
// this session only. Saved choices go to trust.json.
func askTrust(in io.Reader, out io.Writer, cwd string, store *settings.TrustStore) (bool, error) {
	dir := config.Canonical(cwd)
	var found []string
	for _, e := range config.TrustRequiringProjectEntries() {
		if _, err := os.Stat(filepath.Join(config.Project{Cwd: dir}.Dir(), e)); err == nil {
			found = append(found, filepath.Join(config.DirName, e))
		}
	}
	if len(found) == 0 {
		found = append(found, filepath.Join(".agents", "skills"))
	}
	opts := settings.TrustOptions(dir, true)
	fmt.Fprintf(out, "Trust this project?\n  %s\n\nIt has project resources that load only when trusted: %s.\n"+
		"They can run code (extensions, packages) and change relay's settings.\n\n", dir, strings.Join(found, ", "))
	for i, o := range opts {
		fmt.Fprintf(out, "  %d. %s\n", i+1, o.Label)
	}
	fmt.Fprintf(out, "\nChoice [1-%d, Enter = do not trust for this session]: ", len(opts))
	line, err := readLine(in, maxTrustAnswer)
	fmt.Fprintln(out)
	if err != nil {
		return false, fmt.Errorf("trust prompt: %w", err)
	}
	n, convErr := strconv.Atoi(strings.TrimSpace(line))
	if strings.TrimSpace(line) == "" || convErr != nil || n < 1 || n > len(opts) {
		if strings.TrimSpace(line) != "" {
			fmt.Fprintf(out, "Not a choice: %q; the project is not trusted for this session.\n", strings.TrimSpace(line))
		}
		return false, nil
	}
	choice := opts[n-1]
	if len(choice.Updates) > 0 {
		if err := store.Set(choice.Updates...); err != nil {
			return choice.Trusted, fmt.Errorf("save trust decision: %w", err)
		}
	}
	return choice.Trusted, nil
}

// readLine reads up to a newline without reading past it (the TUI reads
// the same terminal next), at most max bytes.
func readLine(in io.Reader, max int) (string, error) {
	var b strings.Builder
	buf := make([]byte, 1)
	for b.Len() < max {
		n, err := in.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return strings.TrimSuffix(b.String(), "\r"), nil
			}
			b.WriteByte(buf[0])
		}
		if err == io.EOF {
			return b.String(), nil
		}
		if err != nil {
			return b.String(), err
		}
	}
	return b.String(), nil
}
