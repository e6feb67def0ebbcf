package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/tui"
)

// relay config without a terminal prints the resources; toggling through
// a scope's Toggle writes "+path" / "-path" entries that the next resolve
// honours.
func TestConfigCommand(t *testing.T) {
	e := newPkgEnv(t)
	copyDir(t, filepath.Join(testdataDir, "pkg-demo"), filepath.Join(e.root, "pkg-demo"))
	if err := os.MkdirAll(filepath.Join(e.agent, "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.agent, "prompts", "mine.md"), []byte("Mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.mustRelay(t, "install", "../pkg-demo")
	golden(t, "config.golden", e.mustRelay(t, "config"))

	scopes := configScopes(context.Background(), e.proj, e.agent, true, true, os.Stderr)
	if len(scopes) != 2 {
		t.Fatalf("scopes = %d, want user and project", len(scopes))
	}
	user := scopes[0]
	toggle := func(name string, on bool) {
		t.Helper()
		for _, it := range user.Items {
			if it.Name == name {
				if err := user.Toggle(it, on); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
		t.Fatalf("no item %s", name)
	}
	toggle("demo.ts", false)
	toggle("demo", false) // the package's skill
	toggle("mine.md", false)
	toggle("mcp", false)
	s := e.userSettings(t)
	for _, want := range []string{`"source": "../pkg-demo"`, `"-extensions/demo.ts"`, `"-skills/demo/SKILL.md"`, `"-prompts/mine.md"`, `"-builtin:mcp"`} {
		if !strings.Contains(s, want) {
			t.Errorf("settings lack %s:\n%s", want, s)
		}
	}
	golden(t, "config-toggled.golden", e.mustRelay(t, "config"))
	toggle("demo.ts", true)
	if s := e.userSettings(t); !strings.Contains(s, `"+extensions/demo.ts"`) || strings.Contains(s, `"-extensions/demo.ts"`) {
		t.Errorf("re-enable: %s", s)
	}
	if _, errOut, code := e.relay(t, "config", "--bogus"); code != 1 || !strings.Contains(errOut, "unknown option --bogus") {
		t.Errorf("bad option: %d %q", code, errOut)
	}
}

// The project mode of relay config: Space cycles a user extension through
// a project unload, a project load and back to inherited, writing the
// project's settings, which the next resolve honours.
func TestConfigProjectCycle(t *testing.T) {
	e := newPkgEnv(t)
	for _, f := range []string{filepath.Join(e.agent, "extensions", "user.ts"), filepath.Join(e.proj, ".relay", "extensions", "proj.ts")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("export default () => {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	project := func() tui.ConfigScope {
		t.Helper()
		scopes := configScopes(context.Background(), e.proj, e.agent, true, true, os.Stderr)
		if len(scopes) != 2 || scopes[1].Cycle == nil {
			t.Fatalf("no project mode: %d scopes", len(scopes))
		}
		return scopes[1]
	}
	item := func(sc tui.ConfigScope, name string) tui.ConfigItem {
		t.Helper()
		for _, it := range sc.Items {
			if it.Name == name {
				return it
			}
		}
		t.Fatalf("no item %s", name)
		return tui.ConfigItem{}
	}
	sc := project()
	it := item(sc, "user.ts")
	if !it.Inherited || it.Override != "inherit" || !it.Enabled || item(sc, "proj.ts").Inherited {
		t.Fatalf("initial rows %+v / %+v", it, item(sc, "proj.ts"))
	}
	for _, want := range []struct {
		override string
		enabled  bool
	}{{"unload", false}, {"load", true}, {"inherit", true}} {
		got, err := sc.Cycle(it)
		if err != nil {
			t.Fatal(err)
		}
		if got.Override != want.override || got.Enabled != want.enabled {
			t.Fatalf("cycle gave %s/%v, want %s/%v", got.Override, got.Enabled, want.override, want.enabled)
		}
		// A fresh resolve (what the next run sees) agrees.
		sc = project()
		it = item(sc, "user.ts")
		if it.Override != want.override || it.Enabled != want.enabled {
			data, _ := os.ReadFile(filepath.Join(e.proj, ".relay", "settings.json"))
			t.Fatalf("resolved again: %s/%v, want %s/%v; project settings %s", it.Override, it.Enabled, want.override, want.enabled, data)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(e.proj, ".relay", "settings.json")); strings.Contains(string(data), "user.ts") {
		t.Errorf("inherit left an entry: %s", data)
	}
}
