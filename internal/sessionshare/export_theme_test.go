package sessionshare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/tui/theme"
)

// /export colours the page with the `theme` setting: a custom theme file's
// export block, or the built-in pair (following the reader's colour
// scheme) when no theme is set.
func TestExportUsesThemeSetting(t *testing.T) {
	e := newEnv(t)
	e.seed(t)
	p, err := e.f.exportSession("plain.html")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if !strings.Contains(string(b), "prefers-color-scheme: light") {
		t.Error("without a theme setting the page should follow the reader's scheme")
	}

	dark, _ := os.ReadFile(filepath.Join("..", "tui", "theme", "builtin", "dark.json"))
	custom := strings.Replace(string(dark), `"name": "dark"`, `"name": "mine"`, 1)
	custom = strings.Replace(custom, `"pageBg": "okhsl(262 14% 16%)"`, `"pageBg": "#123456"`, 1)
	if _, err := theme.Parse([]byte(custom)); err != nil || !strings.Contains(custom, "#123456") {
		t.Fatalf("custom theme: %v", err)
	}
	os.MkdirAll(filepath.Join(e.agentDir, "themes"), 0o755)
	os.WriteFile(filepath.Join(e.agentDir, "themes", "mine.json"), []byte(custom), 0o644)
	os.WriteFile(filepath.Join(e.agentDir, "settings.json"), []byte(`{"theme":"mine"}`), 0o644)
	p, err = e.f.exportSession("themed.html")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(p)
	if !strings.Contains(string(b), "--exportPageBg:#123456;") || strings.Contains(string(b), "prefers-color-scheme: light") {
		t.Error("the page should use the custom theme's export block only")
	}
}
