package settings

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad reads a user file with every key plus a project file: the
// cost paid on the way to the first model request.
func BenchmarkLoad(b *testing.B) {
	root := b.TempDir()
	agent, cwd := filepath.Join(root, "agent"), filepath.Join(root, "proj")
	for path, content := range map[string]string{
		filepath.Join(agent, "settings.json"):         everyKey,
		filepath.Join(cwd, ".relay", "settings.json"): `{"theme": "light", "defaultTools": ["+ls"], "compaction": {"keepRecentTokens": 10}}`,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, diags := Load(LoadOptions{AgentDir: agent, Cwd: cwd, ProjectTrusted: true}); len(diags) != 0 {
			b.Fatal(diags)
		}
	}
}
