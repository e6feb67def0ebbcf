package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/settings"
)

// trustProject is a project with a .relay/settings.json (a resource that
// waits for trust) and an agent dir.
func trustProject(t *testing.T) (proj, agent string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, agent = filepath.Join(root, "work", "proj"), filepath.Join(root, "agent")
	if err := os.MkdirAll(filepath.Join(proj, ".relay"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".relay", "settings.json"), []byte(`{"packages": ["../pkg"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return proj, agent
}

func TestAskTrust(t *testing.T) {
	for _, tc := range []struct {
		answer  string
		trusted bool
		saved   map[string]bool // dir (relative to the project's parent) -> decision
		note    string
	}{
		{answer: "1\n", trusted: true, saved: map[string]bool{"proj": true}},
		{answer: "2\r\n", trusted: true, saved: map[string]bool{".": true}},
		{answer: "3\n", trusted: true},
		{answer: "4\n", saved: map[string]bool{"proj": false}},
		{answer: "5\n"},
		{answer: "\n"},
		{answer: ""}, // EOF: nothing typed
		{answer: "yes please\n", note: `Not a choice: "yes please"`},
		{answer: "9\n", note: `Not a choice: "9"`},
	} {
		t.Run(strings.TrimSpace(tc.answer), func(t *testing.T) {
			proj, agent := trustProject(t)
			store := settings.NewTrustStore(agent)
			var out bytes.Buffer
			in := strings.NewReader(tc.answer + "left for the TUI")
			got, err := askTrust(in, &out, proj, store)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.trusted {
				t.Errorf("trusted = %v, want %v\n%s", got, tc.trusted, out.String())
			}
			if !strings.Contains(out.String(), ".relay/settings.json") || !strings.Contains(out.String(), "5. Do not trust (this session only)") {
				t.Errorf("prompt:\n%s", out.String())
			}
			if tc.note != "" && !strings.Contains(out.String(), tc.note) {
				t.Errorf("output %q lacks %q", out.String(), tc.note)
			}
			// The prompt reads one line only: the rest is the TUI's.
			if rest, _ := readLine(in, 100); tc.answer != "" && rest != "left for the TUI" {
				t.Errorf("prompt read past its line: rest %q", rest)
			}
			parent := filepath.Dir(proj)
			for _, dir := range []string{proj, parent} {
				rel, _ := filepath.Rel(parent, dir)
				want, wantSaved := tc.saved[rel]
				e, found, err := store.Lookup(dir)
				if err != nil {
					t.Fatal(err)
				}
				if found && e.Dir != config.Canonical(dir) {
					found = false // an ancestor's entry
				}
				if found != wantSaved || found && e.Trusted != want {
					t.Errorf("saved for %s: found %v %+v, want %v %v", rel, found, e, wantSaved, want)
				}
			}
		})
	}
}

// The order of security.md: the flag, then project_trust handlers (which
// may remember), then saved decisions, then defaultProjectTrust; "ask"
// prompts only in the TUI with a terminal.
func TestDecideTrust(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name     string
		flag     *bool
		hook     hooks.TrustResult
		saved    *bool
		def      string
		mode     mode
		trusted  bool
		remember bool
	}{
		{name: "default ask in print mode skips", mode: modePrint},
		{name: "default ask in the TUI without a terminal skips", mode: modeTUI},
		{name: "always loads", def: "always", mode: modePrint, trusted: true},
		{name: "saved beats the default", saved: &yes, def: "never", mode: modePrint, trusted: true},
		{name: "hook beats saved", saved: &yes, hook: hooks.TrustResult{Trusted: hooks.TrustNo}, mode: modePrint},
		{name: "hook remembers", hook: hooks.TrustResult{Trusted: hooks.TrustYes, Remember: true}, mode: modePrint, trusted: true, remember: true},
		{name: "flag beats the hook", flag: &yes, hook: hooks.TrustResult{Trusted: hooks.TrustNo}, mode: modePrint, trusted: true},
		{name: "no-approve beats saved", flag: &no, saved: &yes, mode: modePrint},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proj, agent := trustProject(t)
			if tc.def != "" {
				if err := os.MkdirAll(agent, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"defaultProjectTrust": "`+tc.def+`"}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			store := settings.NewTrustStore(agent)
			if tc.saved != nil {
				if err := store.Set(settings.TrustUpdate{Dir: proj, Decision: tc.saved}); err != nil {
					t.Fatal(err)
				}
			}
			var out, errb bytes.Buffer
			l := &launch{a: &Args{Approve: tc.flag}, cwd: proj, agentDir: agent, mode: tc.mode, seam: hooks.New(),
				stdin: strings.NewReader("1\n"), stdout: &out, stderr: &errb}
			if tc.hook.Trusted != hooks.TrustUndecided {
				l.seam.ProjectTrust.On("test", func(context.Context, *hooks.Trust) (hooks.TrustResult, error) { return tc.hook, nil })
			}
			if got := l.decideTrust(context.Background()); got != tc.trusted {
				t.Errorf("trusted = %v, want %v (stderr %s)", got, tc.trusted, errb.String())
			}
			if out.Len() != 0 {
				t.Errorf("prompted without a terminal: %s", out.String())
			}
			if tc.remember {
				if e, found, _ := store.Lookup(proj); !found || !e.Trusted {
					t.Errorf("remember did not save: %+v %v", e, found)
				}
			}
		})
	}
}
