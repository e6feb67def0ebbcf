package harness

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != got {
		t.Fatalf("%s differs:\n%s\n--- want:\n%s", name, got, want)
	}
}

func TestStatusFormat(t *testing.T) {
	p := &fakeProbe{ok: true, changed: map[string]int{}, files: map[string]int{"src/big.go": 1204}}
	c := newCore(t, func(cfg *Config) { cfg.Probe = p; cfg.VerifyCommands = []string{"npm run check"} })
	c.OnUserMessage("Fix the exporter. Never touch the public API.", true)
	edit := toolCall("1", "edit", map[string]any{"path": "src/big.go"})
	c.BeforeToolCall(t.Context(), edit, nil)
	p.changed["src/big.go"] = 230
	p.files["src/big.go"] = 1434
	c.AfterToolCall(edit, result(edit, "ok", false))
	run(c, bashCall("2", "npm run check"), nil, true)
	run(c, bashCall("3", "git push origin main"), nil, false)
	c.OnAssistantEnd(final("Fixed and verified."))
	c.OnUserMessage("Actually, keep the old name.", false)
	c.PrepareRequest(conversation(14, func(int) int { return 3000 }))

	st := c.Status()
	golden(t, "status.txt", st.Format())
	js, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "status.json", string(js)+"\n")

	off := New(Config{})
	golden(t, "status_disabled.txt", off.Status().Format())
}
