package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
)

// writeSession writes a minimal session file (header, one user and one
// assistant message) for id started in cwd.
func writeSession(t *testing.T, dir, id, cwd string) string {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	p := filepath.Join(dir, "2026-01-01T00-00-00-000Z_"+id+".jsonl")
	body := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-01-01T00:00:00.000Z","cwd":%q}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hello","timestamp":1}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}
`, id, cwd)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type sessFixture struct {
	agentDir, cwd, other, projDir, otherDir string
}

func newSessFixture(t *testing.T) sessFixture {
	root := t.TempDir()
	f := sessFixture{agentDir: filepath.Join(root, "agent"), cwd: filepath.Join(root, "proj"), other: filepath.Join(root, "other")}
	f.projDir = session.DefaultDir(f.agentDir, f.cwd)
	f.otherDir = session.DefaultDir(f.agentDir, f.other)
	return f
}

func TestFindSessionArgOrder(t *testing.T) {
	f := newSessFixture(t)
	mine := writeSession(t, f.projDir, "abc-1", f.cwd)
	theirs := writeSession(t, f.otherDir, "abc-2", f.other)
	writeSession(t, f.projDir, "dup-1", f.cwd)
	writeSession(t, f.projDir, "dup-2", f.cwd)
	all := []string{f.projDir, filepath.Join(f.agentDir, "sessions")}
	tests := []struct {
		arg, want, err string
	}{
		{"abc", mine, ""},        // a prefix in this project beats one elsewhere
		{"abc-2", theirs, ""},    // exact id in another project
		{"abc-", mine, ""},       // still the project's prefix match
		{"dup", "", "ambiguous"}, // ambiguous in the project: no fallback
		{"nope", "", "no session"},
		{theirs, theirs, ""},
		{"missing.jsonl", "", "not found"},
	}
	for _, tt := range tests {
		got, err := findSessionArg(tt.arg, f.projDir, all)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.arg, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.arg, got, err, tt.want)
		}
	}
}

func TestOpenSessionCrossProject(t *testing.T) {
	f := newSessFixture(t)
	writeSession(t, f.otherDir, "far-away", f.other)
	st := &settings.Settings{}
	open := func(ask string, askSet bool) (*session.Manager, int, error, string) {
		var errOut bytes.Buffer
		a := &Args{Session: "far"}
		var r *strings.Reader
		if askSet {
			r = strings.NewReader(ask)
			s, code, err := openSession(a, st, config.Env{}, f.agentDir, f.cwd, modeTUI, r, &bytes.Buffer{}, &errOut)
			return s, code, err, errOut.String()
		}
		s, code, err := openSession(a, st, config.Env{}, f.agentDir, f.cwd, modePrint, nil, &bytes.Buffer{}, &errOut)
		return s, code, err, errOut.String()
	}
	// Non-interactive: refuse and name --fork.
	s, code, err, _ := open("", false)
	if s != nil || code != 1 || err == nil || !strings.Contains(err.Error(), "--fork far") {
		t.Fatalf("non-interactive: %v %d %v", s, code, err)
	}
	// Interactive, declined: exit 0, nothing opened.
	s, code, err, prompt := open("n\n", true)
	if s != nil || code != 0 || err != nil || !strings.Contains(prompt, "[y/N]") {
		t.Fatalf("declined: %v %d %v %q", s, code, err, prompt)
	}
	// Interactive, accepted: a fork in this project that keeps the history.
	s, code, err, _ = open("y\n", true)
	if s == nil || code != 0 || err != nil {
		t.Fatalf("accepted: %v %d %v", s, code, err)
	}
	defer s.Close()
	if s.Cwd() != f.cwd || s.SessionID() == "far-away" || s.LeafID() != "a2" {
		t.Fatalf("fork: cwd %s id %s leaf %s", s.Cwd(), s.SessionID(), s.LeafID())
	}
}

func TestForkWithExistingSessionID(t *testing.T) {
	f := newSessFixture(t)
	writeSession(t, f.projDir, "src", f.cwd)
	writeSession(t, f.projDir, "taken", f.cwd)
	st := &settings.Settings{}
	for _, tt := range []struct {
		id   string
		code int
	}{{"taken", 1}, {"bad id", 1}, {"tak", 0}} {
		s, code, err := openSession(&Args{Fork: "src", SessionID: tt.id}, st, config.Env{}, f.agentDir, f.cwd, modePrint, nil, &bytes.Buffer{}, &bytes.Buffer{})
		if code != tt.code {
			t.Errorf("%s: code %d err %v", tt.id, code, err)
		}
		if s != nil {
			if s.SessionID() != tt.id {
				t.Errorf("fork id %s, want %s", s.SessionID(), tt.id)
			}
			s.Close()
		}
	}
}

func TestForkPrefersThisProject(t *testing.T) {
	f := newSessFixture(t)
	mine := writeSession(t, f.projDir, "abc-1", f.cwd)
	writeSession(t, f.otherDir, "abc-2", f.other)
	s, code, err := openSession(&Args{Fork: "abc"}, &settings.Settings{}, config.Env{}, f.agentDir, f.cwd, modePrint, nil, &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil || code != 0 {
		t.Fatalf("fork: %d %v", code, err)
	}
	defer s.Close()
	if got := s.Header().ParentSession; got != mine {
		t.Errorf("forked from %q, want %q", got, mine)
	}
}
