package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
)

// openSession applies the session flags (sessions.md). A nil manager with
// code 0 means "done, exit successfully" (e.g. --resume listing).
func openSession(a *Args, st *settings.Settings, agentDir, cwd string, m mode, stdout, stderr io.Writer) (*session.Manager, int, error) {
	dir := session.ResolveDir(a.SessionDir, os.Getenv("RELAY_CODING_AGENT_SESSION_DIR"), st.SessionDir, agentDir, cwd)
	allDirs := []string{dir, session.DefaultDir(agentDir, cwd), agentDir + "/sessions"}
	switch {
	case a.NoSession:
		return session.InMemory(cwd), 0, nil
	case a.Fork != "":
		src, err := findSession(a.Fork, cwd, allDirs)
		if err != nil {
			return nil, 1, err
		}
		s, err := session.ForkFrom(src, cwd, dir, a.SessionID)
		if err != nil {
			return nil, 1, err
		}
		return s, 0, nil
	case a.Session != "":
		path, err := findSession(a.Session, cwd, allDirs)
		if err != nil {
			return nil, 1, err
		}
		s, err := session.Open(path, "")
		if err != nil {
			return nil, 1, err
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

// findSession resolves PATH|ID: a path when it contains a separator or
// ends in .jsonl, else an exact id or unique id prefix.
func findSession(arg, cwd string, dirs []string) (string, error) {
	if strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl") {
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
