package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
)

// openSession applies the session flags (sessions.md). A nil manager with
// code 0 means "done, exit successfully" (e.g. --resume listing).
//
// ask is the terminal to ask on (interactive mode only; nil otherwise).
func openSession(a *Args, st *settings.Settings, env config.Env, agentDir, cwd string, m mode, ask io.Reader, stdout, stderr io.Writer) (*session.Manager, int, error) {
	dir := session.ResolveDir(a.SessionDir, env.SessionDir, st.SessionDir, agentDir, cwd)
	allDirs := []string{dir, session.DefaultDir(agentDir, cwd), agentDir + "/sessions"}
	switch {
	case a.NoSession:
		return session.InMemory(cwd), 0, nil
	case a.Fork != "":
		src, err := findSessionArg(a.Fork, dir, allDirs)
		if err != nil {
			return nil, 1, err
		}
		if a.SessionID != "" {
			if err := session.ValidateSessionID(a.SessionID); err != nil {
				return nil, 1, err
			}
			if p := exactSession(a.SessionID, allDirs); p != "" {
				return nil, 1, fmt.Errorf("--session-id %s already exists (%s); pick another id for the fork", a.SessionID, p)
			}
		}
		s, err := session.ForkFrom(src, cwd, dir, a.SessionID)
		if err != nil {
			return nil, 1, err
		}
		return s, 0, nil
	case a.Session != "":
		path, err := findSessionArg(a.Session, dir, allDirs)
		if err != nil {
			return nil, 1, err
		}
		s, err := session.Open(path, "")
		if err != nil {
			return nil, 1, err
		}
		if s.Cwd() != "" && s.Cwd() != cwd && !isSessionPath(a.Session) {
			from := s.Cwd()
			s.Close()
			return crossProjectSession(a.Session, path, from, cwd, dir, ask, stderr)
		}
		if s.Cwd() != "" && s.Cwd() != cwd {
			fmt.Fprintf(stderr, "Note: session %s was started in %s\n", path, s.Cwd())
		}
		return s, 0, nil
	case a.SessionID != "":
		if err := session.ValidateSessionID(a.SessionID); err != nil {
			return nil, 1, err
		}
		if path, err := session.FindByID(a.SessionID, dir); err == nil {
			s, err := session.Open(path, "")
			return s, boolCode(err), err
		}
		fmt.Fprintf(stderr, "Warning: no session %s yet; creating it\n", a.SessionID)
		s, err := session.Create(cwd, dir, session.CreateOptions{ID: a.SessionID})
		return s, boolCode(err), err
	case a.Continue:
		s, err := session.ContinueRecent(cwd, dir)
		return s, boolCode(err), err
	case a.Resume && m != modeTUI:
		list, err := session.List(cwd, dir)
		if err != nil {
			return nil, 1, err
		}
		if len(list) == 0 {
			fmt.Fprintln(stdout, "No sessions for this directory.")
			return nil, 0, nil
		}
		for _, info := range list {
			label := info.Name
			if label == "" {
				label = oneLine(info.FirstMessage, 60)
			}
			fmt.Fprintf(stdout, "%s  %s  %3d msgs  %s\n    %s\n", info.Modified.Local().Format("2006-01-02 15:04"), info.ID, info.MessageCount, label, info.Path)
		}
		fmt.Fprintln(stdout, "Resume one with: relay --session <id or path>")
		return nil, 0, nil
	}
	s, err := session.Create(cwd, dir, session.CreateOptions{})
	return s, boolCode(err), err
}

// exactSession returns the file of the session whose id is exactly id, or
// "" (session.FindByID also accepts prefixes).
func exactSession(id string, dirs []string) string {
	p, err := session.FindByID(id, dirs...)
	if err != nil {
		return ""
	}
	base := strings.TrimSuffix(filepath.Base(p), ".jsonl")
	if _, fid, ok := strings.Cut(base, "_"); ok && fid == id {
		return p
	}
	return ""
}

func boolCode(err error) int {
	if err != nil {
		return 1
	}
	return 0
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}

// findSessionArg resolves --session PATH|ID in the order of
// upstream-spec-core.md §1.4: a path; else an exact id, then an id prefix,
// in this project's directory; else an exact id or prefix in every
// project.
func findSessionArg(arg, dir string, allDirs []string) (string, error) {
	if isSessionPath(arg) {
		return findSession(arg, nil)
	}
	p, err := session.FindByID(arg, dir)
	if err == nil {
		return p, nil
	}
	if strings.Contains(err.Error(), "ambiguous") {
		return "", fmt.Errorf("no session matches %q: %w", arg, err)
	}
	return findSession(arg, allDirs)
}

// crossProjectSession handles an id whose session was started in another
// directory (from): sessions
// belong to their project, so it is forked into this one. Interactive runs
// ask first (declining exits 0); without a terminal to ask on, relay
// refuses and names the explicit flag, rather than silently writing into
// another project's session or creating a fork nobody asked for.
func crossProjectSession(arg, path, from, cwd, dir string, ask io.Reader, stderr io.Writer) (*session.Manager, int, error) {
	if ask == nil {
		return nil, 1, fmt.Errorf("session %s belongs to another project (%s); use --fork %s to copy it into this directory", arg, from, arg)
	}
	fmt.Fprintf(stderr, "Session %s belongs to another project (%s).\nFork it into %s? [y/N] ", arg, from, cwd)
	line, _ := bufio.NewReader(ask).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
	default:
		return nil, 0, nil
	}
	s, err := session.ForkFrom(path, cwd, dir, "")
	if err != nil {
		return nil, 1, err
	}
	return s, 0, nil
}

func isSessionPath(arg string) bool {
	return strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl")
}

// findSession resolves PATH|ID: a path when it contains a separator or
// ends in .jsonl, else an exact id or unique id prefix.
func findSession(arg string, dirs []string) (string, error) {
	if isSessionPath(arg) {
		if _, err := os.Stat(arg); err != nil {
			return "", fmt.Errorf("session file not found: %s", arg)
		}
		return arg, nil
	}
	path, err := session.FindByID(arg, dirs...)
	if err != nil {
		return "", fmt.Errorf("no session matches %q: %w", arg, err)
	}
	return path, nil
}
