package settings

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSaveKeepsUnknownKeysAndOrder(t *testing.T) {
	e := newEnv(t)
	e.user(t, `{
  "zeta": {"custom": [1, 2.50, "x<y>"]},
  "theme": "dark",
  "compaction": {"keepRecentTokens": 5},
  "alpha": true
}`)
	steps := []struct {
		path  []string
		value any
	}{
		{[]string{"theme"}, "light"},
		{[]string{"compaction", "enabled"}, false},
		{[]string{"modelThinkingLevels", "openai/gpt-4.1"}, "high"},
		{[]string{"retry", "provider", "timeoutMs"}, 1000},
		{[]string{"defaultTools"}, []string{"+grep"}},
	}
	for _, st := range steps {
		if err := SetUser(e.agent, st.path, st.value); err != nil {
			t.Fatalf("SetUser(%v): %v", st.path, err)
		}
	}
	if err := SetDefaultModel(e.agent, "anthropic", "claude-x"); err != nil {
		t.Fatal(err)
	}
	golden(t, "save/edited.golden.json", readFile(t, filepath.Join(e.agent, "settings.json")))

	s, diags := e.load(true)
	for _, d := range diags {
		if d.Severity == SeverityError {
			t.Errorf("saved file does not load cleanly: %v", d)
		}
	}
	if err := all(want(s.Theme, "light"), want(s.Compaction.Enabled, false), want(s.Compaction.KeepRecentTokens, 5),
		want(s.ProviderTimeoutMs(), 1000), want(s.DefaultProvider, "anthropic"), want(s.DefaultModel, "claude-x"),
		want(s.StartupThinkingLevel("openai", "gpt-4.1"), llm.ThinkingHigh)); err != nil {
		t.Error(err)
	}

	// Deleting the last key of an object removes the object.
	if err := SetModelThinkingLevel(e.agent, "openai", "gpt-4.1", ""); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(readFile(t, filepath.Join(e.agent, "settings.json")), "modelThinkingLevels") {
		t.Error("empty modelThinkingLevels left behind")
	}
	// No temporary or lock files are left.
	entries, _ := os.ReadDir(e.agent)
	if len(entries) != 1 {
		t.Errorf("agent dir holds %d entries, want only settings.json", len(entries))
	}
}

func TestSaveCreatesFile(t *testing.T) {
	e := newEnv(t)
	agent := filepath.Join(e.agent, "new", "dir")
	if err := SetDefaultThinkingLevel(agent, llm.ThinkingXHigh); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(agent, "settings.json")); got != "{\n  \"defaultThinkingLevel\": \"xhigh\"\n}\n" {
		t.Errorf("got %q", got)
	}
}

func TestSetRejects(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name    string
		project bool
		path    []string
		value   any
		errPart string
	}{
		{"unknown key", false, []string{"nope"}, 1, "nope: unknown setting"},
		{"unknown nested key", false, []string{"compaction", "nope"}, 1, "compaction.nope: unknown setting"},
		{"wrong type", false, []string{"hideThinkingBlock"}, "yes", "hideThinkingBlock: expected true or false"},
		{"out of range", false, []string{"editorPaddingX"}, 7, "expected an integer from 0 to 3"},
		{"bad enum", false, []string{"steeringMode"}, "some", `expected one of "all", "one-at-a-time"`},
		{"bad override", false, []string{"compaction", "modelOverrides", "a/b.c", "reserveTokens"}, -1, `compaction.modelOverrides["a/b.c"].reserveTokens`},
		{"agent-only in project", true, []string{"httpProxy"}, "http://x", "can only be set in the agent-directory"},
		{"empty key", false, nil, 1, "empty key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.project {
				err = SetProject(e.cwd, tt.path, tt.value)
			} else {
				err = SetUser(e.agent, tt.path, tt.value)
			}
			if err == nil || !strings.Contains(err.Error(), tt.errPart) {
				t.Errorf("err = %v, want it to contain %q", err, tt.errPart)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(e.agent, "settings.json")); err == nil {
		t.Error("a rejected value was written")
	}
}

func TestSaveRefusesBrokenFile(t *testing.T) {
	e := newEnv(t)
	broken := `{"theme": "dark",`
	e.user(t, broken)
	err := SetUser(e.agent, []string{"theme"}, "light")
	if err == nil || !strings.Contains(err.Error(), "invalid JSON at line 1") {
		t.Errorf("err = %v", err)
	}
	if got := readFile(t, filepath.Join(e.agent, "settings.json")); got != broken {
		t.Errorf("broken file was overwritten: %q", got)
	}
}

func TestSaveProject(t *testing.T) {
	e := newEnv(t)
	if err := SetProject(e.cwd, []string{"packages"}, []any{"npm:x", map[string]any{"source": "./p", "skills": []string{}}}); err != nil {
		t.Fatal(err)
	}
	s, diags := e.load(true)
	if len(diags) != 0 || len(s.Packages) != 2 {
		t.Errorf("packages = %+v, diags = %v", s.Packages, diags)
	}
}

func TestConcurrentSavesDoNotLoseUpdates(t *testing.T) {
	e := newEnv(t)
	var wg sync.WaitGroup
	keys := []string{"minimal", "low", "medium", "high"}
	for i, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := SetUser(e.agent, []string{"thinkingBudgets", k}, 100*(i+1)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s, _ := e.load(true)
	if len(s.ThinkingBudgets) != 4 {
		t.Errorf("thinkingBudgets = %v, want all four", s.ThinkingBudgets)
	}
}

func TestStaleLockIsBroken(t *testing.T) {
	e := newEnv(t)
	lock := filepath.Join(e.agent, "settings.json.lock")
	if err := os.Mkdir(lock, 0o755); err != nil {
		t.Fatal(err)
	}
	old := mustTime(t, "2020-01-01T00:00:00Z")
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	if err := SetUser(e.agent, []string{"theme"}, "dark"); err != nil {
		t.Fatal(err)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func TestParseKey(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		bad  bool
	}{
		{"theme", []string{"theme"}, false},
		{"retry.provider.timeoutMs", []string{"retry", "provider", "timeoutMs"}, false},
		{`compaction.modelOverrides["openai/gpt-4.1"].reserveTokens`, []string{"compaction", "modelOverrides", "openai/gpt-4.1", "reserveTokens"}, false},
		{`modelThinkingLevels["a/b"]`, []string{"modelThinkingLevels", "a/b"}, false},
		{"", nil, true},
		{"a..b", nil, true},
		{"a.", nil, true},
		{`a["x`, nil, true},
	}
	for _, tt := range tests {
		got, err := ParseKey(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("ParseKey(%q) err = %v", tt.in, err)
			continue
		}
		if !tt.bad {
			if err := want(got, tt.want); err != nil {
				t.Errorf("ParseKey(%q): %v", tt.in, err)
			}
			if back := keyString(got); back != tt.in {
				t.Errorf("keyString(ParseKey(%q)) = %q", tt.in, back)
			}
		}
	}
}

func TestSavedFileEndsWithNewline(t *testing.T) {
	dir := t.TempDir()
	if err := SetUser(dir, []string{"theme"}, "dark"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(data), "}\n") || strings.HasSuffix(string(data), "\n\n") {
		t.Errorf("settings.json = %q, want one final newline", data)
	}
}
