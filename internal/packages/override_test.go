package packages

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/relay-agent/relay/internal/settings"
)

// relay config's project mode: each resource the project sees cycles
// inherit -> (the opposite of what is inherited) -> the other override ->
// inherit, written to .relay/settings.json, and the project resolves
// accordingly; inherit leaves the project file as it was.
func TestProjectOverrideCycle(t *testing.T) {
	e := newEnv(t)
	writeTree(t, e.agent, map[string]string{"extensions/user.ts": "", "extensions/off.ts": ""})
	writeTree(t, e.cwd, map[string]string{".relay/extensions/proj.ts": "", ".relay/settings.json": `{"theme": "dark"}`})
	pkg := filepath.Join(e.root, "pkgs", "conv")
	writeTree(t, e.agent, map[string]string{"settings.json": `{"packages": ["` + pkg + `"], "extensions": ["-extensions/off.ts"]}`})
	original, _ := os.ReadFile(filepath.Join(e.cwd, ".relay", "settings.json"))

	userPaths := map[string]bool{}
	{
		st, _ := settings.Load(settings.LoadOptions{AgentDir: e.agent, Cwd: e.cwd})
		m := &Manager{Cwd: e.cwd, AgentDir: e.agent, HomeDir: e.home, Runner: failRunner{t}}
		for _, r := range m.Resolve(context.Background(), st, ResolveOptions{Builtins: []string{"mcp"}}).Of(Extensions) {
			userPaths[r.Path] = true
		}
	}
	resolve := func() (*Manager, map[string]Resource) {
		t.Helper()
		st, diags := settings.Load(settings.LoadOptions{AgentDir: e.agent, Cwd: e.cwd, ProjectTrusted: true})
		if len(diags) > 0 {
			t.Fatal(diags)
		}
		m := &Manager{Cwd: e.cwd, AgentDir: e.agent, HomeDir: e.home, ProjectTrusted: true, Runner: failRunner{t}}
		res := m.Resolve(context.Background(), st, ResolveOptions{Builtins: []string{"mcp"}})
		byName := map[string]Resource{}
		for _, r := range res.Of(Extensions) {
			byName[DisplayName(r, Extensions)] = r
		}
		return m, byName
	}
	for _, tc := range []struct {
		name      string
		inherited bool // enabled as the user settings leave it
		states    []string
	}{
		{name: "user.ts", inherited: true, states: []string{OverrideUnload, OverrideLoad, OverrideInherit}},
		{name: "off.ts", inherited: false, states: []string{OverrideLoad, OverrideUnload, OverrideInherit}},
		{name: "a.ts", inherited: true, states: []string{OverrideUnload, OverrideLoad, OverrideInherit}},    // a user package's
		{name: "proj.ts", inherited: true, states: []string{OverrideUnload, OverrideLoad, OverrideInherit}}, // the project's own
		{name: "mcp", inherited: true, states: []string{OverrideUnload, OverrideLoad, OverrideInherit}},     // built-in
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, rs := resolve()
			r, ok := rs[tc.name]
			if !ok {
				t.Fatalf("%s not resolved: %v", tc.name, rs)
			}
			if r.Enabled != tc.inherited {
				t.Fatalf("inherited enabled = %v", r.Enabled)
			}
			state, err := m.ProjectOverride(r, Extensions, userPaths[r.Path])
			if err != nil || state != OverrideInherit {
				t.Fatalf("initial state %q %v", state, err)
			}
			for _, want := range tc.states {
				next := NextOverride(state, tc.inherited)
				if next != want {
					t.Fatalf("after %s the cycle goes to %s, want %s", state, next, want)
				}
				if err := m.SetProjectOverride(r, Extensions, next, userPaths[r.Path]); err != nil {
					t.Fatal(err)
				}
				m, rs = resolve()
				r = rs[tc.name]
				if got, _ := m.ProjectOverride(r, Extensions, userPaths[r.Path]); got != want {
					data, _ := os.ReadFile(filepath.Join(e.cwd, ".relay", "settings.json"))
					t.Fatalf("state read back %q, want %q; project settings %s", got, want, data)
				}
				enabled := want == OverrideLoad || want == OverrideInherit && tc.inherited
				if r.Enabled != enabled {
					data, _ := os.ReadFile(filepath.Join(e.cwd, ".relay", "settings.json"))
					t.Fatalf("%s: enabled = %v, want %v; project settings %s", want, r.Enabled, enabled, data)
				}
				state = want
			}
			data, _ := os.ReadFile(filepath.Join(e.cwd, ".relay", "settings.json"))
			var got, want any
			json.Unmarshal(data, &got)
			json.Unmarshal(original, &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("back to inherit left the project settings changed:\n%s", data)
			}
		})
	}
}
