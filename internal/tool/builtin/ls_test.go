package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLs(t *testing.T) {
	env := newEnv(t)
	ls := mustTool(t, "ls", env)
	for _, f := range []string{"b.txt", "A.txt", ".env", "_x", "10.txt", "c/d"} {
		writeFile(t, env.Cwd, f, "")
	}
	os.Symlink("nowhere", filepath.Join(env.Cwd, "broken-link"))
	os.Symlink("c", filepath.Join(env.Cwd, "link-to-dir"))
	wantText(t, call(t, ls, `{}`), false, ".env\n_x\n10.txt\nA.txt\nb.txt\nc/\nlink-to-dir/")
	r := call(t, ls, map[string]any{"limit": 2})
	wantText(t, r, false, ".env\n_x\n\n[2 entries limit reached. Use limit=4 for more]")
	if d := detailsJSON(t, r); d != `{"entryLimitReached":2}` {
		t.Errorf("details %s", d)
	}
	os.Mkdir(filepath.Join(env.Cwd, "empty"), 0o755)
	wantText(t, call(t, ls, map[string]any{"path": "empty"}), false, "(empty directory)")
	wantText(t, call(t, ls, map[string]any{"path": "nope"}), true, "Path not found: "+filepath.Join(env.Cwd, "nope"))
	wantText(t, call(t, ls, map[string]any{"path": "b.txt"}), true, "Not a directory: "+filepath.Join(env.Cwd, "b.txt"))
	wantContains(t, call(t, ls, map[string]any{"limit": -3}), true, "limit: expected a positive integer, got -3")

	big := filepath.Join(env.Cwd, "big")
	os.Mkdir(big, 0o755)
	for i := 0; i < 600; i++ {
		os.WriteFile(filepath.Join(big, strings.Repeat("n", 100)+itoa(1000+i)), nil, 0o644)
	}
	r = call(t, ls, map[string]any{"path": "big", "limit": 1000})
	if !strings.HasSuffix(text(r), "\n\n[50.0KB limit reached]") || !strings.Contains(detailsJSON(t, r), `"truncatedBy":"bytes"`) {
		t.Errorf("byte limit: %q", text(r)[len(text(r))-80:])
	}
	r = call(t, ls, map[string]any{"path": "big"})
	if !strings.HasSuffix(text(r), "\n\n[500 entries limit reached. Use limit=1000 for more. 50.0KB limit reached]") {
		t.Errorf("both limits: %q", text(r)[len(text(r))-100:])
	}
}
