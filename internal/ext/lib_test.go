package ext

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/relay-agent/relay/internal/tool"
	"github.com/relay-agent/relay/internal/tool/builtin"
)

// A wrapper registered as "read" calls the original through
// createReadTool: relay's built-in runs (the registry's "read" is the
// wrapper itself, so a call by name would recurse), in ctx.cwd, and the
// factory's declaration is the built-in's.
func TestToolFactoryRunsTheBuiltin(t *testing.T) {
	f := start(t, "factories.ts")
	cwd := f.m.opts.Cwd
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read, ok := f.tools.Get("read")
	if !ok {
		t.Fatal("read wrapper not registered")
	}
	want, _ := builtin.New("read", builtin.Env{})
	if got, exp := compactJSON(t, read.Spec().Parameters), compactJSON(t, want.Spec().Parameters); got != exp {
		t.Errorf("createReadTool(cwd).parameters = %s, want the built-in's %s", got, exp)
	}
	if read.Spec().Description != want.Spec().Description {
		t.Errorf("description %q, want the built-in's", read.Spec().Description)
	}
	r := read.Execute(context.Background(), json.RawMessage(`{"path":"notes.txt"}`), nil)
	text := r.Content.PlainText()
	if r.IsError || !strings.HasPrefix(text, "wrapped:") || !strings.Contains(text, "alpha\nbeta") {
		t.Fatalf("wrapped read = %q (error %v)", text, r.IsError)
	}
	r = read.Execute(context.Background(), json.RawMessage(`{"path":"missing.txt"}`), nil)
	if !strings.Contains(r.Content.PlainText(), "missing.txt") {
		t.Errorf("a missing file: %q, want the built-in's error naming it", r.Content.PlainText())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.errs {
		t.Errorf("unexpected extension error: %v", e)
	}
}

// createBashTool's spawnHook and commandPrefix reach relay's bash, its
// partial output streams through the wrapper, and aborting the wrapper's
// call ends the built-in's command.
func TestBashFactoryHookUpdatesAndAbort(t *testing.T) {
	f := start(t, "factories.ts")
	bash, ok := f.tools.Get("hooked_bash")
	if !ok {
		t.Fatal("hooked_bash not registered")
	}
	r := bash.Execute(context.Background(), json.RawMessage(`{"command":"echo $FROM_HOOK $FROM_PREFIX"}`), nil)
	if got := strings.TrimSpace(r.Content.PlainText()); r.IsError || got != "hooked prefixed" {
		t.Fatalf("bash through the factory = %q (error %v), want the hook's and the prefix's variables", got, r.IsError)
	}

	// The command waits for a file the test creates once the first line
	// streamed back: an update must arrive before the command ends.
	mark := filepath.Join(t.TempDir(), "go-on")
	args, _ := json.Marshal(map[string]string{"command": "echo one; while [ ! -f " + mark + " ]; do sleep 0.05; done; echo two"})
	var once sync.Once
	r = bash.Execute(context.Background(), args, func(p tool.Result) {
		if strings.Contains(p.Content.PlainText(), "one") {
			once.Do(func() { _ = os.WriteFile(mark, nil, 0o644) })
		}
	})
	if got := r.Content.PlainText(); r.IsError || !strings.Contains(got, "one\ntwo") {
		t.Fatalf("streamed bash = %q (error %v)", got, r.IsError)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r = bash.Execute(ctx, json.RawMessage(`{"command":"echo started; sleep 60; echo never"}`), func(p tool.Result) {
		if strings.Contains(p.Content.PlainText(), "started") {
			cancel()
		}
	})
	if got := r.Content.PlainText(); !r.IsError || strings.Contains(got, "never") {
		t.Fatalf("aborted bash = %q (error %v), want an aborted result", got, r.IsError)
	}
}

// read, write and edit with operations (ssh.ts's remote files) run
// relay's built-in on a copy the operations fill and take back; results
// name the model's path, never the copy's.
func TestToolFactoryOperations(t *testing.T) {
	f := start(t, "factories.ts")
	exec := func(name, args string) tool.Result {
		t.Helper()
		tl, ok := f.tools.Get(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		return tl.Execute(context.Background(), json.RawMessage(args), nil)
	}
	r := exec("mem_read", `{"path":"notes.txt","offset":2}`)
	if got := r.Content.PlainText(); r.IsError || !strings.HasPrefix(got, "remote two") || strings.Contains(got, "relay-ops-") {
		t.Errorf("read through operations = %q (error %v)", got, r.IsError)
	}
	r = exec("mem_read", `{"path":"gone.txt"}`)
	if got := r.Content.PlainText(); !r.IsError || got != "File not found: gone.txt" {
		t.Errorf("missing remote file = %q (error %v)", got, r.IsError)
	}
	r = exec("mem_edit", `{"path":"notes.txt","edits":[{"oldText":"remote two","newText":"edited two"}]}`)
	if got := r.Content.PlainText(); r.IsError || strings.Contains(got, "relay-ops-") || !strings.Contains(got, "notes.txt") {
		t.Errorf("edit through operations = %q (error %v)", got, r.IsError)
	}
	r = exec("mem_edit", `{"path":"notes.txt","edits":[{"oldText":"absent","newText":"x"}]}`)
	if !r.IsError || !strings.Contains(r.Content.PlainText(), "notes.txt") {
		t.Errorf("a failed edit = %q (error %v)", r.Content.PlainText(), r.IsError)
	}
	if r = exec("mem_write", `{"path":"sub/new.txt","content":"fresh"}`); r.IsError {
		t.Errorf("write through operations = %q", r.Content.PlainText())
	}
	var state struct {
		Files map[string]string `json:"files"`
		Dirs  []string          `json:"dirs"`
	}
	if err := json.Unmarshal([]byte(exec("mem_files", `{"path":"x"}`).Content.PlainText()), &state); err != nil {
		t.Fatal(err)
	}
	if got := state.Files["/remote/notes.txt"]; got != "remote one\nedited two\n" {
		t.Errorf("remote file after the edit = %q", got)
	}
	if got := state.Files["/remote/sub/new.txt"]; got != "fresh" || len(state.Dirs) != 1 || state.Dirs[0] != "/remote/sub" {
		t.Errorf("remote write: file %q, mkdir %v", got, state.Dirs)
	}
}

// BashOperations run in the host; the result is shaped as the built-in's:
// the exit status appended, long output cut to its tail with the whole in
// a file.
func TestBashOperations(t *testing.T) {
	f := start(t, "factories.ts")
	bash, ok := f.tools.Get("ops_bash")
	if !ok {
		t.Fatal("ops_bash not registered")
	}
	r := bash.Execute(context.Background(), json.RawMessage(`{"command":"echo out; exit 3"}`), nil)
	if got := r.Content.PlainText(); !r.IsError || got != "out\n\n\nCommand exited with code 3" {
		t.Errorf("failing command = %q (error %v)", got, r.IsError)
	}
	r = bash.Execute(context.Background(), json.RawMessage(`{"command":"seq 1 3000"}`), nil)
	got := r.Content.PlainText()
	if r.IsError || !strings.HasPrefix(got, "1002\n") || !strings.Contains(got, "\n3000\n") || !strings.Contains(got, "[Showing lines 1003-3001 of 3001. Full output: ") {
		t.Fatalf("long output = %.80q ... %q (error %v)", got, got[max(0, len(got)-120):], r.IsError)
	}
	full := got[strings.LastIndex(got, "Full output: ")+len("Full output: ") : len(got)-1]
	b, err := os.ReadFile(full)
	if err != nil || !strings.HasPrefix(string(b), "1\n2\n") {
		t.Errorf("full output file %s: %.20q (%v)", full, b, err)
	}
	_ = os.Remove(full)
}

// Operations relay cannot honour yet (grep's) fail the call naming the
// option: never a silent local grep.
func TestToolFactoryRefusesUnsupportedOperations(t *testing.T) {
	f := start(t, "factories.ts")
	rg, ok := f.tools.Get("remote_grep")
	if !ok {
		t.Fatal("remote_grep not registered")
	}
	r := rg.Execute(context.Background(), json.RawMessage(`{"pattern":"x"}`), nil)
	if !r.IsError || !strings.Contains(r.Content.PlainText(), "createGrepTool: option operations is not supported by relay yet") {
		t.Fatalf("remote grep = %q (error %v)", r.Content.PlainText(), r.IsError)
	}
}

func compactJSON(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
