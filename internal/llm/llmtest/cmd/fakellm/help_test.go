package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// -help explains the script format with an example that is a valid
// script (every field known), so the documentation cannot drift.
func TestHelpDocumentsTheScriptFormat(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"-help"}, strings.NewReader(""), io.Discard, &out); code != 0 {
		t.Fatalf("-help exit %d", code)
	}
	help := out.String()
	for _, want := range []string{"-script", "models.json", `"rules"`, `"responses"`, "fault", "toolResult"} {
		if !strings.Contains(help, want) {
			t.Errorf("-help does not mention %s", want)
		}
	}
	start := strings.Index(help, "\n  {\n")
	end := strings.Index(help, "\n  }\n")
	if start < 0 || end < start {
		t.Fatalf("no example script in -help:\n%s", help)
	}
	path := filepath.Join(t.TempDir(), "example.json")
	os.WriteFile(path, []byte(help[start:end+4]), 0o644)
	s, err := llmtest.LoadScript(path)
	if err != nil {
		t.Fatalf("the example script does not load: %v", err)
	}
	if len(s.Rules) != 2 || len(s.Responses) != 2 || !s.Repeat || s.Responses[0].Stop() != "toolUse" {
		t.Errorf("example script read as %+v", s)
	}
}
