package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// End-to-end checks of the non-interactive command line (flags, sessions,
// exit codes) against upstream-spec-core.md §1 and sessions.md.

// toolNames returns the names of the tools declared in a request.
func toolNames(t *testing.T, req llmtest.Request) []string {
	t.Helper()
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Raw, &body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range body.Tools {
		if tl.Name != "laya_learn" { // registered inactive by Laya; see the report on app.activeSpecs
			out = append(out, tl.Name)
		}
	}
	return out
}

func TestCLINoToolsDeclaresNoTools(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true}, nil)
	for _, tc := range []struct {
		args []string
		want string
		warn string
	}{
		{[]string{"-nt"}, "", ""},
		{[]string{"-nbt"}, "", ""},
		{[]string{"-t", "nosuch"}, "", `Warning: unknown tool "nosuch" ignored`},
		{[]string{"-t", "read,bash", "-xt", "bash"}, "read", ""},
	} {
		n := len(e.fake.Requests())
		args := append([]string{"-p", model}, tc.args...)
		out, errOut, code := e.run(append(args, "hi")...)
		if code != 0 || out != "ok\n" {
			t.Fatalf("%v: exit %d stdout %q stderr %q", tc.args, code, out, errOut)
		}
		if !strings.Contains(errOut, tc.warn) {
			t.Errorf("%v: stderr %q, want %q", tc.args, errOut, tc.warn)
		}
		reqs := e.fake.Requests()
		if got := strings.Join(toolNames(t, reqs[n]), ","); got != tc.want {
			t.Errorf("%v: tools %q, want %q", tc.args, got, tc.want)
		}
	}
}

// runIn runs relay in dir instead of the project directory.
func (e *env) runIn(dir string, args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	c := e.cmd(nil, args...)
	c.Dir = dir
	var o, er strings.Builder
	c.Stdout, c.Stderr = &o, &er
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return o.String(), er.String(), code
}

func TestCLISessionFromAnotherProject(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true}, nil)
	other := filepath.Join(filepath.Dir(e.cwd), "other")
	os.MkdirAll(other, 0o755)
	if _, errOut, code := e.runIn(other, "-p", model, "--session-id", "far-away", "first"); code != 0 {
		t.Fatalf("setup: %d %s", code, errOut)
	}
	before := len(e.sessionFiles())
	_, errOut, code := e.run("-p", model, "--session", "far-aw", "more")
	if code != 1 || !strings.Contains(errOut, "belongs to another project") || !strings.Contains(errOut, "--fork far-aw") {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	if n := len(e.sessionFiles()); n != before {
		t.Errorf("%d session files, want %d", n, before)
	}
	// The other project's session is untouched; --fork copies it here.
	out, errOut, code := e.run("-p", model, "--fork", "far-aw", "more")
	if code != 0 || out != "ok\n" {
		t.Fatalf("fork: %d %q %q", code, out, errOut)
	}
	reqs := e.fake.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Raw), "first") {
		t.Errorf("fork lost the history")
	}
}

func TestCLIForkIntoExistingSessionID(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true}, nil)
	for _, id := range []string{"src", "taken"} {
		if _, errOut, code := e.run("-p", model, "--session-id", id, "hi"); code != 0 {
			t.Fatalf("setup %s: %d %s", id, code, errOut)
		}
	}
	_, errOut, code := e.run("-p", model, "--fork", "src", "--session-id", "taken", "x")
	if code != 1 || !strings.HasPrefix(errOut, "Error: --session-id taken already exists") {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	if n := len(e.sessionFiles()); n != 2 {
		t.Errorf("%d session files, want 2", n)
	}
	if _, errOut, code := e.run("-p", model, "--fork", "src", "--session-id", "fresh", "x"); code != 0 {
		t.Fatalf("fork to a new id: %d %s", code, errOut)
	}
}

func requestModel(t *testing.T, req llmtest.Request) string {
	t.Helper()
	m, _ := req.Body["model"].(string)
	return m
}

func TestCLIModelsScopeChoosesStartupModel(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true},
		map[string]any{"defaultProvider": "anthropic", "defaultModel": "claude-sonnet-4-5"})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--models", "claude-haiku-4*"}, "claude-haiku-4-5"},
		{[]string{"--models", "claude-haiku-4*", "--model", "anthropic/claude-sonnet-4-5"}, "claude-sonnet-4-5"},
		{nil, "claude-sonnet-4-5"},
	} {
		n := len(e.fake.Requests())
		out, errOut, code := e.run(append(append([]string{"-p", "--no-session"}, tc.args...), "hi")...)
		if code != 0 || out != "ok\n" {
			t.Fatalf("%v: exit %d %q %q", tc.args, code, out, errOut)
		}
		if got := requestModel(t, e.fake.Requests()[n]); got != tc.want {
			t.Errorf("%v: model %s, want %s", tc.args, got, tc.want)
		}
	}
}

func TestCLISettingsDiagnosticsAreWarnings(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true},
		map[string]any{"defaultThinkingLevel": "bogus"})
	out, errOut, code := e.run("-p", model, "--no-session", "hi")
	want := "Warning: settings " + filepath.Join(e.agentDir, "settings.json") + ": defaultThinkingLevel: "
	if code != 0 || out != "ok\n" || !strings.HasPrefix(errOut, want) {
		t.Fatalf("exit %d stdout %q stderr %q, want prefix %q", code, out, errOut, want)
	}
}

func TestCLIExtensionFlagWarns(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true}, nil)
	out, errOut, code := e.run("-p", model, "--no-session", "-e", "./ext.ts", "--ext-flag", "v", "hi")
	if code != 0 || out != "ok\n" || !strings.Contains(errOut, "Warning: package ./ext.ts: path does not exist") {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	// Nothing was started for an extension that does not exist.
	if _, err := os.Stat(filepath.Join(e.agentDir, "ext-host")); err == nil {
		t.Errorf("the extension host was prepared for a missing extension")
	}
}

func TestCLIFileArgsAndStdin(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true}, nil)
	var big bytes.Buffer
	png.Encode(&big, image.NewNRGBA(image.Rect(0, 0, 2400, 1200)))
	os.WriteFile(filepath.Join(e.cwd, "big.png"), big.Bytes(), 0o644)
	os.WriteFile(filepath.Join(e.cwd, "bad.gif"), []byte("GIF89a broken"), 0o644)
	os.WriteFile(filepath.Join(e.cwd, "a.txt"), []byte("alpha"), 0o644)

	// stdin + @file text + first message, no separators; the second
	// message is its own prompt.
	c := e.cmd(strings.NewReader("  from stdin \n"), "-p", model, "--no-session", "@a.txt", "first", "second")
	var o, er bytes.Buffer
	c.Stdout, c.Stderr = &o, &er
	if err := c.Run(); err != nil || o.String() != "ok\n" { // only the last reply is printed
		t.Fatalf("%v stdout %q stderr %q", err, o.String(), er.String())
	}
	reqs := e.fake.Requests()
	want := `from stdin<file name=\"` + filepath.Join(e.cwd, "a.txt") + `\">\nalpha\n</file>\nfirst`
	if !strings.Contains(string(reqs[0].Raw), want) || strings.Contains(string(reqs[0].Raw), `"second"`) {
		t.Errorf("first prompt: %s", reqs[0].Raw)
	}
	if !strings.Contains(string(reqs[1].Raw), `"text":"second"`) {
		t.Errorf("second prompt missing: %s", reqs[1].Raw)
	}

	// A large image is scaled into 2000x2000 with a hint; a broken one is
	// not attached and the tag says why.
	n := len(e.fake.Requests())
	if _, errOut, code := e.run("-p", model, "--no-session", "@big.png", "@bad.gif", "look"); code != 0 {
		t.Fatalf("images: %d %s", code, errOut)
	}
	raw := string(e.fake.Requests()[n].Raw)
	if !strings.Contains(raw, "[Image: original 2400x1200, displayed at 2000x1000.") || !strings.Contains(raw, "[Image could not be processed: ") {
		t.Errorf("image tags: %.600s", raw)
	}
	if got := strings.Count(raw, `"type":"image"`); got != 1 {
		t.Errorf("%d images attached, want 1", got)
	}

	if _, errOut, code := e.run("-p", model, "@missing.txt", "x"); code != 1 || !strings.HasPrefix(errOut, "Error: ") {
		t.Errorf("missing @file: exit %d stderr %q", code, errOut)
	}
}

// Every flag of upstream-spec-core.md §1.4 is in --help.
func TestCLIHelpListsEveryFlag(t *testing.T) {
	e := newEnv(t, &llmtest.Script{}, nil)
	out, _, code := e.run("--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	listed := map[string]bool{}
	for _, w := range strings.FieldsFunc(out, func(r rune) bool { return r == ' ' || r == '\n' || r == ',' || r == '/' }) {
		listed[w] = true
	}
	for _, f := range strings.Fields(`-h --help -v --version --mode -p --print --export --provider --model --api-key
		--thinking --models --list-models -c --continue -r --resume --session --session-id --fork --session-dir
		--no-session -n --name -t --tools -xt --exclude-tools -nbt --no-builtin-tools -nt --no-tools -e --extension
		-ne --no-extensions --skill --prompt-template --theme -ns --no-skills -np --no-prompt-templates --no-themes
		--use-theme -nc --no-context-files --system-prompt --append-system-prompt --tui-mode --verbose -a --approve
		-na --no-approve --offline`) {
		if !listed[f] {
			t.Errorf("--help does not list %s", f)
		}
	}
}

// SIGTERM and SIGHUP end a print or JSON run with 143 / 129 and take the
// running bash command with them.
func TestCLISignalExitCodes(t *testing.T) {
	// A duration of this run's own, so test runs sharing the machine never
	// see each other's sleep.
	dur := fmt.Sprintf("31.%d", 100+os.Getpid()%900)
	e := newEnv(t, &llmtest.Script{Rules: []llmtest.Rule{{When: llmtest.Match{Contains: "SLEEPTOOL"},
		Response: llmtest.Response{ToolCalls: []llmtest.Block{tc("bash", `{"command":"sleep `+dur+`; echo done"}`)}}}}}, nil)
	for _, tc := range []struct {
		sig  syscall.Signal
		mode []string
		want int
	}{{syscall.SIGTERM, []string{"-p"}, 143}, {syscall.SIGHUP, []string{"-p"}, 129}, {syscall.SIGTERM, []string{"--mode", "json"}, 143}} {
		c := e.cmd(nil, append(tc.mode, model, "--no-session", "SLEEPTOOL")...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		// Signal once the bash child runs.
		deadline := time.Now().Add(10 * time.Second)
		for !sleepRunning(dur) {
			if time.Now().After(deadline) {
				c.Process.Kill()
				t.Fatal("the bash tool never started")
			}
			time.Sleep(20 * time.Millisecond)
		}
		c.Process.Signal(tc.sig)
		err := c.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != tc.want {
			t.Errorf("%v %v: exit %d, want %d", tc.mode, tc.sig, code, tc.want)
		}
		if sleepRunning(dur) {
			t.Errorf("%v: bash child still running", tc.sig)
		}
	}
}

// sleepRunning reports whether the test's "sleep <dur>" is alive.
func sleepRunning(dur string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, ent := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline"))
		if err == nil && string(b) == "sleep\x00"+dur+"\x00" {
			st, _ := os.ReadFile(filepath.Join("/proc", ent.Name(), "stat"))
			// A zombie ("Z") is already dead.
			if _, rest, ok := strings.Cut(string(st), ") "); ok && !strings.HasPrefix(rest, "Z") {
				return true
			}
		}
	}
	return false
}

// Exit codes and texts of §1.4/§1.7 for the one-shot flags.
func TestCLIOneShotFlags(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true}, nil)
	if _, errOut, code := e.run("-p", model, "--session-id", "exp", "hi"); code != 0 || !strings.Contains(errOut, "Warning: no session exp yet; creating it") {
		t.Fatalf("setup: %d %q", code, errOut)
	}
	src := e.sessionFiles()[0]
	out, _, code := e.run("--export", src, "out.html")
	if want := "Exported to: " + filepath.Join(e.cwd, "out.html") + "\n"; code != 0 || out != want {
		t.Errorf("--export in out: %d %q, want %q", code, out, want)
	}
	out, _, code = e.run("--export", src)
	if code != 0 || !strings.HasPrefix(out, "Exported to: ") {
		t.Errorf("--export in: %d %q", code, out)
	} else if _, err := os.Stat(strings.TrimSpace(strings.TrimPrefix(out, "Exported to: "))); err != nil {
		t.Errorf("export file: %v", err)
	}
	if _, errOut, code := e.run("--export", "nope.jsonl"); code != 1 || !strings.HasPrefix(errOut, "Error: ") {
		t.Errorf("--export missing: %d %q", code, errOut)
	}
	out, _, code = e.run("--list-models", "sonnet-4-5")
	if code != 0 || !strings.HasPrefix(out, "provider") || !strings.Contains(out, "claude-sonnet-4-5") || strings.Contains(out, "haiku") {
		t.Errorf("--list-models: %d %q", code, out)
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"-p", "--name", "  ", "x"}, "Error: --name must not be empty"},
		{[]string{"-p", "--provider", "anthropic", "x"}, "Error: --provider requires --model"},
		{[]string{"-p", "--api-key", "k", "x"}, "Error: --api-key requires a model"},
		{[]string{"-p", "--fork", "exp", "--no-session", "x"}, "Error: --fork cannot be combined"},
		{[]string{"-p", "--session-id", "exp", "-c", "x"}, "Error: --session-id cannot be combined"},
		{[]string{"-p", "--session", "nosuch", "x"}, "Error: no session matches"},
		{[]string{"-z"}, "Error: Unknown option: -z"},
	} {
		_, errOut, code := e.run(tc.args...)
		if code != 1 || !strings.HasPrefix(errOut, tc.err) {
			t.Errorf("%v: exit %d stderr %q, want %q", tc.args, code, errOut, tc.err)
		}
	}
	_, errOut, code := e.run("-p", model, "--no-session", "--thinking", "bogus", "hi")
	if code != 0 || !strings.Contains(errOut, `Warning: invalid --thinking "bogus" ignored`) {
		t.Errorf("--thinking bogus: %d %q", code, errOut)
	}
}

// Upstream's subcommand names are commands, not prompts: "relay list"
// lists packages, "relay auth" answers itself (its usage, a usage error)
// without asking the model; after "--" the word is a prompt.
func TestCLIReservedSubcommands(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true}, nil)
	if out, errOut, code := e.run("list"); code != 0 || out != "No packages installed.\n" {
		t.Fatalf("list: exit %d stdout %q stderr %q", code, out, errOut)
	}
	if out, errOut, code := e.run("auth"); code != 0 || !strings.HasPrefix(out, "Usage:\n  relay auth print-api-key") {
		t.Fatalf("auth: exit %d stdout %q stderr %q", code, out, errOut)
	}
	if _, errOut, code := e.run("auth", "check"); code != 1 || !strings.Contains(errOut, "auth checks require --provider") {
		t.Fatalf("auth check: exit %d stderr %q", code, errOut)
	}
	if n := len(e.fake.Requests()); n != 0 {
		t.Fatalf("%d model requests", n)
	}
	if out, errOut, code := e.run(model, "--no-session", "--", "auth"); code != 0 || out != "ok\n" {
		t.Fatalf("-- auth: %d %q %q", code, out, errOut)
	}
}

func TestCLIResumeWithoutTerminal(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}, Repeat: true}, nil)
	if _, errOut, code := e.run("-p", model, "--session-id", "old-one", "hi"); code != 0 {
		t.Fatalf("setup: %s", errOut)
	}
	n := len(e.fake.Requests())
	out, errOut, code := e.run("-p", model, "-r", "more")
	if code != 0 || !strings.Contains(out, "old-one") || !strings.Contains(out, "relay --session") {
		t.Fatalf("exit %d stdout %q", code, out)
	}
	if !strings.Contains(errOut, "Note: the prompt was not sent") || len(e.fake.Requests()) != n {
		t.Errorf("stderr %q, %d requests", errOut, len(e.fake.Requests())-n)
	}
}
