package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestChangeSizeSignal(t *testing.T) {
	p := &fakeProbe{ok: true, changed: map[string]int{"old.go": 40}, files: map[string]int{}}
	c := newCore(t, func(cfg *Config) { cfg.Probe = p; cfg.MaxChangedLines = 100 })
	c.OnUserMessage("Implement the exporter", true)
	run(c, toolCall("1", "read", map[string]any{"path": "a.go"}), nil, false) // reads take no baseline
	p.changed["old.go"] = 50                                                  // before the first change: part of the baseline
	edit := toolCall("2", "edit", map[string]any{"path": "a.go"})
	c.BeforeToolCall(t.Context(), edit, nil)
	p.changed["a.go"] = 90
	p.changed["old.go"] = 30
	c.AfterToolCall(edit, result(edit, "ok", false))
	st := c.Status().Evidence.Slices
	if !st.ChangeSizeAvailable || st.ChangedLines != 110 || st.ChangedFiles != 2 {
		t.Fatalf("slices %+v", st)
	}
	state := c.State(nil)
	if !strings.Contains(state, "This request has changed about 110 lines in 2 files (guideline: 100). Verify and report this slice before starting more, and propose how to split the rest.") {
		t.Fatalf("state:\n%s", state)
	}
	// A new request measures from a new baseline.
	c.OnUserMessage("Now the importer", true)
	if st := c.Status().Evidence.Slices; st.ChangedLines != 0 {
		t.Fatalf("not reset: %+v", st)
	}
}

func TestChangeSizeUnavailable(t *testing.T) {
	p := &fakeProbe{ok: false}
	c := newCore(t, func(cfg *Config) { cfg.Probe = p })
	c.OnUserMessage("Implement it", true)
	run(c, toolCall("1", "write", map[string]any{"path": "a.go"}), nil, false)
	st := c.Status()
	if st.Evidence.Slices.ChangeSizeAvailable {
		t.Fatal("available without a repository")
	}
	if !strings.Contains(st.Format(), "change size: unavailable (needs a git repository)") {
		t.Fatal(st.Format())
	}
}

func TestFileGrowthSignal(t *testing.T) {
	p := &fakeProbe{ok: true, files: map[string]int{"big.go": 990, "huge.go": 1500}}
	c := newCore(t, func(cfg *Config) { cfg.Probe = p })
	c.OnUserMessage("Extend it", true)
	step := func(id, path string, after int, fail bool) {
		call := toolCall(id, "edit", map[string]any{"path": path})
		c.BeforeToolCall(t.Context(), call, nil)
		p.files[path] = after
		c.AfterToolCall(call, result(call, "x", fail))
	}
	step("1", "huge.go", 1550, false) // already over, small growth: not flagged
	step("2", "big.go", 1010, false)  // crosses the guideline
	step("3", "new.go", 0, false)     // under
	step("4", "huge.go", 1550, true)  // failed calls are ignored
	over := c.Status().Evidence.Slices.Oversized
	if len(over) != 1 || over[0] != (OversizedFile{"big.go", 1010}) {
		t.Fatalf("oversized %+v", over)
	}
	step("5", "huge.go", 1800, false) // grew by 250 while over
	if !strings.Contains(c.State(nil), "huge.go now has 1800 lines (guideline: 1000). Before adding more to it, extract a cohesive part into its own module.") {
		t.Fatal(c.State(nil))
	}
	step("6", "big.go", 950, false) // back under: cleared
	over = c.Status().Evidence.Slices.Oversized
	if len(over) != 1 || over[0].Path != "huge.go" {
		t.Fatalf("oversized %+v", over)
	}
	// Disabled: no slice status.
	c = newCore(t, func(cfg *Config) { cfg.MaxChangedLines, cfg.MaxFileLines = 0, 0 })
	if c.Status().Evidence.Slices != nil || !strings.Contains(c.Status().Format(), "slice signals: disabled") {
		t.Fatal("slices should be off")
	}
}

func TestGitProbe(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	gitRun := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	probe := GitProbe(dir)
	if _, ok := probe.ChangedLines(t.Context()); ok {
		t.Fatal("not a repository yet")
	}
	gitRun("init", "-q")
	write("a.txt", "1\n2\n3\n")
	write("bin.dat", "\x00\x01\x02")
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "init")
	write("a.txt", "1\nTWO\n3\n4\n") // 1 deleted, 2 added
	write("bin.dat", "\x00\x03\x04") // binary: skipped
	write("new.txt", "a\nb")         // untracked, no final newline: 2 lines
	write(".gitignore", "ignored.txt\n")
	write("ignored.txt", "x\n")
	got, ok := probe.ChangedLines(t.Context())
	if !ok {
		t.Fatal("probe failed")
	}
	want := map[string]int{"a.txt": 3, "new.txt": 2, ".gitignore": 1}
	if len(got) != len(want) {
		t.Fatalf("changed %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("changed %v, want %v", got, want)
		}
	}
	if n, ok := probe.FileLines("a.txt"); !ok || n != 4 {
		t.Fatalf("FileLines = %d %v", n, ok)
	}
	if _, ok := probe.FileLines("missing.txt"); ok {
		t.Fatal("missing file counted")
	}
}
