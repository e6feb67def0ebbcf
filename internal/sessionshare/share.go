// Package sessionshare takes a session out of relay and brings one in:
// /export (HTML or JSONL), /share (a secret gist), /copy (the last answer
// to the clipboard) and /import. It registers those commands on the
// runtime's registry and works through the runtime's public API.
package sessionshare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/export"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// Runtime is what the commands need from the runtime core.
type Runtime interface {
	Session() *session.Manager
	ContextMessages() []llm.Message
	// SwitchSession opens the imported file.
	SwitchSession(path string) error
	// State tells whether the agent is busy (no import then).
	State() app.State
}

// Options locate the files the commands read and write.
type Options struct {
	// Cwd resolves relative paths and receives default exports.
	Cwd string
	// AgentDir holds settings (the export theme) and the session store.
	AgentDir string
	// Env is the environment read once by the CLI (clipboard, tmux,
	// RELAY_SHARE_VIEWER_URL).
	Env config.Env
}

// Feature is the registered command set.
type Feature struct {
	rt Runtime
	o  Options
}

// Register adds /export, /import, /copy and /share to cmds.
func Register(rt Runtime, cmds *commands.Registry, o Options) error {
	r := &Feature{rt: rt, o: o}
	text := func(f func(args string) (string, error)) commands.Handler {
		return func(_ context.Context, args string) (commands.Output, error) {
			t, err := f(args)
			return commands.Output{Text: t}, err
		}
	}
	for _, c := range []commands.Command{
		{Name: "export", Description: "Export the session to HTML or JSONL [path]", Run: text(func(arg string) (string, error) {
			p, err := r.exportSession(arg)
			if err != nil {
				return "", err
			}
			return "Session exported to: " + p, nil
		})},
		{Name: "import", Description: "Import and resume a session JSONL file", Run: func(_ context.Context, arg string) (commands.Output, error) {
			res, err := r.importSession(arg)
			if err != nil {
				return commands.Output{}, err
			}
			return commands.Output{Text: res.Text(), SessionReplaced: true}, nil
		}},
		{Name: "copy", Description: "Copy the last answer", Run: func(ctx context.Context, _ string) (commands.Output, error) {
			res, err := r.copyLastAssistant(ctx)
			if err != nil {
				return commands.Output{}, err
			}
			return commands.Output{Text: res.Message(), Terminal: res.OSC52}, nil
		}},
		{Name: "share", Description: "Share the session as a secret gist", Run: func(ctx context.Context, _ string) (commands.Output, error) {
			res, err := r.share(ctx)
			return commands.Output{Text: res.Text()}, err
		}},
	} {
		c.Source = commands.Builtin
		if err := cmds.Register(c); err != nil {
			return fmt.Errorf("session commands: %w", err)
		}
	}
	return nil
}

// ShareResult is a session uploaded by /share.
type ShareResult struct {
	GistURL string
	GistID  string
	// ViewerURL is <RELAY_SHARE_VIEWER_URL>#<gist id>, "" when the
	// variable is unset.
	ViewerURL string
}

// Text is the status message for the TUI.
func (s ShareResult) Text() string {
	if s.ViewerURL != "" {
		return "Share URL: " + s.ViewerURL + "\nGist: " + s.GistURL
	}
	return "Gist: " + s.GistURL
}

// Errors of /share that the TUI may want to tell apart.
var (
	ErrGHMissing     = errors.New("GitHub CLI (gh) is not installed. Install it from https://cli.github.com/")
	ErrGHNotLoggedIn = errors.New("GitHub CLI is not logged in. Run 'gh auth login' first.")
)

// Share implements /share: the session exported as HTML is uploaded as a
// secret gist with the GitHub CLI (`gh gist create --public=false`).
// Review the export first: it holds prompts, output and file contents.
func (r *Feature) share(ctx context.Context) (ShareResult, error) {
	gh, err := exec.LookPath("gh")
	if err != nil {
		return ShareResult{}, ErrGHMissing
	}
	if err := exec.CommandContext(ctx, gh, "auth", "status").Run(); err != nil {
		if ctx.Err() != nil {
			return ShareResult{}, ctx.Err()
		}
		return ShareResult{}, ErrGHNotLoggedIn
	}
	tmp, err := os.MkdirTemp("", "relay-share-")
	if err != nil {
		return ShareResult{}, fmt.Errorf("share: %w", err)
	}
	defer os.RemoveAll(tmp)
	file, err := export.SessionWith(r.rt.Session(), filepath.Join(tmp, "session.html"), r.exportOptions())
	if err != nil {
		return ShareResult{}, fmt.Errorf("Failed to export session: %w", err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, gh, "gist", "create", "--public=false", file)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ShareResult{}, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return ShareResult{}, fmt.Errorf("Failed to create gist: %s", msg)
	}
	url := lastLine(stdout.String())
	id := url[strings.LastIndex(url, "/")+1:]
	if url == "" || id == "" {
		return ShareResult{}, errors.New("Failed to parse gist ID from gh output")
	}
	res := ShareResult{GistURL: url, GistID: id}
	if base := r.o.Env.ShareViewerURL; base != "" {
		res.ViewerURL = base + "#" + id
	}
	return res, nil
}

// lastLine is the last non-empty line of s, trimmed (gh prints progress
// lines before the URL on some versions).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
