package packages

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relay-agent/relay/internal/settings"
)

// writeTree creates files (path -> content) below root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const skill = "---\nname: %s\ndescription: test skill\n---\nbody\n"

// conventional is a package without a manifest key.
var conventional = map[string]string{
	"package.json":              `{"name": "conv", "version": "1.0.0"}`,
	"extensions/a.ts":           "export default () => {}",
	"extensions/b.js":           "export default () => {}",
	"extensions/sub/index.ts":   "export default () => {}",
	"extensions/sub/helper.ts":  "",
	"extensions/.hidden.ts":     "",
	"skills/one/SKILL.md":       strings.ReplaceAll(skill, "%s", "one"),
	"skills/two/SKILL.md":       strings.ReplaceAll(skill, "%s", "two"),
	"prompts/review.md":         "Review",
	"prompts/nested/deep.md":    "Deep",
	"themes/night.json":         `{"name": "night", "colors": {}}`,
	"node_modules/dep/index.ts": "",
}

// manifested declares its resources under "relay" with globs and "!".
var manifested = map[string]string{
	"package.json":           `{"name": "man", "relay": {"extensions": ["./src/*.ts", "!src/legacy.ts"], "prompts": ["res/prompts"], "themes": ["res/themes/*.json"]}}`,
	"src/main.ts":            "",
	"src/legacy.ts":          "",
	"res/prompts/p1.md":      "",
	"res/themes/day.json":    "{}",
	"extensions/ignored.ts":  "", // conventional dirs do not count next to a manifest
	"skills/unused/SKILL.md": strings.ReplaceAll(skill, "%s", "unused"),
}

// piPackage uses the parent's "pi" key.
var piPackage = map[string]string{
	"package.json": `{"name": "pi-pkg", "pi": {"extensions": ["ext.ts"]}}`,
	"ext.ts":       "",
	"prompts/x.md": "",
}

type env struct {
	root, agent, cwd, home string
}

func newEnv(t *testing.T) env {
	root := t.TempDir()
	e := env{root: root, agent: filepath.Join(root, "agent"), cwd: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	for _, d := range []string{e.agent, e.cwd, e.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeTree(t, filepath.Join(root, "pkgs", "conv"), conventional)
	writeTree(t, filepath.Join(root, "pkgs", "man"), manifested)
	writeTree(t, filepath.Join(root, "pkgs", "pi"), piPackage)
	return e
}

func (e env) resolve(t *testing.T, user, project string, trusted bool) *Resolved {
	t.Helper()
	if user != "" {
		writeTree(t, e.agent, map[string]string{"settings.json": user})
	}
	if project != "" {
		writeTree(t, e.cwd, map[string]string{".relay/settings.json": project})
	}
	st, diags := settings.Load(settings.LoadOptions{AgentDir: e.agent, Cwd: e.cwd, ProjectTrusted: trusted})
	if len(diags) > 0 {
		t.Fatalf("settings: %v", diags)
	}
	m := &Manager{Cwd: e.cwd, AgentDir: e.agent, HomeDir: e.home, ProjectTrusted: trusted, Runner: failRunner{t}}
	return m.Resolve(context.Background(), st, ResolveOptions{Builtins: []string{"mcp"}})
}

// failRunner fails the test if resolving local packages runs a program.
type failRunner struct{ t *testing.T }

func (f failRunner) Run(_ context.Context, _, name string, args ...string) (string, error) {
	f.t.Errorf("unexpected command %s %v", name, args)
	return "", nil
}

// rel lists "kind:path[ off] (scope source)" relative to root.
func rel(root string, r *Resolved) []string {
	var out []string
	for _, k := range Kinds {
		for _, res := range r.Of(k) {
			p := res.Path
			if x, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(x, "..") {
				p = filepath.ToSlash(x)
			}
			s := k.String() + ":" + p
			if !res.Enabled {
				s += " off"
			}
			src := res.Meta.Source
			if res.Meta.Origin == OriginPackage {
				src = "pkg"
			}
			out = append(out, s+" ("+res.Meta.Scope+" "+src+")")
		}
	}
	return out
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name          string
		user, project string
		trusted       bool
		want          []string
		diag          string
		dirs          bool // conventional directories in the agent dir and project
	}{
		{
			name: "conventional directories",
			user: `{"packages": ["../pkgs/conv"]}`,
			want: []string{
				"extensions:pkgs/conv/extensions/a.ts (user pkg)", "extensions:pkgs/conv/extensions/b.js (user pkg)",
				"extensions:pkgs/conv/extensions/sub/index.ts (user pkg)", "extensions:builtin:mcp (user builtin)",
				"skills:pkgs/conv/skills/one/SKILL.md (user pkg)", "skills:pkgs/conv/skills/two/SKILL.md (user pkg)",
				"prompts:pkgs/conv/prompts/nested/deep.md (user pkg)", "prompts:pkgs/conv/prompts/review.md (user pkg)",
				"themes:pkgs/conv/themes/night.json (user pkg)",
			},
		},
		{
			name: "manifest globs and exclusions",
			user: `{"packages": ["../pkgs/man"]}`,
			want: []string{
				"extensions:pkgs/man/src/main.ts (user pkg)", "extensions:builtin:mcp (user builtin)",
				"prompts:pkgs/man/res/prompts/p1.md (user pkg)", "themes:pkgs/man/res/themes/day.json (user pkg)",
			},
		},
		{
			name: "pi key",
			user: `{"packages": ["../pkgs/pi"]}`,
			want: []string{"extensions:pkgs/pi/ext.ts (user pkg)", "extensions:builtin:mcp (user builtin)"},
		},
		{
			name: "filter: [] none, ! glob, + and - paths",
			user: `{"packages": [{"source": "../pkgs/conv", "extensions": ["extensions/*.ts", "!extensions/a.ts", "+extensions/b.js"], "skills": [], "prompts": ["-prompts/review.md"]}], "extensions": ["-builtin:mcp"]}`,
			want: []string{
				"extensions:pkgs/conv/extensions/a.ts off (user pkg)", "extensions:pkgs/conv/extensions/b.js (user pkg)",
				"extensions:pkgs/conv/extensions/sub/index.ts off (user pkg)", "extensions:builtin:mcp off (user builtin)",
				"skills:pkgs/conv/skills/one/SKILL.md off (user pkg)", "skills:pkgs/conv/skills/two/SKILL.md off (user pkg)",
				"prompts:pkgs/conv/prompts/nested/deep.md (user pkg)", "prompts:pkgs/conv/prompts/review.md off (user pkg)",
				"themes:pkgs/conv/themes/night.json (user pkg)",
			},
		},
		{
			name:    "project entry replaces the user entry of the same identity",
			user:    `{"packages": ["../pkgs/conv"]}`,
			project: `{"packages": [{"source": "../../pkgs/conv", "extensions": ["extensions/a.ts"], "skills": [], "prompts": [], "themes": []}], "extensions": ["+builtin:mcp"]}`,
			trusted: true,
			want: []string{
				"extensions:pkgs/conv/extensions/a.ts (project pkg)", "extensions:pkgs/conv/extensions/b.js off (project pkg)",
				"extensions:pkgs/conv/extensions/sub/index.ts off (project pkg)", "extensions:builtin:mcp (project builtin)",
				"skills:pkgs/conv/skills/one/SKILL.md off (project pkg)", "skills:pkgs/conv/skills/two/SKILL.md off (project pkg)",
				"prompts:pkgs/conv/prompts/nested/deep.md off (project pkg)", "prompts:pkgs/conv/prompts/review.md off (project pkg)",
				"themes:pkgs/conv/themes/night.json off (project pkg)",
			},
		},
		{
			name:    "autoload false filters the user entry",
			user:    `{"packages": ["../pkgs/conv"]}`,
			project: `{"packages": [{"source": "../../pkgs/conv", "autoload": false, "extensions": ["-extensions/a.ts"]}]}`,
			trusted: true,
			want: []string{
				"extensions:pkgs/conv/extensions/a.ts off (project pkg)", "extensions:pkgs/conv/extensions/b.js (user pkg)",
				"extensions:pkgs/conv/extensions/sub/index.ts (user pkg)", "extensions:builtin:mcp (user builtin)",
				"skills:pkgs/conv/skills/one/SKILL.md (user pkg)", "skills:pkgs/conv/skills/two/SKILL.md (user pkg)",
				"prompts:pkgs/conv/prompts/nested/deep.md (user pkg)", "prompts:pkgs/conv/prompts/review.md (user pkg)",
				"themes:pkgs/conv/themes/night.json (user pkg)",
			},
		},
		{
			name:    "untrusted project contributes nothing",
			project: `{"packages": ["../../pkgs/pi"]}`,
			want:    []string{"extensions:builtin:mcp (user builtin)"},
		},
		{
			name: "the last entry naming a built-in wins",
			user: `{"extensions": ["-builtin:mcp", "+builtin:mcp"]}`,
			want: []string{"extensions:builtin:mcp (user builtin)"},
		},
		{
			name: "missing local package is reported",
			user: `{"packages": ["../pkgs/nope"]}`,
			want: []string{"extensions:builtin:mcp (user builtin)"},
			diag: "package ../pkgs/nope: path does not exist",
		},
		{
			name: "malformed package.json falls back to conventional directories",
			user: `{"packages": ["../pkgs/bad"]}`,
			want: []string{"extensions:pkgs/bad/extensions/x.ts (user pkg)", "extensions:builtin:mcp (user builtin)"},
			diag: "package ../pkgs/bad: malformed",
		},
		{
			name: "settings entries and conventional directories",
			dirs: true,
			user: `{"extensions": ["../pkgs/pi/ext.ts"], "themes": ["!*.json", "+themes/keep.json"]}`,
			want: []string{
				"extensions:pkgs/pi/ext.ts (user local)", "extensions:agent/extensions/mine.ts (user auto)",
				"extensions:builtin:mcp (user builtin)",
				"themes:agent/themes/drop.json off (user auto)", "themes:agent/themes/keep.json (user auto)",
			},
		},
		{
			name:    "trusted project directories come first",
			dirs:    true,
			trusted: true,
			project: `{}`,
			want: []string{
				"extensions:proj/.relay/extensions/p.ts (project auto)", "extensions:agent/extensions/mine.ts (user auto)",
				"extensions:builtin:mcp (user builtin)",
				"themes:proj/.relay/themes/pt.json (project auto)",
				"themes:agent/themes/drop.json (user auto)", "themes:agent/themes/keep.json (user auto)",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			writeTree(t, filepath.Join(e.root, "pkgs", "bad"), map[string]string{"package.json": `{"name": `, "extensions/x.ts": ""})
			if tc.dirs {
				writeTree(t, e.agent, map[string]string{"extensions/mine.ts": "", "themes/keep.json": "{}", "themes/drop.json": "{}"})
				writeTree(t, e.cwd, map[string]string{".relay/extensions/p.ts": "", ".relay/themes/pt.json": "{}"})
			}
			r := e.resolve(t, tc.user, tc.project, tc.trusted)
			got := rel(e.root, r)
			sort.Strings(got)
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("resolved (-want +got):\n%s\ndiagnostics: %v", d, r.Diagnostics)
			}
			joined := strings.Join(r.Diagnostics, "\n")
			if tc.diag == "" && joined != "" || !strings.Contains(joined, tc.diag) {
				t.Errorf("diagnostics = %q, want %q", joined, tc.diag)
			}
		})
	}
}

// Precedence: project settings entries before project directories before
// user entries before user directories before packages before built-ins.
func TestResolveOrder(t *testing.T) {
	e := newEnv(t)
	writeTree(t, e.agent, map[string]string{"extensions/mine.ts": ""})
	writeTree(t, e.cwd, map[string]string{".relay/extensions/p.ts": "", "x/proj.ts": ""})
	r := e.resolve(t, `{"packages": ["../pkgs/pi"], "extensions": ["../pkgs/man/src/main.ts"]}`, `{"extensions": ["../x/proj.ts"]}`, true)
	var got []string
	for _, res := range r.Enabled(Extensions) {
		got = append(got, filepath.Base(res.Path))
	}
	want := []string{"proj.ts", "p.ts", "main.ts", "mine.ts", "ext.ts", "builtin:mcp"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	if pk := r.FromPackages(Extensions); len(pk) != 1 || pk[0].Meta.Source != "../pkgs/pi" || pk[0].Meta.PackageRoot != filepath.Join(e.root, "pkgs", "pi") {
		t.Errorf("FromPackages = %+v", pk)
	}
}
