package resources

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// writeTree creates files (path -> content) under root.
func writeTree(t testing.TB, root string, files map[string]string) {
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

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func skillMD(name, desc string) string {
	s := "---\n"
	if name != "" {
		s += "name: " + name + "\n"
	}
	if desc != "" {
		s += "description: " + desc + "\n"
	}
	return s + "---\n# " + name + "\n\nBody of " + name + ".\n"
}

// env is a fresh agent dir, home and cwd (a git repo) under one temp dir.
type env struct{ root, agent, home, cwd string }

func newEnv(t testing.TB) env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := env{root: root, agent: filepath.Join(root, "agent"), home: filepath.Join(root, "home"), cwd: filepath.Join(root, "repo", "sub")}
	for _, d := range []string{e.agent, e.home, e.cwd, filepath.Join(root, "repo", ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e env) opts() Options {
	return Options{Cwd: e.cwd, AgentDir: e.agent, HomeDir: e.home, ProjectTrusted: true, SkillCommands: true}
}

func skillNames(s *Set) []string {
	var out []string
	for _, sk := range s.Skills {
		out = append(out, sk.Name)
	}
	return out
}
