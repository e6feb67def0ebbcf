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
