package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
)

const sessionsUsage = `Usage:
  relay sessions list [--all] [--json]
  relay sessions show FILE|ID [--context] [--leaf ID] [--json]
  relay sessions check FILE|ID

Options:
  --session-dir DIR   session directory (else RELAY_CODING_AGENT_SESSION_DIR,
                      else <agent dir>/sessions/--<cwd>--)
  --all               sessions of every project
  --json              machine-readable output
  --context           the model-visible messages of the active branch, as a
                      JSON array (exactly what the next request is built from)
  --leaf ID           use entry ID as the leaf instead of the file's last entry
`

type sessionsArgs struct {
	cmd, target, leaf, sessionDir string
	all, json, context            bool
}

func parseSessionsArgs(args []string) (sessionsArgs, error) {
	var a sessionsArgs
	var pos []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, val, hasVal := strings.Cut(arg, "=")
		value := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name {
		case "--all":
			a.all = true
		case "--json":
			a.json = true
		case "--context":
			a.context = true
		case "--leaf":
			a.leaf, err = value()
		case "--session-dir":
			a.sessionDir, err = value()
		case "-h", "--help":
			return a, errSessionsHelp
		default:
			if strings.HasPrefix(arg, "-") && arg != "-" {
				return a, fmt.Errorf("unknown option %s", arg)
			}
			pos = append(pos, arg)
		}
		if err != nil {
			return a, err
		}
	}
	if len(pos) == 0 {
		return a, errSessionsHelp
	}
	a.cmd = pos[0]
	switch a.cmd {
	case "list":
		if len(pos) != 1 {
			return a, fmt.Errorf("list takes no arguments")
		}
	case "show", "check":
		if len(pos) != 2 {
			return a, fmt.Errorf("%s needs one FILE or session ID", a.cmd)
		}
		a.target = pos[1]
	default:
		return a, fmt.Errorf("unknown sessions command %q", a.cmd)
	}
	return a, nil
}

var errSessionsHelp = errors.New("help")

// sessionsAgentDir is RELAY_CODING_AGENT_DIR, else ~/.relay/agent.
func sessionsAgentDir(env config.Env) string {
	if d, err := env.AgentDir(); err == nil {
		return d
	}
	return filepath.Join(".relay", "agent")
}

// runSessions implements `relay sessions ...`. Exit codes: 0 ok, 1 failure
// (or an unsound file for check), 2 usage error.
func runSessions(ctx context.Context, args []string, env config.Env, stdout, stderr io.Writer) int {
	_ = ctx
	a, err := parseSessionsArgs(args)
	if errors.Is(err, errSessionsHelp) {
		fmt.Fprint(stdout, sessionsUsage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n\n%s", err, sessionsUsage)
		return 2
	}
	cwd, _ := os.Getwd()
	agent := sessionsAgentDir(env)
	// Only sessionDir matters here; it is read before project trust, as
	// the settings package does for every mode.
	st, _ := settings.Load(settings.LoadOptions{AgentDir: agent, Cwd: cwd})
	dir := session.ResolveDir(a.sessionDir, env.SessionDir, st.SessionDir, agent, cwd)
	custom := a.sessionDir != "" || env.SessionDir != "" || st.SessionDir != ""
	root := filepath.Join(agent, "sessions")
	if custom {
		root = dir
	}
	switch a.cmd {
	case "list":
		return sessionsList(a, cwd, dir, root, stdout, stderr)
	case "show":
		return sessionsShow(a, dir, root, stdout, stderr)
	default:
		return sessionsCheck(a, dir, root, stdout, stderr)
	}
}

func sessionsList(a sessionsArgs, cwd, dir, root string, stdout, stderr io.Writer) int {
	var infos []session.SessionInfo
	var err error
	if a.all {
		infos, err = session.ListAll(root)
	} else {
		infos, err = session.List(cwd, dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	if a.json {
		if infos == nil {
			infos = []session.SessionInfo{}
		}
		b, _ := llm.Marshal(infos)
		stdout.Write(append(b, '\n'))
		return 0
	}
	if len(infos) == 0 {
		fmt.Fprintln(stderr, "No sessions.")
		return 0
	}
	for _, in := range infos {
		title := in.Name
		if title == "" {
			title = in.FirstMessage
		}
		title = sessOneLine(title, 70)
		where := ""
		if a.all {
			where = "  " + in.Cwd
		}
		fmt.Fprintf(stdout, "%s  %s  %4d msgs%s  %s\n", in.Modified.Local().Format("2006-01-02 15:04"), in.ID, in.MessageCount, where, title)
	}
	return 0
}

func sessOneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = string(r[:max-1]) + "…"
	}
	return s
}

// resolveTarget accepts a file path, or a session id or id prefix looked up
// in the session directory and then every project.
func resolveSessionTarget(target, dir, root string) (string, error) {
	if st, err := os.Stat(target); err == nil && !st.IsDir() {
		return target, nil
	}
	if strings.ContainsAny(target, `/\`) || strings.HasSuffix(target, ".jsonl") {
		return target, nil // a path: let the reader name the problem
	}
	return session.FindByID(target, dir, root)
}

func printSessionProblems(w io.Writer, ps []session.Problem) {
	for _, p := range ps {
		fmt.Fprintln(w, p.String())
	}
}

func sessionsShow(a sessionsArgs, dir, root string, stdout, stderr io.Writer) int {
	path, err := resolveSessionTarget(a.target, dir, root)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	m, err := session.Load(path)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	printSessionProblems(stderr, m.Problems())
	if a.leaf != "" {
		if err := m.SetLeaf(a.leaf); err != nil {
			fmt.Fprintf(stderr, "Error: %s: %v\n", path, err)
			return 1
		}
	}
	if a.context {
		before := len(m.Problems())
		msgs := m.BuildSessionContext().Messages
		printSessionProblems(stderr, m.Problems()[before:]) // messages that failed to decode
		var buf bytes.Buffer
		buf.WriteString("[")
		for i, msg := range msgs {
			b, err := llm.Marshal(msg)
			if err != nil {
				fmt.Fprintf(stderr, "Error: encode message %d: %v\n", i, err)
				return 1
			}
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString("\n")
			buf.Write(b)
		}
		if len(msgs) > 0 {
			buf.WriteString("\n")
		}
		buf.WriteString("]\n")
		stdout.Write(buf.Bytes())
		return 0
	}
	entries := m.Branch("")
	if a.leaf == "" {
		entries = m.Entries()
	}
	if a.json {
		var buf bytes.Buffer
		buf.WriteString("[\n")
		buf.Write(m.Header().Raw())
		for _, e := range entries {
			buf.WriteString(",\n")
			buf.Write(e.Raw())
		}
		buf.WriteString("\n]\n")
		stdout.Write(buf.Bytes())
		return 0
	}
	h := m.Header()
	fmt.Fprintf(stdout, "session %s  v%d  cwd %s  created %s\n", h.ID, h.Version, h.Cwd, h.Timestamp)
	if h.ParentSession != "" {
		fmt.Fprintf(stdout, "parent  %s\n", h.ParentSession)
	}
	if n := m.Name(); n != "" {
		fmt.Fprintf(stdout, "name    %s\n", n)
	}
	leaf := m.LeafID()
	for _, e := range entries {
		mark := " "
		if e.ID == leaf {
			mark = "*"
		}
		parent := e.ParentID
		if parent == "" {
			parent = "-"
		}
		fmt.Fprintf(stdout, "%s%5d  %-8s <- %-8s  %s  %s\n", mark, e.Line, e.ID, parent, e.Time().Local().Format(time.DateTime), summarizeEntry(m, e))
	}
	return 0
}

func summarizeEntry(m *session.Manager, e *session.Entry) string {
	var s string
	switch e.Type {
	case session.TypeMessage:
		msg, err := e.Message()
		if err != nil {
			return "message (undecodable: " + err.Error() + ")"
		}
		s = e.Role() + ": " + sessMessagePreview(msg)
	case session.TypeModelChange:
		mc := e.ModelChange()
		s = "model_change " + mc.Provider + "/" + mc.ModelID
	case session.TypeThinkingLevelChange:
		s = "thinking_level_change " + e.ThinkingLevelChange().ThinkingLevel
	case session.TypeUsage:
		u := e.Usage()
		s = fmt.Sprintf("usage %s %s/%s %d tokens", u.Kind, u.Provider, u.Model, u.Usage.TotalTokens)
	case session.TypeCompaction:
		c := e.Compaction()
		s = fmt.Sprintf("compaction (kept from %s, %d tokens before): %s", c.FirstKeptEntryID, c.TokensBefore, c.Summary)
	case session.TypeContextEdit:
		ce := e.ContextEdit()
		if ce.Replacement == nil {
			s = "context_edit omit " + ce.TargetID
		} else {
			s = "context_edit replace " + ce.TargetID + ": " + ce.Replacement.PlainText()
		}
	case session.TypeBranchSummary:
		s = "branch_summary from " + e.BranchSummary().FromID + ": " + e.BranchSummary().Summary
	case session.TypeCustom:
		s = "custom " + e.Custom().CustomType
	case session.TypeCustomMessage:
		s = "custom_message " + e.CustomMessage().CustomType + ": " + e.CustomMessage().Content.PlainText()
	case session.TypeLabel:
		l := e.Label()
		if l.Label == nil {
			s = "label cleared on " + l.TargetID
		} else {
			s = "label " + *l.Label + " on " + l.TargetID
		}
	case session.TypeSessionInfo:
		si := e.SessionInfo()
		s = "session_info"
		if si.Name != nil {
			s += " name " + *si.Name
		}
	default:
		s = e.Type
	}
	if l := m.Label(e.ID); l != "" {
		s = "[" + l + "] " + s
	}
	return sessOneLine(s, 100)
}

func sessMessagePreview(msg llm.Message) string {
	switch v := msg.(type) {
	case *llm.SystemMessage:
		if t := v.Content.PlainText(); t != "" {
			return t
		}
		names := make([]string, 0, len(v.Sections))
		for _, s := range v.Sections {
			names = append(names, s.Name)
		}
		return fmt.Sprintf("sections %s, +%d tools, -%d tools", strings.Join(names, ","), len(v.ToolsAdded), len(v.ToolsRemoved))
	case *llm.UserMessage:
		return v.Content.PlainText()
	case *llm.AssistantMessage:
		t := v.Text()
		for _, tc := range v.ToolCalls() {
			t += " [" + tc.Name + "]"
		}
		return fmt.Sprintf("%s/%s %s: %s", v.Provider, v.Model, v.StopReason, t)
	case *llm.ToolResultMessage:
		return v.ToolName + ": " + v.Content.PlainText()
	case *llm.BashExecutionMessage:
		return "$ " + v.Command
	case *llm.CustomMessage:
		return v.CustomType + ": " + v.Content.PlainText()
	}
	return ""
}

func sessionsCheck(a sessionsArgs, dir, root string, stdout, stderr io.Writer) int {
	path, err := resolveSessionTarget(a.target, dir, root)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	r, err := session.Check(path)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	printSessionProblems(stdout, r.Problems)
	if !r.Sound() {
		fmt.Fprintf(stdout, "%s: unsound (%d entries)\n", path, r.Entries)
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok (version %d, %d entries)\n", path, r.Header.Version, r.Entries)
	return 0
}
