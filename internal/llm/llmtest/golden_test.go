package llmtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// recordingTB notes failures instead of failing the test.
type recordingTB struct {
	testing.TB
	failed []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func TestGolden(t *testing.T) {
	t.Chdir(t.TempDir())
	Golden(t, true, "events/a.jsonl", []byte("one\n"))
	if b, err := os.ReadFile(filepath.Join("testdata", "events", "a.jsonl")); err != nil || string(b) != "one\n" {
		t.Fatalf("update wrote %q, %v", b, err)
	}
	Golden(t, false, "events/a.jsonl", []byte("one\n"))
	rec := &recordingTB{TB: t}
	Golden(rec, false, "events/a.jsonl", []byte("two\n"))
	if len(rec.failed) != 1 {
		t.Errorf("a difference was not reported: %q", rec.failed)
	}
	GoldenJSON(t, true, "b.json", map[string]any{"k": []int{1}, "h": "<b>"})
	if b, _ := os.ReadFile(filepath.Join("testdata", "b.json")); string(b) != "{\n  \"h\": \"<b>\",\n  \"k\": [\n    1\n  ]\n}\n" {
		t.Errorf("GoldenJSON wrote %q", b)
	}
}
