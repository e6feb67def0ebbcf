package session

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Resuming a large session keeps its file's bytes (every entry's record,
// for byte-exact round trips) and the branch's decoded messages. Text
// without escapes must not be held twice: the decoded strings are views of
// the records. Before they were, the heap retained about twice the file's
// size (issue 11: a 50 MB session peaked far above 150 MB RSS).
func TestResumeRetainsAboutTheFileSize(t *testing.T) {
	const entries, text = 2000, 4000
	var sb strings.Builder
	sb.WriteString(hdr + "\n")
	parent := ""
	pad := strings.Repeat("lorem ipsum dolor sit amet ", text/27+1)[:text]
	for i := range entries {
		id := fmt.Sprintf("%08x", i+1)
		sb.WriteString(line(id, parent, pad) + "\n")
		parent = id
	}
	p := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	size := uint64(sb.Len())
	sb = strings.Builder{}

	before := liveHeap()
	m, err := Open(p, "")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := m.BuildSessionContext()
	if len(ctx.Messages) != entries {
		t.Fatalf("context has %d messages, want %d", len(ctx.Messages), entries)
	}
	retained := liveHeap() - min(before, liveHeap())
	runtime.KeepAlive(ctx)
	t.Logf("file %d bytes, retained %d bytes", size, retained)
	// The records (size) plus the entry and message structures; a second
	// copy of the text would add size again.
	if limit := size * 13 / 10; retained > limit {
		t.Errorf("an open %d-byte session with its context retains %d bytes of heap, want ≤ %d (1.3× the file)", size, retained, limit)
	}
}

// liveHeap is the heap still in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Branch follows parent links to a root; a corrupt file whose parent links
// loop yields each entry of the loop once, and a missing parent ends the
// branch (the entry is treated as a root).
func TestBranchParentChains(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		from  string
		want  string
	}{
		{"linear", []string{line("a", "", "1"), line("b", "a", "2"), line("c", "b", "3")}, "c", "a b c"},
		{"mid-branch", []string{line("a", "", "1"), line("b", "a", "2"), line("c", "b", "3")}, "b", "a b"},
		{"fork", []string{line("a", "", "1"), line("b", "a", "2"), line("c", "a", "3")}, "c", "a c"},
		{"missing parent", []string{line("a", "", "1"), line("b", "zz", "2"), line("c", "b", "3")}, "c", "b c"},
		{"two-entry loop", []string{line("a", "b", "1"), line("b", "a", "2")}, "b", "a b"},
		{"self loop", []string{line("a", "a", "1")}, "a", "a"},
		{"loop above the leaf", []string{line("a", "b", "1"), line("b", "a", "2"), line("c", "b", "3")}, "c", "a b c"},
		{"unknown id", []string{line("a", "", "1")}, "nope", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Load(writeFile(t, hdr+"\n"+strings.Join(tc.lines, "\n")+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range m.Branch(tc.from) {
				ids = append(ids, e.ID)
			}
			if got := strings.Join(ids, " "); got != tc.want {
				t.Errorf("Branch(%q) = %q, want %q", tc.from, got, tc.want)
			}
		})
	}
}

// Building a branch allocates the branch and nothing else: resuming a long
// session builds several, and a set of visited ids per call was megabytes
// of garbage that raised the peak memory of a resume.
func TestBranchAllocatesOnlyThePath(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(hdr + "\n")
	parent := ""
	for i := range 2000 {
		id := fmt.Sprintf("%08x", i+1)
		sb.WriteString(line(id, parent, "x") + "\n")
		parent = id
	}
	m, err := Load(writeFile(t, sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.Branch("")); n != 2000 {
		t.Fatalf("branch of %d entries, want 2000", n)
	}
	if a := testing.AllocsPerRun(5, func() { m.Branch("") }); a > 1 {
		t.Errorf("Branch made %.0f allocations, want 1 (the path)", a)
	}
}
