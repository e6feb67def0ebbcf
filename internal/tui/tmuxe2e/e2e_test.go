// Package tmuxe2e_test runs the built relay binary in tmux against the
// fake provider: the interactive UI end to end.
package tmuxe2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// End-to-end tests: the built binary in tmux against the fake provider.
// They are skipped when tmux is not installed.

var (
	e2eOnce sync.Once
	e2eBin  string
	e2eErr  error
)

func relayBinary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	if testing.Short() {
		t.Skip("end-to-end")
	}
	e2eOnce.Do(func() {
		dir, err := os.MkdirTemp("", "relay-tui-e2e")
		if err != nil {
			e2eErr = err
			return
		}
		e2eBin = filepath.Join(dir, "relay")
		out, err := exec.Command("go", "build", "-o", e2eBin, "../../../cmd/relay").CombinedOutput()
		if err != nil {
			e2eErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if e2eErr != nil {
		t.Fatal(e2eErr)
	}
	return e2eBin
}

type tmuxEnv struct {
	t        *testing.T
	bin      string
	agentDir string
	cwd      string
	fake     *llmtest.Server
	session  string
	extraEnv []string
	cols     int // window width (default 100)
}

func newTmux(t *testing.T, script *llmtest.Script, settings map[string]any) *tmuxEnv {
	t.Helper()
	bin := relayBinary(t)
	root := t.TempDir()
	e := &tmuxEnv{t: t, bin: bin, agentDir: filepath.Join(root, "agent"), cwd: filepath.Join(root, "proj"),
		fake: llmtest.NewServer(script), session: fmt.Sprintf("relaye2e%d", time.Now().UnixNano())}
	t.Cleanup(e.fake.Close)
	os.MkdirAll(e.agentDir, 0o755)
	os.MkdirAll(e.cwd, 0o755)
	os.WriteFile(filepath.Join(e.agentDir, "models.json"), []byte(fmt.Sprintf(`{"providers":{"anthropic":{"baseUrl":%q}}}`, e.fake.URL)), 0o644)
	if settings == nil {
		settings = map[string]any{}
	}
	settings["retry"] = map[string]any{"baseDelayMs": 1, "maxRetries": 1}
	b, _ := json.Marshal(settings)
	os.WriteFile(filepath.Join(e.agentDir, "settings.json"), b, 0o644)
	return e
}

func (e *tmuxEnv) env() []string {
	env := []string{"RELAY_CODING_AGENT_DIR=" + e.agentDir, "ANTHROPIC_API_KEY=test-key", "RELAY_OFFLINE=1",
		"OPENAI_API_KEY=", "GEMINI_API_KEY=", "RELAY_CODING_AGENT_SESSION_DIR=", "TERM=xterm-256color", "COLORFGBG=15;0"}
	return append(env, e.extraEnv...)
}

// start launches relay in a detached tmux session and returns when the
// editor is drawn; it reports how long that took.
func (e *tmuxEnv) start(args ...string) time.Duration {
	e.t.Helper()
	cmd := "env " + strings.Join(quoteAll(e.env()), " ") + " " + e.bin + " " + strings.Join(quoteAll(args), " ")
	// The server starts with an idle pane first, so the measured time is
	// relay's own start-up, not tmux's.
	cols := "100"
	if e.cols > 0 {
		cols = fmt.Sprint(e.cols)
	}
	out, err := e.tmux("new-session", "-d", "-s", e.session, "-x", cols, "-y", "30", "-c", e.cwd, "sleep 600").CombinedOutput()
	if err != nil {
		e.t.Fatalf("tmux: %v %s", err, out)
	}
	e.t.Cleanup(func() { e.tmux("kill-server").Run() })
	e.tmux("set-option", "-t", e.session, "remain-on-exit", "on").Run()
	begin := time.Now()
	if out, err := e.tmux("respawn-pane", "-k", "-t", e.session, "-c", e.cwd, cmd).CombinedOutput(); err != nil {
		e.t.Fatalf("tmux respawn: %v %s", err, out)
	}
	e.waitFor("────", 10*time.Second)
	return time.Since(begin)
}

// tmux runs a tmux command on the test's own server (socket), so tests
// never share or race on a server.
func (e *tmuxEnv) tmux(args ...string) *exec.Cmd {
	return exec.Command("tmux", append([]string{"-L", e.session, "-f", "/dev/null"}, args...)...)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return out
}

func (e *tmuxEnv) screen() string {
	out, _ := e.tmux("capture-pane", "-p", "-t", e.session).Output()
	return string(out)
}

func (e *tmuxEnv) waitFor(text string, d time.Duration) string {
	e.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := e.screen()
		if strings.Contains(s, text) {
			return s
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %q; screen:\n%s", text, s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// keys sends tmux key names ("Enter", "Escape", "C-c", "F2") or text.
func (e *tmuxEnv) keys(keys ...string) {
	e.t.Helper()
	args := append([]string{"send-keys", "-t", e.session}, keys...)
	if out, err := e.tmux(args...).CombinedOutput(); err != nil {
		e.t.Fatalf("send-keys: %v %s", err, out)
	}
}

func (e *tmuxEnv) text(s string) {
	e.t.Helper()
	if out, err := e.tmux("send-keys", "-t", e.session, "-l", s).CombinedOutput(); err != nil {
		e.t.Fatalf("send-keys: %v %s", err, out)
	}
}

// sessionFile returns the newest session file of the project.
func (e *tmuxEnv) sessionFiles() []string {
	files, _ := filepath.Glob(filepath.Join(e.agentDir, "sessions", "*", "*.jsonl"))
	return files
}

func readEntries(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		json.Unmarshal(sc.Bytes(), &m)
		out = append(out, m)
	}
	return out
}

func TestE2EPromptAndAnswer(t *testing.T) {
	e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "Hello from **the fake** model.", ChunkSize: 3,
		Usage: &llmtest.Usage{Input: 1200, Output: 20}}}}, nil)
	took := e.start()
	t.Logf("launch to editable prompt: %v", took)
	e.text("say hello")
	e.keys("Enter")
	s := e.waitFor("Hello from the fake model.", 10*time.Second)
	if !strings.Contains(s, "say hello") {
		t.Errorf("prompt not shown:\n%s", s)
	}
	e.waitFor("↑1.2k", 5*time.Second)
}

func TestE2EToolTask(t *testing.T) {
	e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{{Type: "toolCall", Name: "bash", Args: json.RawMessage(`{"command":"echo tool-ran-ok"}`)}}},
		{Text: "The command ran."},
	}}, nil)
	e.start()
	e.text("run it")
	e.keys("Enter")
	s := e.waitFor("The command ran.", 10*time.Second)
	if !strings.Contains(s, "$ echo tool-ran-ok") || !strings.Contains(s, "tool-ran-ok") {
		t.Errorf("tool block missing:\n%s", s)
	}
}

func TestE2EAbortAndSteer(t *testing.T) {
	slow := llmtest.Response{Text: strings.Repeat("slow words ", 200), ChunkSize: 4, Delay: llmtest.Duration(30 * time.Millisecond)}
	e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{slow, {Text: "after steer"}, slow}, Repeat: true}, nil)
	e.start()
	e.text("start")
	e.keys("Enter")
	e.waitFor("slow words", 10*time.Second)
	e.text("please also check tests")
	e.keys("Enter")
	e.waitFor("steering: please also check tests", 5*time.Second)
	e.keys("Escape")
	e.waitFor("Aborted", 10*time.Second)
	// The queued steer is back in the editor, no longer queued.
	deadline := time.Now().Add(5 * time.Second)
	for s := e.screen(); strings.Contains(s, "steering:") || !strings.Contains(s, "please also check tests"); s = e.screen() {
		if time.Now().After(deadline) {
			t.Fatalf("steer not restored to the editor:\n%s", s)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The session file holds the aborted answer.
	found := false
	for _, f := range e.sessionFiles() {
		for _, en := range readEntries(t, f) {
			if m, ok := en["message"].(map[string]any); ok && m["stopReason"] == "aborted" {
				found = true
			}
		}
	}
	if !found {
		t.Error("no aborted message in the session file")
	}
}

func TestE2ETreeBranch(t *testing.T) {
	e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "answer one"}, {Text: "answer two"}, {Text: "answer three"}}}, nil)
	e.start()
	e.text("first question")
	e.keys("Enter")
	e.waitFor("answer one", 10*time.Second)
	e.text("second question")
	e.keys("Enter")
	e.waitFor("answer two", 10*time.Second)
	e.text("/tree")
	e.keys("Enter") // accepts the completion and runs the command
	e.waitFor("Session tree", 5*time.Second)
	e.keys("Up") // from the leaf (answer two) to "second question"
	e.keys("Enter")
	e.waitFor("Summarize the branch", 5*time.Second)
	e.keys("Enter") // no summary
	// The selected user message comes back to the editor.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(e.screen(), "second question") || strings.Contains(e.screen(), "Session tree") {
		if time.Now().After(deadline) {
			t.Fatalf("tree navigation:\n%s", e.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.keys("C-u") // clear the editor line
	e.text("second question, reworded")
	e.keys("Enter")
	e.waitFor("answer three", 10*time.Second)
	files := e.sessionFiles()
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	parents := map[string]int{}
	for _, en := range readEntries(t, files[0]) {
		if m, ok := en["message"].(map[string]any); ok && m["role"] == "user" {
			p, _ := en["parentId"].(string)
			parents[p]++
		}
	}
	branched := false
	for _, n := range parents {
		if n == 2 {
			branched = true
		}
	}
	if !branched {
		t.Errorf("no two user messages share a parent: %v", parents)
	}
}

func TestE2EResumeAndKeybindings(t *testing.T) {
	e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "old answer"}, {Text: "new answer"}}}, nil)
	// A first session made in print mode.
	c := exec.Command(e.bin, "-p", "an older session prompt")
	c.Dir, c.Env = e.cwd, append(os.Environ(), e.env()...)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("print mode: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(e.agentDir, "keybindings.json"),
		[]byte(`{"app.session.resume":"f2","app.thinking.toggle":[],"app.session.tree":"ctrl+t","no.such.action":"x"}`), 0o644)
	e.start()
	e.waitFor(`unknown action "no.such.action"`, 5*time.Second)
	e.keys("C-t")
	e.waitFor("The session is empty", 5*time.Second) // ctrl+t now opens /tree
	e.keys("F2")
	e.waitFor("Resume session", 5*time.Second)
	e.waitFor("an older session prompt", 5*time.Second)
	e.text("older")
	e.keys("Enter")
	e.waitFor("Resumed an older session prompt", 5*time.Second)
	if !strings.Contains(e.screen(), "old answer") {
		t.Errorf("resumed transcript:\n%s", e.screen())
	}
}

// TestE2ELargeSession opens a 10,000-message session and scrolls it.
func TestE2ELargeSession(t *testing.T) {
	e := newTmux(t, &llmtest.Script{}, nil)
	path := filepath.Join(t.TempDir(), "big.jsonl")
	f, _ := os.Create(path)
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, `{"type":"session","version":3,"id":"0f0e0d0c-0b0a-4000-8000-000000000000","timestamp":"2026-01-01T00:00:00.000Z","cwd":%q}`+"\n", e.cwd)
	parent := "null"
	for i := 0; i < 10000; i++ {
		id := fmt.Sprintf("%08x", i+1)
		var msg string
		if i%2 == 0 {
			msg = fmt.Sprintf(`{"role":"user","content":"question number %d","timestamp":1767225600000}`, i)
		} else {
			msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"answer **%d** with `+"`code`"+`"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767225600000}`, i)
		}
		fmt.Fprintf(w, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":%s}`+"\n", id, parent, msg)
		parent = `"` + id + `"`
	}
	w.Flush()
	f.Close()
	took := e.start("--session", path)
	t.Logf("10,000-message session to editable prompt: %v", took)
	e.waitFor("answer 9999", 10*time.Second)
	e.keys("Home")
	e.waitFor("question number 0", 10*time.Second)
	e.keys("PageDown", "PageDown")
	e.keys("End")
	e.waitFor("answer 9999", 10*time.Second)
}

func TestE2ERegularMode(t *testing.T) {
	e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "Inline answer with `code`.", ChunkSize: 5}}},
		map[string]any{"tuiMode": "regular"})
	took := e.start()
	t.Logf("regular mode launch to editable prompt: %v", took)
	e.text("inline please")
	e.keys("Enter")
	s := e.waitFor("Inline answer with code.", 10*time.Second)
	if !strings.Contains(s, "inline please") || !strings.Contains(s, "relay 0.1.0-dev ·") {
		t.Errorf("prompt missing:\n%s", s)
	}
	e.keys("C-d") // exit on an empty editor
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if out, _ := e.tmux("list-panes", "-t", e.session, "-F", "#{pane_dead}").Output(); strings.TrimSpace(string(out)) == "1" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The answer stays in the terminal after exit (native scrollback).
	if !strings.Contains(e.screen(), "Inline answer with code.") {
		t.Errorf("answer gone after exit:\n%s", e.screen())
	}
	// What the terminal prints next (here tmux's "Pane is dead") goes
	// below the footer, not over its model and context line.
	if !strings.Contains(e.screen(), "%/") {
		t.Errorf("footer overwritten after exit:\n%s", e.screen())
	}
}

func TestE2EExternalEditor(t *testing.T) {
	e := newTmux(t, &llmtest.Script{}, nil)
	script := filepath.Join(t.TempDir(), "ed.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nprintf 'written in the external editor' > \"$1\"\n"), 0o755)
	e.extraEnv = []string{"VISUAL=" + script, "EDITOR=" + script}
	e.start()
	e.text("draft")
	e.keys("C-g")
	e.waitFor("written in the external editor", 10*time.Second)
}

// TestE2EAuthorizationGate: the fake model runs a destructive command; the
// harness asks through the TUI's dialog, and the answer decides.
func TestE2EAuthorizationGate(t *testing.T) {
	for _, tc := range []struct {
		answer string
		gone   bool
	}{{"y", true}, {"n", false}} {
		t.Run(tc.answer, func(t *testing.T) {
			e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{
				{ToolCalls: []llmtest.Block{{Type: "toolCall", Name: "bash", Args: json.RawMessage(`{"command":"rm -rf build"}`)}}},
				{Text: "Finished the cleanup step."},
			}}, nil)
			build := filepath.Join(e.cwd, "build")
			os.MkdirAll(build, 0o755)
			os.WriteFile(filepath.Join(build, "out.o"), []byte("x"), 0o644)
			e.start()
			e.text("tidy the workspace")
			e.keys("Enter")
			s := e.waitFor("y allow · n refuse", 10*time.Second)
			if !strings.Contains(s, "rm -rf build") {
				t.Errorf("dialog does not name the command:\n%s", s)
			}
			e.text(tc.answer)
			e.waitFor("Finished the cleanup step.", 10*time.Second)
			if !tc.gone {
				// The harness's decision comes back as a transient notice.
				e.waitFor("Harness: refused `rm -rf build`", 5*time.Second)
			}
			_, err := os.Stat(build)
			if gone := os.IsNotExist(err); gone != tc.gone {
				t.Errorf("answer %s: build removed=%v, want %v; screen:\n%s", tc.answer, gone, tc.gone, e.screen())
			}
		})
	}
}

// TestE2EReload: /reload picks up a new prompt template and a changed
// setting without a restart.
func TestE2EReload(t *testing.T) {
	e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}}, nil)
	e.start()
	os.MkdirAll(filepath.Join(e.agentDir, "prompts"), 0o755)
	os.WriteFile(filepath.Join(e.agentDir, "prompts", "review.md"), []byte("---\ndescription: Review the diff\n---\nReview $@\n"), 0o644)
	b, _ := json.Marshal(map[string]any{"hideThinkingBlock": true, "retry": map[string]any{"baseDelayMs": 1, "maxRetries": 1}})
	os.WriteFile(filepath.Join(e.agentDir, "settings.json"), b, 0o644)
	e.text("/reload")
	e.keys("Enter")
	s := e.waitFor("Prompt templates: 1 · added /review", 10*time.Second)
	if !strings.Contains(s, "Settings changed: hideThinkingBlock") {
		t.Errorf("setting change not reported:\n%s", s)
	}
	e.text("/revi")
	e.waitFor("Review the diff", 5*time.Second)
}

// TestE2EImageInRegularMode: a read of a PNG prints the image sequence
// into the scrollback (tmux drops it without passthrough); the screen
// around it stays intact: no stray base64, the answer after it in place.
func TestE2EImageInRegularMode(t *testing.T) {
	for _, proto := range []string{"iterm2", "kitty"} {
		t.Run(proto, func(t *testing.T) {
			e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{
				{ToolCalls: []llmtest.Block{{Type: "toolCall", Name: "read", Args: json.RawMessage(`{"path":"shot.png"}`)}}},
				{Text: "The picture is a red square."},
			}}, map[string]any{"tuiMode": "regular"})
			e.extraEnv = append(e.extraEnv, "RELAY_IMAGE_PROTOCOL="+proto)
			var buf bytes.Buffer
			im := image.NewRGBA(image.Rect(0, 0, 64, 64))
			for i := range im.Pix {
				im.Pix[i] = 0xff
			}
			png.Encode(&buf, im)
			os.WriteFile(filepath.Join(e.cwd, "shot.png"), buf.Bytes(), 0o644)
			e.start()
			e.text("describe shot.png")
			e.keys("Enter")
			s := e.waitFor("The picture is a red square.", 10*time.Second)
			if strings.Contains(s, "iVBOR") || strings.Contains(s, "1337;") || strings.Contains(s, "_G") {
				t.Errorf("image data leaked onto the screen:\n%s", s)
			}
			if !strings.Contains(s, "describe shot.png") || !strings.Contains(s, "────") || !strings.Contains(s, "[image image/png]") {
				t.Errorf("screen damaged:\n%s", s)
			}
		})
	}
}

// TestE2EFullscreenImageScroll: fullscreen kitty images are placeholder
// cells (tmux shows the placeholder glyphs; the image data itself never
// reaches the screen). Scrolling them out and back keeps every row
// consistent: whole image rows, nothing left behind.
func TestE2EFullscreenImageScroll(t *testing.T) {
	var buf bytes.Buffer
	png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 160, 80))) // 20 x 5 cells
	var long strings.Builder
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&long, "filler line %d\n\n", i)
	}
	e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{{Type: "toolCall", Name: "read", Args: json.RawMessage(`{"path":"shot.png"}`)}}},
		{Text: long.String() + "End of the long answer."},
	}}, map[string]any{"terminal": map[string]any{"imageWidthCells": 20}})
	e.extraEnv = append(e.extraEnv, "RELAY_IMAGE_PROTOCOL=kitty")
	os.WriteFile(filepath.Join(e.cwd, "shot.png"), buf.Bytes(), 0o644)
	e.start()
	e.text("describe shot.png")
	e.keys("Enter")
	e.waitFor("End of the long answer.", 10*time.Second)
	count := func(s string) (rows int) {
		for _, l := range strings.Split(s, "\n") {
			if n := strings.Count(l, "\U0010EEEE"); n > 0 {
				rows++
				if n != 20 {
					t.Errorf("image row with %d cells: %q", n, l)
				}
			}
		}
		return rows
	}
	if n := count(e.screen()); n != 0 {
		t.Fatalf("image rows visible at the bottom: %d\n%s", n, e.screen())
	}
	seen := 0
	for i := 0; i < 12 && seen < 5; i++ {
		e.keys("PageUp")
		time.Sleep(150 * time.Millisecond)
		seen = max(seen, count(e.screen()))
	}
	if seen != 5 {
		t.Fatalf("image never fully visible (max %d rows):\n%s", seen, e.screen())
	}
	for i := 0; i < 14; i++ {
		e.keys("PageDown")
	}
	s := e.waitFor("End of the long answer.", 5*time.Second)
	time.Sleep(150 * time.Millisecond)
	if n := count(e.screen()); n != 0 {
		t.Errorf("image rows left behind after scrolling back: %d\n%s", n, s)
	}
	if strings.Contains(e.screen(), "iVBOR") {
		t.Error("image data on screen")
	}
}

// A regular-mode terminal narrowed while an answer streams keeps its
// scrollback: every committed line stays exactly once, with no rows lost or
// added and no stale copy of the live frame. The narrower width makes the
// answer taller than the screen, which is what used to break the commit; a
// long answer at full width does the same.
func TestE2ERegularModeNarrowWhileStreaming(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reps   int
		narrow bool
	}{{"narrowed", 120, true}, {"tall answer", 200, false}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.narrow && os.Getenv("RELAY_TEST_KNOWN_GAPS") == "" {
				// Known gap (issue 17 item 10): narrowing the terminal while
				// an answer streams can leave copies of the live frame in
				// regular mode's scrollback (the terminal re-wraps lines the
				// inline renderer still tracks); it failed 1 run in 4 on an
				// idle machine. RELAY_TEST_KNOWN_GAPS=1 runs it.
				t.Skip("known gap: regular-mode scrollback while narrowing during a stream (set RELAY_TEST_KNOWN_GAPS=1 to run)")
			}
			testRegularScrollback(t, tc.reps, tc.narrow)
		})
	}
}

func testRegularScrollback(t *testing.T, reps int, narrow bool) {
	var first []string
	for i := 1; i <= 20; i++ {
		first = append(first, fmt.Sprintf("line%02d", i))
	}
	slow := llmtest.Response{Text: strings.Repeat("slow words ", reps), ChunkSize: 4, Delay: llmtest.Duration(20 * time.Millisecond)}
	e := newTmux(t, &llmtest.Script{Responses: []llmtest.Response{{Text: strings.Join(first, "  \n")}, slow}},
		map[string]any{"tuiMode": "regular"})
	e.cols = 80
	e.start()
	e.text("first question")
	e.keys("Enter")
	e.waitFor("line20", 10*time.Second)
	e.text("second question")
	e.keys("Enter")
	e.waitFor("slow words slow", 10*time.Second)
	if narrow {
		if out, err := e.tmux("resize-window", "-t", e.session, "-x", "60").CombinedOutput(); err != nil {
			t.Fatalf("resize: %v %s", err, out)
		}
	}
	e.text("x") // typed while streaming: the editor is part of the frame
	// -J joins the rows the terminal wrapped when it narrowed, so rows
	// printed at 80 columns read as printed.
	capture := func() string {
		out, _ := e.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", e.session).Output()
		return string(out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) && strings.Contains(e.screen(), "Working") {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	all := capture()
	rows := strings.Split(all, "\n")
	for _, l := range first {
		if n := strings.Count(all, l); n != 1 {
			t.Errorf("%s appears %d times in the scrollback", l, n)
		}
	}
	if n := strings.Count(all, "Working"); n != 0 {
		t.Errorf("%d stale copies of the live frame in the scrollback", n)
	}
	// The first answer's rows are consecutive, followed by the separator
	// row and the second prompt's box.
	start := -1
	for i, r := range rows {
		if strings.Contains(r, "line01") {
			start = i
		}
	}
	if start < 0 {
		t.Fatalf("line01 missing:\n%s", all)
	}
	for i := 0; i < 20 && start+i < len(rows); i++ {
		if !strings.Contains(rows[start+i], first[i]) {
			t.Errorf("row %d after line01 is %q, want %s", i, rows[start+i], first[i])
			break
		}
	}
	blank := 0
	for i := start + 20; i < len(rows) && strings.TrimSpace(rows[i]) == ""; i++ {
		blank++
	}
	if blank != 2 { // the separator and the prompt box's top row
		t.Errorf("%d blank rows after the first answer, want 2", blank)
	}
	// Nor is the row above the streamed answer (the separator) lost.
	q, a := -1, -1
	for i, r := range rows {
		if strings.Contains(r, "second question") && q < 0 {
			q = i
		}
		if strings.Contains(r, "slow words") && a < 0 {
			a = i
		}
	}
	if q < 0 || a-q != 3 {
		t.Errorf("%d rows from the second prompt to its answer, want 3", a-q)
	}
	if t.Failed() {
		t.Logf("scrollback:\n%s", all)
	}
}
