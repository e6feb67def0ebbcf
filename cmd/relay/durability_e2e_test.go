package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// runTimed runs c with a deadline: a hostile input must end with a clear
// message, never hang.
func runTimed(t *testing.T, c *exec.Cmd, limit time.Duration) (stdout, stderr string, code int) {
	t.Helper()
	var o, er bytes.Buffer
	c.Stdout, c.Stderr = &o, &er
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		c.Process.Kill()
		<-done
		t.Fatalf("%v did not finish within %v\nstdout %q\nstderr %q", c.Args, limit, o.String(), er.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), er.String(), code
}

// TestPrintSessionDirCannotBeCreated: the run stops before the model is
// called, the error is on stderr, and the exit status is 1.
func TestPrintSessionDirCannotBeCreated(t *testing.T) {
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{{Text: "never"}}}, nil)
	blocker := filepath.Join(e.cwd, "blocker")
	os.WriteFile(blocker, nil, 0o644)
	out, errOut, code := runTimed(t, e.cmd(nil, "-p", model, "--session-dir", filepath.Join(blocker, "sessions"), "hi"), time.Minute)
	if code != 1 || out != "" || !strings.Contains(errOut, "write session "+filepath.Join(blocker, "sessions")) {
		t.Fatalf("exit %d stdout %q stderr %q; want exit 1 and the session error on stderr", code, out, errOut)
	}
	if n := len(e.fake.Requests()); n != 0 {
		t.Errorf("the model was called %d times although nothing could be saved", n)
	}
}

// TestPrintFullDisk fills a small tmpfs (mounted in a private user and
// mount namespace, so no privilege is needed) while the agent works through
// tool turns: the run must stop at the first failed write, report it on
// stderr with exit 1, and run no tool after it.
func TestPrintFullDisk(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare not installed")
	}
	probe := t.TempDir()
	if out, err := exec.Command(unshare, "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs \"$1\"", "sh", probe).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs in a user namespace: %v %s", err, out)
	}
	var turns []llmtest.Response
	for range 30 {
		// Each tool result is about 2 KB; the tmpfs has 16 KB free.
		turns = append(turns, llmtest.Response{ToolCalls: []llmtest.Block{tc("bash", `{"command":"echo run >> ../ran.log; head -c 2000 /dev/zero | tr '\\0' x"}`)}})
	}
	turns = append(turns, llmtest.Response{Text: "stale final text"})
	e := newEnv(t, &llmtest.Script{Responses: turns}, nil)
	sessDir := filepath.Join(filepath.Dir(e.cwd), "sessfs")
	os.MkdirAll(sessDir, 0o755)
	saved := filepath.Join(filepath.Dir(e.cwd), "saved.jsonl")
	script := `mount -t tmpfs -o size=64k tmpfs "$1" && head -c 49152 /dev/zero > "$1/filler" || exit 9
d=$1; out=$2; shift 2; "$@"; rc=$?; cp "$d"/*.jsonl "$out"; exit $rc`
	c := e.cmd(nil)
	c.Path = unshare
	c.Args = []string{unshare, "-rm", "sh", "-c", script, "sh", sessDir, saved, relayBin, "-p", model, "--session-dir", sessDir, "loop"}
	out, errOut, code := runTimed(t, c, 2*time.Minute)
	if code != 1 || !strings.Contains(errOut, "no space left on device") || strings.Contains(out, "stale final text") {
		t.Fatalf("exit %d stdout %q stderr %q; want exit 1 and ENOSPC on stderr", code, out, errOut)
	}
	reqs := len(e.fake.Requests())
	ran, _ := os.ReadFile(filepath.Join(filepath.Dir(e.cwd), "ran.log"))
	runs := strings.Count(string(ran), "run")
	if reqs >= len(turns) || runs > reqs {
		t.Errorf("%d model requests and %d tool runs: the run went on after the disk filled", reqs, runs)
	}
	// What reached the disk is a clean prefix: no torn line, and at most
	// the one tool result whose write failed is missing.
	if o, eo, code := e.run("sessions", "check", saved); code != 0 {
		t.Errorf("sessions check: exit %d\n%s%s", code, o, eo)
	}
	data, _ := os.ReadFile(saved)
	if onDisk := strings.Count(string(data), `"role":"toolResult"`); onDisk < runs-1 {
		t.Errorf("%d tool runs but %d results on disk", runs, onDisk)
	}
	t.Logf("stopped after %d requests, %d tool runs: %s", reqs, runs, strings.TrimSpace(errOut))
}

// TestPrintOverflowWithNothingToCompact: a 400 "prompt is too long" on the
// first prompt leaves nothing to compact; after the recovery attempt the
// error goes to stderr with exit 1 (print mode's rule for failed replies).
func TestPrintOverflowWithNothingToCompact(t *testing.T) {
	overflow := llmtest.Response{Fault: &llmtest.Fault{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`}}
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{overflow}, Repeat: true}, nil)
	out, errOut, code := runTimed(t, e.cmd(nil, "-p", model, "a prompt that does not fit"), time.Minute)
	if code != 1 || out != "" || !strings.Contains(errOut, "prompt is too long") {
		t.Fatalf("exit %d stdout %q stderr %q; want exit 1 and the provider error on stderr", code, out, errOut)
	}
}
