package packages

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/settings"
)

// recorder answers npm view with a version and records every command.
type recorder struct {
	calls  []string
	latest string
	fail   bool
}

func (r *recorder) Run(_ context.Context, _, name string, args ...string) (string, error) {
	r.calls = append(r.calls, name+" "+strings.Join(args, " "))
	if r.fail {
		return "", errors.New("npm ERR! network request failed")
	}
	if len(args) > 0 && args[0] == "view" {
		return `"` + r.latest + `"`, nil
	}
	return "", nil
}

func TestUpdate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		source  string
		latest  string
		offline bool
		fail    bool
		want    string // the install command's spec, "" = none
		err     string
	}{
		{name: "pinned version is not updated", source: "npm:tools@1.0.0", latest: "2.0.0"},
		{name: "up to date", source: "npm:tools", latest: "1.0.0"},
		{name: "newer version installs latest", source: "npm:tools", latest: "1.1.0", want: "tools@latest"},
		{name: "range reinstalls its spec", source: "npm:tools@^1.0.0", latest: "1.2.0", want: "tools@^1.0.0"},
		{name: "offline does nothing", source: "npm:tools", latest: "9.0.0", offline: true},
		{name: "npm failing names the package", source: "npm:tools", fail: true, want: "tools@latest", err: "update npm:tools: npm ERR! network request failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			writeTree(t, filepath.Join(e.agent, "npm", "node_modules", "tools"), map[string]string{"package.json": `{"name": "tools", "version": "1.0.0"}`})
			writeTree(t, e.agent, map[string]string{"settings.json": `{"packages": ["` + tc.source + `"]}`})
			st, _ := settings.Load(settings.LoadOptions{AgentDir: e.agent})
			r := &recorder{latest: tc.latest, fail: tc.fail}
			m := &Manager{Cwd: e.cwd, AgentDir: e.agent, Offline: tc.offline, Runner: r}
			err := m.Update(context.Background(), st, "")
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			var installs []string
			for _, c := range r.calls {
				if strings.HasPrefix(c, "npm install ") {
					installs = append(installs, c)
				}
			}
			if tc.want == "" && len(installs) > 0 || tc.want != "" && (len(installs) != 1 || !strings.HasPrefix(installs[0], "npm install "+tc.want+" --prefix ")) {
				t.Errorf("commands %v, want an install of %q", r.calls, tc.want)
			}
			if tc.offline && len(r.calls) > 0 {
				t.Errorf("offline ran %v", r.calls)
			}
		})
	}
	// One unknown source is an error naming it.
	e := newEnv(t)
	st, _ := settings.Load(settings.LoadOptions{AgentDir: e.agent})
	m := &Manager{Cwd: e.cwd, AgentDir: e.agent, Runner: &recorder{}}
	if err := m.Update(context.Background(), st, "npm:nope"); err == nil || err.Error() != "no matching package found for npm:nope" {
		t.Errorf("unknown source: %v", err)
	}
}

// npmCommand picks the package manager's install arguments.
func TestNpmCommand(t *testing.T) {
	for _, tc := range []struct {
		cmd  []string
		want string
	}{
		{nil, "npm install x --prefix /r --legacy-peer-deps"},
		{[]string{"pnpm"}, "pnpm install x --prefix /r --config.auto-install-peers=false --config.strict-peer-dependencies=false --config.strict-dep-builds=false"},
		{[]string{"bun"}, "bun install x --cwd /r --omit=peer"},
		{[]string{"mise", "exec", "--", "npm"}, "mise exec -- npm install x --prefix /r --legacy-peer-deps"},
	} {
		r := &recorder{}
		m := &Manager{NpmCommand: tc.cmd, Runner: r}
		if _, err := m.npm(context.Background(), "", m.installArgs("/r", "x")...); err != nil {
			t.Fatal(err)
		}
		if got := r.calls[0]; got != tc.want {
			t.Errorf("%v: %q, want %q", tc.cmd, got, tc.want)
		}
	}
}
