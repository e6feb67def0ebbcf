package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/relay-agent/relay/internal/export"
)

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
func (r *Runtime) share(ctx context.Context) (ShareResult, error) {
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
	file, err := export.SessionWith(r.Session(), filepath.Join(tmp, "session.html"), r.exportOptions())
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
	if base := r.cfg.Env.ShareViewerURL; base != "" {
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
