package builtin

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/shell"
	"github.com/relay-agent/relay/internal/tool"
)

func TestBashBasics(t *testing.T) {
	env := newEnv(t)
	t.Setenv("RELAY_PROVIDER", "inherited")
	b := mustTool(t, "bash", env)
	wantText(t, call(t, b, map[string]any{"command": "echo hi; echo err >&2"}), false, "hi\nerr\n")
	wantText(t, call(t, b, map[string]any{"command": "true"}), false, "(no output)")
	wantText(t, call(t, b, map[string]any{"command": "echo out; exit 3"}), true, "out\n\n\nCommand exited with code 3")
	wantText(t, call(t, b, map[string]any{"command": "exit 1"}), true, "(no output)\n\nCommand exited with code 1")
	wantText(t, call(t, b, map[string]any{"command": "kill -9 $$"}), true, "(no output)\n\nCommand exited with code 137")
	// The run calling the tool names itself in RELAY_*; inherited copies
	// never leak, inside a run or outside one.
	turn := tool.WithTurn(context.Background(), tool.Turn{Model: &llm.Model{Provider: "tp", ID: "test-model"}, ThinkingLevel: llm.ThinkingHigh, SessionID: "sid"})
	vars := map[string]any{"command": `echo "$RELAY_MODEL|$RELAY_PROVIDER|$RELAY_SESSION_ID|$RELAY_REASONING_LEVEL|$RELAY_SESSION_FILE|$GIT_TERMINAL_PROMPT|$(pwd)"`}
	wantText(t, callCtx(t, turn, b, vars), false, "test-model|tp|sid|high||0|"+env.Cwd+"\n")
	wantText(t, call(t, b, vars), false, "|||||0|"+env.Cwd+"\n")
	wantText(t, call(t, b, map[string]any{"command": `printf '\033[31mred\033[0m\r\n'`}), false, "red\n")
	wantText(t, call(t, b, map[string]any{"command": "cat"}), false, "(no output)") // stdin is /dev/null

	env.ShellCommandPrefix = "shopt -s expand_aliases; alias greet='echo hello'"
	wantText(t, call(t, mustTool(t, "bash", env), map[string]any{"command": "greet"}), false, "hello\n")
}

func TestBashBadInput(t *testing.T) {
	env := newEnv(t)
	b := mustTool(t, "bash", env)
	wantText(t, call(t, b, map[string]any{"command": "true", "timeout": 0}), true, "Invalid timeout: must be a finite number of seconds")
	wantText(t, call(t, b, map[string]any{"command": "true", "timeout": -5}), true, "Invalid timeout: must be a finite number of seconds")
	wantText(t, call(t, b, map[string]any{"command": "true", "timeout": 1e12}), true, "Invalid timeout: maximum is 2147483.647 seconds")
	wantContains(t, call(t, b, `{"command":5}`), true, "command: expected a string, got a number")
	wantContains(t, call(t, b, `{}`), true, "command: required string is missing")
	env.Cwd = "/nonexistent/relay-dir"
	wantText(t, call(t, mustTool(t, "bash", env), map[string]any{"command": "true"}), true,
		"Working directory does not exist: /nonexistent/relay-dir\nCannot execute bash commands.")
	env = newEnv(t)
	env.ShellPath = "/no/such/shell"
	wantText(t, call(t, mustTool(t, "bash", env), map[string]any{"command": "true"}), true, "Custom shell path not found: /no/such/shell")
}

func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not finish within %v", d)
	}
}

func TestBashHangCases(t *testing.T) {
	env := newEnv(t)
	b := mustTool(t, "bash", env)
	within(t, 10*time.Second, func() {
		wantText(t, call(t, b, map[string]any{"command": "sleep 100 & echo started"}), false, "started\n")
	})
	within(t, 10*time.Second, func() {
		wantText(t, call(t, b, map[string]any{"command": "echo partial; sleep 30", "timeout": 0.5}), true,
			"partial\n\n\nCommand timed out after 0.5 seconds")
	})
	within(t, 10*time.Second, func() {
		r := call(t, b, map[string]any{"command": "yes", "timeout": 1})
		if !r.IsError || !strings.HasSuffix(text(r), "Command timed out after 1 seconds") {
			t.Errorf("infinite output: %q", text(r)[max(0, len(text(r))-200):])
		}
		d := r.Details.(*BashDetails)
		if d.FullOutputPath == "" || !strings.Contains(text(r), "[Showing lines ") {
			t.Errorf("details %+v", d)
		}
		if st, err := os.Stat(d.FullOutputPath); err != nil || st.Size() < int64(min(d.Truncation.TotalBytes, maxSpillBytes)) || st.Size() > int64(maxSpillBytes+200) {
			t.Errorf("spill file: %v %v", st, err)
		}
	})
	within(t, 10*time.Second, func() {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		wantText(t, callCtx(t, ctx, b, map[string]any{"command": "echo before; sleep 60"}), true, "before\n\n\nCommand aborted")
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantText(t, callCtx(t, ctx, b, map[string]any{"command": "echo x"}), true, "Command aborted")
}

func TestBashTruncationNotices(t *testing.T) {
	env := newEnv(t)
	b := mustTool(t, "bash", env)
	r := call(t, b, map[string]any{"command": "seq 1 3000"})
	d := r.Details.(*BashDetails)
	want := "\n\n[Showing lines 1002-3000 of 3000. Full output: " + d.FullOutputPath + "]"
	if !strings.HasSuffix(text(r), want) || !strings.HasPrefix(d.FullOutputPath, env.TempDir+"/relay-bash-") || !strings.HasSuffix(d.FullOutputPath, ".log") {
		t.Errorf("lines notice: %q (path %s)", text(r)[len(text(r))-120:], d.FullOutputPath)
	}
	full, _ := os.ReadFile(d.FullOutputPath)
	if !strings.HasPrefix(string(full), "1\n2\n") || !strings.HasSuffix(string(full), "3000\n") {
		t.Errorf("full output file has %d bytes", len(full))
	}
	r = call(t, b, map[string]any{"command": "for i in $(seq 1 700); do printf '%099d\\n' $i; done"})
	d = r.Details.(*BashDetails)
	if !strings.HasSuffix(text(r), "\n\n[Showing lines 189-700 of 700 (50.0KB limit). Full output: "+d.FullOutputPath+"]") {
		t.Errorf("bytes notice: %q", text(r)[len(text(r))-120:])
	}
	r = call(t, b, map[string]any{"command": "head -c 70000 /dev/zero | tr '\\0' x"})
	d = r.Details.(*BashDetails)
	if !strings.HasSuffix(text(r), "\n\n[Showing last 50.0KB of line 1 (line is 68.4KB). Full output: "+d.FullOutputPath+"]") {
		t.Errorf("partial line notice: %q", text(r)[len(text(r))-120:])
	}
	r = call(t, b, map[string]any{"command": "echo first; head -c 70000 /dev/zero | tr '\\0' x; echo"})
	d = r.Details.(*BashDetails)
	if !strings.HasSuffix(text(r), "\n\n[Showing last 50.0KB of line 2 (line is 68.4KB). Full output: "+d.FullOutputPath+"]") {
		t.Errorf("partial line notice with final newline: %q", text(r)[len(text(r))-120:])
	}
}

func TestBashStreamsThrottledUpdates(t *testing.T) {
	env := newEnv(t)
	b := mustTool(t, "bash", env)
	var mu sync.Mutex
	var updates []string
	r := b.Execute(context.Background(), []byte(`{"command":"for i in 1 2 3 4 5; do echo $i; sleep 0.1; done"}`), func(u tool.Result) {
		mu.Lock()
		updates = append(updates, text(u))
		mu.Unlock()
	})
	mu.Lock()
	defer mu.Unlock()
	if text(r) != "1\n2\n3\n4\n5\n" || len(updates) < 3 || updates[0] != "" || updates[len(updates)-1] != "1\n2\n3\n4\n5\n" {
		t.Errorf("result %q updates %q", text(r), updates)
	}
}

func TestRunShell(t *testing.T) {
	env := newEnv(t)
	var chunks strings.Builder
	res, err := RunShell(context.Background(), env, "printf 'a\\033[1mb\\r\\n'; exit 4", func(s string) { chunks.WriteString(s) })
	if err != nil || res.Output != "ab\n" || res.ExitCode == nil || *res.ExitCode != 4 || res.Cancelled || chunks.String() != "ab\n" {
		t.Errorf("got %+v %v chunks %q", res, err, chunks.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	within(t, 10*time.Second, func() {
		res, err = RunShell(ctx, env, "sleep 30", nil)
	})
	if err != nil || !res.Cancelled || res.ExitCode != nil {
		t.Errorf("cancel: %+v %v", res, err)
	}
	res, err = RunShell(context.Background(), env, "seq 1 5000", nil)
	if err != nil || !res.Truncated || res.FullOutputPath == "" || !strings.HasSuffix(res.Output, "5000\n") {
		t.Errorf("truncated: %v %v %q", res.Truncated, err, res.FullOutputPath)
	}
}

// TestPowerShellTool runs the powershell tool against a stand-in that
// records the script it is given, to pin the UTF-8 prefix line, the schema
// and the temp file prefix without PowerShell installed.
func TestPowerShellTool(t *testing.T) {
	dir := t.TempDir()
	fake := dir + "/pwsh"
	os.WriteFile(fake, []byte("#!/bin/sh\nshift 3\nprintf '%s' \"$1\" | head -1\necho\nseq 1 3000\n"), 0o755)
	old := findPowerShell
	findPowerShell = func() (shell.Config, bool) {
		return shell.Config{Path: fake, Args: []string{"-NoLogo", "-NoProfile", "-Command"}}, true
	}
	defer func() { findPowerShell = old }()
	env := newEnv(t)
	ps := &shellTool{env: env, kind: powershellKind}
	if ps.Spec().Name != "powershell" || !strings.Contains(ps.Spec().Description, "Execute a PowerShell command") {
		t.Errorf("spec %+v", ps.Spec())
	}
	r := call(t, ps, map[string]any{"command": "Get-ChildItem"})
	d := r.Details.(*BashDetails)
	if !strings.Contains(d.FullOutputPath, "/relay-powershell-") || !strings.HasSuffix(text(r), "[Showing lines 1004-3002 of 3002. Full output: "+d.FullOutputPath+"]") {
		t.Errorf("powershell output: %q", text(r)[len(text(r))-150:])
	}
	full, _ := os.ReadFile(d.FullOutputPath)
	if !strings.HasPrefix(string(full), "try { [Console]::OutputEncoding=[System.Text.Encoding]::UTF8 } catch {}\n") {
		t.Errorf("script head: %q", string(full)[:80])
	}
}

// A huge single-line output reaches the model as the tail of that line,
// whether or not a final newline follows it.
func TestBashHugeSingleLineKeepsTail(t *testing.T) {
	env := newEnv(t)
	b := mustTool(t, "bash", env)
	for _, cmd := range []string{
		`head -c 3000000 /dev/zero | tr '\0' a; printf END`,
		`head -c 3000000 /dev/zero | tr '\0' a; echo END`,
		`head -c 3000000 /dev/zero | tr '\0' a; printf 'END\n\n'`,
	} {
		r := call(t, b, map[string]any{"command": cmd})
		got := text(r)
		d, _ := r.Details.(*BashDetails)
		if d == nil || r.IsError {
			t.Fatalf("%s: %q", cmd, got[:min(len(got), 200)])
		}
		if !strings.Contains(got, strings.Repeat("a", 1000)+"END") ||
			!strings.Contains(got, "[Showing last 50.0KB of line 1 (line is 2.9MB). Full output: "+d.FullOutputPath+"]") {
			t.Errorf("%s: %q", cmd, got[max(0, len(got)-300):])
		}
		if d.Truncation.Content == "" || d.Truncation.OutputBytes > tool.DefaultMaxBytes {
			t.Errorf("%s: shown %d bytes", cmd, d.Truncation.OutputBytes)
		}
	}
}

func TestBashFullOutputFileCappedAndRemoved(t *testing.T) {
	defer func(n int) { maxSpillBytes = n }(maxSpillBytes)
	maxSpillBytes = 3 << 20
	env := newEnv(t)
	r := call(t, mustTool(t, "bash", env), map[string]any{"command": `seq 1 2000000`}) // 14.8 MB
	d := r.Details.(*BashDetails)
	full, err := os.ReadFile(d.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) > maxSpillBytes+200 {
		t.Errorf("full-output file is %d bytes, over its %d cap", len(full), maxSpillBytes)
	}
	head, tail, ok := strings.Cut(string(full), "\n\n[relay: ")
	marker, tail, _ := strings.Cut(tail, "]\n\n")
	if !ok || !strings.HasPrefix(head, "1\n2\n3\n") || !strings.HasSuffix(tail, "\n1999999\n2000000\n") || len(tail) != spillTailBytes {
		t.Errorf("file: head %q... marker %q tail ...%q (%d bytes)", head[:min(20, len(head))], marker, tail[max(0, len(tail)-20):], len(tail))
	}
	if want := fmt.Sprintf("%d bytes of output omitted here; this file keeps the first 2.0MB and the last 1.0MB", 14888896-3<<20); marker != want {
		t.Errorf("marker %q, want %q", marker, want)
	}
	RemoveOutputFiles()
	if _, err := os.Stat(d.FullOutputPath); !os.IsNotExist(err) {
		t.Errorf("full-output file still there after RemoveOutputFiles: %v", err)
	}
}
