package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
