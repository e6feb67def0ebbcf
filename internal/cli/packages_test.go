package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/packages"
	"github.com/relay-agent/relay/internal/settings"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files")

// testdataDir is absolute: package tests change the working directory.
var testdataDir, _ = filepath.Abs("testdata")

// pkgEnv is a scratch agent dir and project for package commands.
type pkgEnv struct {
	root, agent, proj string
}

func newPkgEnv(t *testing.T) pkgEnv {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	e := pkgEnv{root: root, agent: filepath.Join(root, "agent"), proj: filepath.Join(root, "proj")}
	if err := os.MkdirAll(e.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RELAY_CODING_AGENT_DIR", e.agent)
	t.Setenv("HOME", filepath.Join(root, "home"))
	// npm must not reach the registry: local tarballs only, and a missing
	// package fails at once instead of after network timeouts.
	t.Setenv("npm_config_offline", "true")
	t.Setenv("npm_config_cache", filepath.Join(root, "npm-cache"))
	t.Setenv("npm_config_audit", "false")
	t.Setenv("npm_config_fund", "false")
	t.Setenv("npm_config_update_notifier", "false")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(root, "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Chdir(e.proj)
	return e
}

func (e pkgEnv) relay(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, strings.NewReader(""), &out, &errb)
	return strings.ReplaceAll(out.String(), e.root, "<root>"), strings.ReplaceAll(errb.String(), e.root, "<root>"), code
}

func (e pkgEnv) mustRelay(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := e.relay(t, args...)
	if code != 0 {
		t.Fatalf("relay %v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
	}
	return out
}

func (e pkgEnv) userSettings(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.agent, "settings.json"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data)
}

func need(t *testing.T, progs ...string) {
	t.Helper()
	for _, p := range progs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed (CI installs it)", p)
		}
	}
}

// copyDir copies the testdata package to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func runIn(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(testdataDir, name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s mismatch:\n--- got\n%s--- want\n%s", name, got, want)
	}
}

func TestPackageCommandsLocal(t *testing.T) {
	e := newPkgEnv(t)
	testdata := filepath.Join(testdataDir, "pkg-demo")
	pkg := filepath.Join(e.root, "pkg-demo")
	copyDir(t, testdata, pkg)

	if out := e.mustRelay(t, "list"); out != "No packages installed.\n" {
		t.Errorf("empty list = %q", out)
	}
	if out := e.mustRelay(t, "install", "../pkg-demo"); !strings.Contains(out, "Installed ../pkg-demo") {
		t.Errorf("install output %q", out)
	}
	// Stored relative to the agent directory, where user paths resolve.
	if s := e.userSettings(t); !strings.Contains(s, `"../pkg-demo"`) {
		t.Errorf("settings = %s", s)
	}
	// Installing the same path again does not add a second entry.
	e.mustRelay(t, "install", pkg)
	if s := e.userSettings(t); strings.Count(s, "pkg-demo") != 1 {
		t.Errorf("second install duplicated the entry: %s", s)
	}
	out, errOut, code := e.relay(t, "install", "../nope")
	if code != 1 || !strings.Contains(errOut, "install ../nope: path does not exist: <root>/nope") || out != "" {
		t.Errorf("missing path: exit %d stdout %q stderr %q", code, out, errOut)
	}
	if out := e.mustRelay(t, "remove", "../pkg-demo"); out != "Removing ../pkg-demo...\nRemoved ../pkg-demo\n" {
		t.Errorf("remove output %q", out)
	}
	if _, errOut, code := e.relay(t, "uninstall", "../pkg-demo"); code != 1 || !strings.Contains(errOut, "no matching package found for ../pkg-demo") {
		t.Errorf("second remove: exit %d stderr %q", code, errOut)
	}
	if _, err := os.Stat(pkg); err != nil {
		t.Errorf("removing a local package must not delete it: %v", err)
	}
}

func TestPackageCommandsUsage(t *testing.T) {
	e := newPkgEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"install"}, "missing install source"},
		{[]string{"install", "a", "b"}, "unexpected argument b"},
		{[]string{"list", "-l"}, "unknown option -l for \"list\""},
		{[]string{"update", "--extension"}, "missing value for --extension"},
		{[]string{"update", "self"}, "never updates relay itself"},
		{[]string{"install", "-l", "./x"}, ""},
		{[]string{"update", "npm:not-configured"}, "no matching package found for npm:not-configured"},
		{[]string{"install", "git:github.com"}, "invalid git source"},
	} {
		_, errOut, code := e.relay(t, tc.args...)
		if tc.want == "" {
			// A project with no .relay resources counts as trusted: -l
			// writes .relay/settings.json (here it fails on the path).
			if !strings.Contains(errOut, "path does not exist") {
				t.Errorf("%v: stderr %q", tc.args, errOut)
			}
			continue
		}
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
	if out := e.mustRelay(t, "install", "--help"); !strings.Contains(out, "relay install <source> [-l]") {
		t.Errorf("help = %q", out)
	}
}

func TestPackageCommandsNpm(t *testing.T) {
	need(t, "npm", "node")
	e := newPkgEnv(t)
	testdata := filepath.Join(testdataDir, "pkg-demo")
	src := filepath.Join(e.root, "src")
	copyDir(t, testdata, src)
	tgz := filepath.Join(e.root, runIn(t, src, "npm", "pack", "--silent", "--pack-destination", e.root))
	source := "npm:relay-pkg-demo@file:" + tgz

	e.mustRelay(t, "install", source)
	installed := filepath.Join(e.agent, "npm", "node_modules", "relay-pkg-demo")
	if _, err := os.Stat(filepath.Join(installed, "extensions", "demo.ts")); err != nil {
		t.Fatalf("not installed: %v", err)
	}
	if s := e.userSettings(t); !strings.Contains(s, source) {
		t.Errorf("settings = %s", s)
	}
	// Project scope: -l installs under .relay/npm and writes .relay/settings.json.
	e.mustRelay(t, "install", "-l", source)
	if _, err := os.Stat(filepath.Join(e.proj, ".relay", "npm", "node_modules", "relay-pkg-demo", "package.json")); err != nil {
		t.Fatalf("project install: %v", err)
	}
	// The project now has .relay resources: list needs --approve to read
	// them (commands never prompt).
	if out := e.mustRelay(t, "list"); strings.Contains(out, "Project packages") {
		t.Errorf("untrusted project listed: %q", out)
	}
	list := e.mustRelay(t, "list", "--approve")
	golden(t, "list-npm.golden", strings.ReplaceAll(list, filepath.Base(tgz), "<tgz>"))

	// update reinstalls an unpinned source: a changed tarball shows.
	if err := os.WriteFile(filepath.Join(src, "extensions", "second.ts"), []byte("export default () => {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runIn(t, src, "npm", "pack", "--silent", "--pack-destination", e.root)
	if out := e.mustRelay(t, "update", "--extension", source); !strings.Contains(out, "Updated "+strings.ReplaceAll(source, e.root, "<root>")) {
		t.Errorf("update output %q", out)
	}
	if _, err := os.Stat(filepath.Join(installed, "extensions", "second.ts")); err != nil {
		t.Errorf("update did not reinstall: %v", err)
	}

	e.mustRelay(t, "remove", source)
	if _, err := os.Stat(installed); !os.IsNotExist(err) {
		t.Errorf("remove left %s: %v", installed, err)
	}
	if s := e.userSettings(t); strings.Contains(s, "relay-pkg-demo") {
		t.Errorf("settings after remove = %s", s)
	}

	// A package that does not exist: a clear error naming it, nothing
	// written.
	_, errOut, code := e.relay(t, "install", "npm:relay-no-such-package-xyz")
	if code != 1 || !strings.Contains(errOut, "install npm:relay-no-such-package-xyz:") {
		t.Errorf("missing npm package: exit %d stderr %q", code, errOut)
	}
	if s := e.userSettings(t); strings.Contains(s, "no-such") {
		t.Errorf("failed install was written to settings: %s", s)
	}
}

// gitRepo makes a repository holding the demo package with tags v1 and v2
// (v2 adds extensions/v2.ts) and returns its path.
func gitRepo(t *testing.T, e pkgEnv) string {
	t.Helper()
	repo := filepath.Join(e.root, "repos", "demo")
	testdata := filepath.Join(testdataDir, "pkg-demo")
	copyDir(t, testdata, repo)
	runIn(t, repo, "git", "init", "-q", "-b", "main")
	runIn(t, repo, "git", "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
	runIn(t, repo, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v1")
	runIn(t, repo, "git", "tag", "v1")
	if err := os.WriteFile(filepath.Join(repo, "extensions", "v2.ts"), []byte("export default () => {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runIn(t, repo, "git", "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
	runIn(t, repo, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v2")
	runIn(t, repo, "git", "tag", "v2")
	return repo
}

func TestPackageCommandsGit(t *testing.T) {
	need(t, "git", "npm")
	e := newPkgEnv(t)
	repo := gitRepo(t, e)
	url := "file://" + repo
	checkout := filepath.Join(e.agent, "git", "file", strings.TrimPrefix(repo, "/"))
	has := func(name string) bool {
		_, err := os.Stat(filepath.Join(checkout, "extensions", name))
		return err == nil
	}

	// A ref that does not exist: a clear error, no checkout left, nothing
	// written.
	_, errOut, code := e.relay(t, "install", url+"@v9")
	if code != 1 || !strings.Contains(errOut, `ref "v9" not found`) || !strings.Contains(errOut, "install "+strings.ReplaceAll(url, e.root, "<root>")+"@v9") {
		t.Errorf("bad ref: exit %d stderr %q", code, errOut)
	}
	if _, err := os.Stat(checkout); !os.IsNotExist(err) {
		t.Errorf("failed clone left %s", checkout)
	}
	if s := e.userSettings(t); strings.Contains(s, "v9") {
		t.Errorf("failed install written: %s", s)
	}

	// Pinned to v1: update leaves it there.
	e.mustRelay(t, "install", url+"@v1")
	if !has("demo.ts") || has("v2.ts") {
		t.Fatalf("v1 checkout wrong: demo %v v2 %v", has("demo.ts"), has("v2.ts"))
	}
	e.mustRelay(t, "update")
	if has("v2.ts") {
		t.Errorf("update moved a pinned ref")
	}
	// Re-installing with another ref replaces the entry and moves the checkout.
	e.mustRelay(t, "install", url+"@v2")
	if !has("v2.ts") {
		t.Errorf("install @v2 did not move the checkout")
	}
	if s := e.userSettings(t); strings.Count(s, repo) != 1 || !strings.Contains(s, "@v2") {
		t.Errorf("settings = %s", s)
	}
	e.mustRelay(t, "remove", url)
	if _, err := os.Stat(checkout); !os.IsNotExist(err) {
		t.Errorf("remove left %s", checkout)
	}
	if _, err := os.Stat(filepath.Join(e.agent, "git", "file")); !os.IsNotExist(err) {
		t.Errorf("remove left empty parents")
	}

	// Unpinned: update follows the branch.
	e.mustRelay(t, "install", url)
	runIn(t, repo, "git", "rm", "-q", "extensions/v2.ts")
	runIn(t, repo, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "v3")
	if !has("v2.ts") {
		t.Fatalf("unpinned install should be at main (v2)")
	}
	e.mustRelay(t, "update", url)
	if has("v2.ts") {
		t.Errorf("update did not follow the branch")
	}
}

// The run's resources: packages' extensions, skills, prompts and themes,
// -e for one run, -ne keeping only -e, --theme first and --no-themes.
func TestResolveRunResources(t *testing.T) {
	e := newPkgEnv(t)
	copyDir(t, filepath.Join(testdataDir, "pkg-demo"), filepath.Join(e.root, "pkg-demo"))
	writeFile := func(p, c string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(filepath.Join(e.root, "pkg-demo", "themes", "pkgtheme.json"), `{"name": "pkgtheme", "colors": {}}`)
	writeFile(filepath.Join(e.proj, "one.ts"), "export default () => {}")
	writeFile(filepath.Join(e.proj, "cli-theme.json"), `{}`)
	e.mustRelay(t, "install", "../pkg-demo")

	resolve := func(args ...string) (*launch, string) {
		t.Helper()
		a, err := ParseArgs(args)
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		l := &launch{a: a, env: config.ReadEnv(), stderr: &errb, agentDir: e.agent, cwd: e.proj}
		l.st, _ = settings.Load(settings.LoadOptions{AgentDir: e.agent, Cwd: e.proj})
		l.resolveResources(context.Background())
		return l, errb.String()
	}
	paths := func(list []packages.Resource) []string {
		var out []string
		for _, r := range list {
			out = append(out, strings.TrimPrefix(r.Path, e.root+"/"))
		}
		return out
	}

	l, warn := resolve("-e", "one.ts", "--theme", "cli-theme.json")
	if warn != "" {
		t.Errorf("warnings: %s", warn)
	}
	want := []string{"pkg-demo/extensions/demo.ts", "builtin:mcp", "builtin:llama.cpp", "builtin:codemode", "builtin:tool-search", "proj/one.ts"}
	if got := paths(l.res.Extensions(false)); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("extensions = %v, want %v", got, want)
	}
	if got := paths(l.res.Extensions(true)); strings.Join(got, " ") != "proj/one.ts" {
		t.Errorf("-ne extensions = %v", got)
	}
	if got := strings.Join(l.res.Themes, " "); got != filepath.Join(e.proj, "cli-theme.json")+" "+filepath.Join(e.root, "pkg-demo", "themes", "pkgtheme.json") {
		t.Errorf("themes = %s", got)
	}
	if got := paths(l.res.resolved.FromPackages(packages.Skills)); strings.Join(got, " ") != "pkg-demo/skills/demo/SKILL.md" {
		t.Errorf("package skills = %v", got)
	}
	l, _ = resolve("--no-themes", "--theme", "cli-theme.json")
	if len(l.res.Themes) != 1 {
		t.Errorf("--no-themes themes = %v", l.res.Themes)
	}
	// A missing -e package is reported by name; the rest still resolves.
	l, warn = resolve("-e", "../missing-pkg")
	if !strings.Contains(warn, "package ../missing-pkg: path does not exist") || len(l.res.Extensions(false)) != 5 {
		t.Errorf("missing -e: warn %q extensions %v", warn, paths(l.res.Extensions(false)))
	}
}

// Built-in extensions: on by default, off with -builtin:<name>, a
// project's +builtin:<name> beats the user's, --no-extensions turns them
// all off and -e builtin:<name> brings one back.
func TestBuiltinExtensions(t *testing.T) {
	e := newPkgEnv(t)
	write := func(p, c string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(e.agent, "settings.json"), `{"extensions": ["-builtin:mcp", "-builtin:codemode"]}`)
	write(filepath.Join(e.proj, ".relay", "settings.json"), `{"extensions": ["+builtin:mcp"]}`)
	off := func(trusted bool, args ...string) (string, string) {
		t.Helper()
		a, err := ParseArgs(args)
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		l := &launch{a: a, env: config.ReadEnv(), stderr: &errb, agentDir: e.agent, cwd: e.proj, trusted: trusted}
		l.st, _ = settings.Load(settings.LoadOptions{AgentDir: e.agent, Cwd: e.proj, ProjectTrusted: trusted})
		l.resolveResources(context.Background())
		var names []string
		for _, n := range builtinExtensions {
			if builtinDisabled(l.st, n) {
				names = append(names, n)
			}
		}
		return strings.Join(names, " "), errb.String()
	}
	for _, tc := range []struct {
		trusted bool
		args    []string
		want    string
	}{
		{false, nil, "mcp codemode"},
		{true, nil, "codemode"},
		{true, []string{"-ne"}, "mcp llama.cpp codemode tool-search"},
		{true, []string{"-ne", "-e", "builtin:mcp"}, "llama.cpp codemode tool-search"},
		{false, []string{"-e", "builtin:codemode"}, "mcp"},
	} {
		if got, warn := off(tc.trusted, tc.args...); got != tc.want || warn != "" {
			t.Errorf("trusted %v %v: disabled %q, want %q (warnings %q)", tc.trusted, tc.args, got, tc.want, warn)
		}
	}
	if _, warn := off(false, "-e", "builtin:nope"); !strings.Contains(warn, "-e builtin:nope: no such built-in extension") {
		t.Errorf("unknown built-in: %q", warn)
	}
}
