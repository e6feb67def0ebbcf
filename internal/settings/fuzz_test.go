package settings

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad: no settings file, however malformed, makes Load panic, and
// every diagnostic names its file.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{everyKey, `{`, `[]`, `{"compaction": {"modelOverrides": {"a": []}}}`,
		`{"packages": [{"source": 1}]}`, `{"skills": {"customDirectories": 3}}`, `{"retry": {"maxDelayMs": 1, "provider": 2}}`,
		`{"queueMode": 1, "websockets": "x"}`, "\ufeff", `{"a": 1e400}`} {
		f.Add(seed)
	}
	root := f.TempDir()
	agent := filepath.Join(root, "agent")
	cwd := filepath.Join(root, "proj")
	if err := os.MkdirAll(filepath.Join(cwd, ".relay"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.MkdirAll(agent, 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, content string) {
		for _, p := range []string{filepath.Join(agent, "settings.json"), filepath.Join(cwd, ".relay", "settings.json")} {
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s, diags := Load(LoadOptions{AgentDir: agent, Cwd: cwd, ProjectTrusted: true})
		if s == nil {
			t.Fatal("nil settings")
		}
		for _, d := range diags {
			if d.File == "" || d.Message == "" {
				t.Fatalf("incomplete diagnostic %+v", d)
			}
		}
	})
}
