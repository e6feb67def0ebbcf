package llmtest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// Golden compares got with the file testdata/name, or rewrites that file
// when update is set. update is the calling package's -update flag: llmtest
// cannot declare the flag itself, since several packages that import it
// declare their own.
func Golden(t testing.TB, update bool, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from golden:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// GoldenJSON is Golden for v in relay's JSON encoding (llm.Marshal),
// indented by two spaces and ended by a newline.
func GoldenJSON(t testing.TB, update bool, name string, v any) {
	t.Helper()
	got, err := llm.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	Golden(t, update, name, buf.Bytes())
}
