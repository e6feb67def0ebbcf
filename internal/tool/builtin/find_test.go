package builtin

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	env := grepTree(t)
	f := mustTool(t, "find", env)
	wantText(t, call(t, f, map[string]any{"pattern": "*.go"}), false, "src/main.go\nsrc/util/util.go")
	wantText(t, call(t, f, map[string]any{"pattern": "src/**/*.go"}), false, "src/main.go\nsrc/util/util.go")
	wantText(t, call(t, f, map[string]any{"pattern": "util/*.go"}), false, "src/util/util.go")
	wantText(t, call(t, f, map[string]any{"pattern": "util"}), false, "src/util/")
	wantText(t, call(t, f, map[string]any{"pattern": "*.log"}), false, "keep.log")
	wantText(t, call(t, f, map[string]any{"pattern": "*.txt", "path": "deep"}), false, "build/ok.txt")
	wantText(t, call(t, f, map[string]any{"pattern": "h.txt"}), false, ".hidden/h.txt")
	wantText(t, call(t, f, map[string]any{"pattern": "*.{go,dat}"}), false, "bin.dat\nsrc/main.go\nsrc/util/util.go")
	wantText(t, call(t, f, map[string]any{"pattern": "*.nothing"}), false, "No files found matching pattern")
	abs := filepath.ToSlash(filepath.Join(env.Cwd, "src")) + "/*.go"
	wantText(t, call(t, f, map[string]any{"pattern": abs}), false, "src/main.go")

	r := call(t, f, map[string]any{"pattern": "*", "limit": 2})
	if !strings.HasSuffix(text(r), "\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]") || strings.Count(text(r), "\n") != 3 {
		t.Errorf("limit: %q", text(r))
	}
	if d := detailsJSON(t, r); d != `{"resultLimitReached":2}` {
		t.Errorf("details %s", d)
	}
}

func TestFindErrors(t *testing.T) {
	env := newEnv(t)
	writeFile(t, env.Cwd, "file.txt", "")
	f := mustTool(t, "find", env)
	wantText(t, call(t, f, map[string]any{"pattern": "*", "path": "nope"}), true, "Path not found: "+filepath.Join(env.Cwd, "nope"))
	wantText(t, call(t, f, map[string]any{"pattern": "*", "path": "file.txt"}), true, "Not a directory: "+filepath.Join(env.Cwd, "file.txt"))
	wantText(t, call(t, f, map[string]any{"pattern": "[x"}), true, "Invalid glob pattern: [x")
	wantContains(t, call(t, f, map[string]any{"pattern": "*", "limit": -1}), true, "limit: expected a positive integer, got -1")
	wantContains(t, call(t, f, `{}`), true, "pattern: required string is missing")
}

func TestFindByteLimit(t *testing.T) {
	env := newEnv(t)
	for i := 0; i < 700; i++ {
		writeFile(t, env.Cwd, strings.Repeat("d", 90)+itoa(1000+i)+".txt", "")
	}
	r := call(t, mustTool(t, "find", env), map[string]any{"pattern": "*.txt"})
	if !strings.HasSuffix(text(r), "\n\n[50.0KB limit reached]") || !strings.Contains(detailsJSON(t, r), `"truncatedBy":"bytes"`) {
		t.Errorf("byte limit: %q", text(r)[len(text(r))-60:])
	}
}

func TestIgnorePatterns(t *testing.T) {
	pats := parseIgnore([]byte("# comment\n\n*.log\n!keep.log\nbuild/\n/root-only\ndocs/**/*.md\nname\n"))
	r := &ignoreRules{dir: "/r", pats: pats}
	for _, c := range []struct {
		abs   string
		isDir bool
		want  bool
	}{
		{"/r/a.log", false, true},
		{"/r/x/keep.log", false, false},
		{"/r/build", true, true},
		{"/r/build", false, false},
		{"/r/root-only", false, true},
		{"/r/sub/root-only", false, false},
		{"/r/docs/a/b.md", false, true},
		{"/r/x/name", true, true},
		{"/r/other.txt", false, false},
	} {
		if got := r.ignored(c.abs, filepath.Base(c.abs), c.isDir); got != c.want {
			t.Errorf("%s dir=%v: %v want %v", c.abs, c.isDir, got, c.want)
		}
	}
}
