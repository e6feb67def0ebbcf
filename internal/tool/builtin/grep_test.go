package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func grepTree(t *testing.T) Env {
	env := newEnv(t)
	os.Mkdir(filepath.Join(env.Cwd, ".git"), 0o755)
	files := map[string]string{
		".gitignore":                "node_modules/\n*.log\n/build\n!keep.log\n",
		"src/main.go":               "package main\n\nfunc main() {\n\tprintln(\"needle\")\n}\n",
		"src/util/util.go":          "package util\n\n// Needle in comments\nfunc Helper() {}\n",
		"src/util/.gitignore":       "gen_*.go\n",
		"src/util/gen_x.go":         "needle generated\n",
		"node_modules/dep/index.js": "needle in deps\n",
		"app.log":                   "needle in log\n",
		"keep.log":                  "needle kept\n",
		"build/out.txt":             "needle built\n",
		"deep/build/ok.txt":         "needle deep build\n",
		".hidden/h.txt":             "needle hidden\n",
		"crlf.txt":                  "needle\r\nnext\r\n",
		"bin.dat":                   "needle\x00binary",
		"latin1.txt":                "caf\xe9 needle\n",
	}
	for p, c := range files {
		writeFile(t, env.Cwd, p, c)
	}
	writeFile(t, env.Cwd, ".git/info/exclude", "excluded.txt\n")
	writeFile(t, env.Cwd, "excluded.txt", "needle excluded\n")
	writeFile(t, env.Cwd, ".git/config", "needle in git dir\n")
	return env
}

func TestGrepIgnoreRules(t *testing.T) {
	env := grepTree(t)
	g := mustTool(t, "grep", env)
	wantText(t, call(t, g, map[string]any{"pattern": "needle"}), false, strings.Join([]string{
		".hidden/h.txt:1: needle hidden",
		"crlf.txt:1: needle",
		"deep/build/ok.txt:1: needle deep build",
		"keep.log:1: needle kept",
		"latin1.txt:1: caf\xe9 needle",
		"src/main.go:4: \tprintln(\"needle\")",
	}, "\n"))
	wantText(t, call(t, g, map[string]any{"pattern": "NEEDLE", "ignoreCase": true, "path": "src"}), false,
		"main.go:4: \tprintln(\"needle\")\nutil/util.go:3: // Needle in comments")
	wantText(t, call(t, g, map[string]any{"pattern": "needle", "path": "src/main.go"}), false, "main.go:4: \tprintln(\"needle\")")
	wantText(t, call(t, g, map[string]any{"pattern": "needle", "path": "src/util"}), false, "No matches found")
}

func TestGrepRegexAndOptions(t *testing.T) {
	env := newEnv(t)
	writeFile(t, env.Cwd, "a.go", "func Alpha() {}\nfunc beta() {}\nvar x = a.b\n// func Gamma\n")
	writeFile(t, env.Cwd, "b.ts", "function Alpha() {}\n")
	g := mustTool(t, "grep", env)
	wantText(t, call(t, g, map[string]any{"pattern": `^func [A-Z]\w+`}), false, "a.go:1: func Alpha() {}")
	wantText(t, call(t, g, map[string]any{"pattern": `\(\) \{\}$`, "glob": "*.go"}), false, "a.go:1: func Alpha() {}\na.go:2: func beta() {}")
	wantText(t, call(t, g, map[string]any{"pattern": "a.b", "literal": true}), false, "a.go:3: var x = a.b")
	wantText(t, call(t, g, map[string]any{"pattern": "alpha", "ignoreCase": true, "glob": "!*.go"}), false, "b.ts:1: function Alpha() {}")
	wantText(t, call(t, g, map[string]any{"pattern": "Alpha", "glob": "**/*.ts"}), false, "b.ts:1: function Alpha() {}")
	wantText(t, call(t, g, map[string]any{"pattern": `beta`, "context": 1}), false, "a.go-1- func Alpha() {}\na.go:2: func beta() {}\na.go-3- var x = a.b")
	wantText(t, call(t, g, map[string]any{"pattern": `Gamma`, "context": 2}), false, "a.go-2- func beta() {}\na.go-3- var x = a.b\na.go:4: // func Gamma\na.go-5- ")
	wantText(t, call(t, g, map[string]any{"pattern": `x\s+=`}), false, "a.go:3: var x = a.b")
}

func TestGrepLimitsAndNotices(t *testing.T) {
	env := newEnv(t)
	writeFile(t, env.Cwd, "many.txt", lines("hit ", 1, 300))
	g := mustTool(t, "grep", env)
	r := call(t, g, map[string]any{"pattern": "hit", "limit": 3})
	wantText(t, r, false, "many.txt:1: hit 1\nmany.txt:2: hit 2\nmany.txt:3: hit 3\n\n[3 matches limit reached. Use limit=6 for more, or refine pattern]")
	if d := detailsJSON(t, r); d != `{"matchLimitReached":3}` {
		t.Errorf("details %s", d)
	}
	r = call(t, g, map[string]any{"pattern": "hit"})
	if !strings.HasSuffix(text(r), "many.txt:100: hit 100\n\n[100 matches limit reached. Use limit=200 for more, or refine pattern]") {
		t.Errorf("default limit: %q", text(r)[len(text(r))-100:])
	}
	writeFile(t, env.Cwd, "long.txt", "zz"+strings.Repeat("y", 600)+"\n")
	r = call(t, g, map[string]any{"pattern": "zz"})
	wantText(t, r, false, "long.txt:1: zz"+strings.Repeat("y", 498)+"... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]")
	if d := detailsJSON(t, r); d != `{"linesTruncated":true}` {
		t.Errorf("details %s", d)
	}
	writeFile(t, env.Cwd, "wide.txt", strings.Repeat("ww"+strings.Repeat("q", 400)+"\n", 200))
	r = call(t, g, map[string]any{"pattern": "ww", "limit": 1000})
	if !strings.HasSuffix(text(r), "\n\n[50.0KB limit reached]") {
		t.Errorf("byte limit: %q", text(r)[len(text(r))-80:])
	}
}

func TestGrepErrors(t *testing.T) {
	env := newEnv(t)
	g := mustTool(t, "grep", env)
	wantText(t, call(t, g, map[string]any{"pattern": "x", "path": "missing"}), true, "Path not found: "+filepath.Join(env.Cwd, "missing"))
	wantText(t, call(t, g, map[string]any{"pattern": "(unclosed"}), true,
		"Invalid regex pattern: error parsing regexp: missing closing ): `(?m)(unclosed`. Use literal=true to search for the text as-is.")
	wantText(t, call(t, g, map[string]any{"pattern": "x", "glob": "[a-"}), true, "Invalid glob pattern: [a-")
	wantContains(t, call(t, g, map[string]any{"pattern": "x", "limit": 0}), true, "limit: expected a positive integer, got 0")
	wantContains(t, call(t, g, map[string]any{"pattern": "x", "context": -1}), true, "context: expected a non-negative integer, got -1")
	wantContains(t, call(t, g, `{"pattern":["x"]}`), true, "pattern: expected a string, got an array")
}

func TestRequiredLiterals(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{`func\s+\w+Handler`, "Handler"},
		{`(?m)^import "fmt"`, `import "fmt"`},
		{`foo|bar`, "foo,bar"},
		{`(Get|Set)Value\(`, "Value("},
		{`(abc)+x`, "abc"},
		{`(abc)+[xy]`, "abc"},
		{`(?i)abc`, ""},
		{`(?i)123`, "123"},
		{`a b`, "a b"},
		{` +`, ""},
		{`foo|\d+`, ""},
	} {
		m, err := newLineMatcher(c.expr, false, false)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range m.finds {
			got = append(got, string(f.needle))
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("%s: %q want %q", c.expr, got, c.want)
		}
	}
}

func TestGrepMultilineMatchesStayOnTheirLine(t *testing.T) {
	env := newEnv(t)
	writeFile(t, env.Cwd, "m.txt", "a\nb c\nb\nxa b\n")
	wantText(t, call(t, mustTool(t, "grep", env), map[string]any{"pattern": `a\s+b`}), false, "m.txt:4: xa b")
	wantText(t, call(t, mustTool(t, "grep", env), map[string]any{"pattern": `b\s*$`}), false, "m.txt:3: b\nm.txt:4: xa b")
	writeFile(t, env.Cwd, "bad.txt", "\xff\xfe start\nmiddle caf\xe9\nend 42\n")
	wantText(t, call(t, mustTool(t, "grep", env), map[string]any{"pattern": `end \d+`, "path": "bad.txt"}), false, "bad.txt:3: end 42")
}
