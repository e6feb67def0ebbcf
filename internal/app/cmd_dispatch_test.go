package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunCommand(t *testing.T) {
	e := newCmdRuntime(t)
	e.seed(t)
	t.Setenv("PATH", t.TempDir()) // no clipboard tool, no gh
	ctx := context.Background()
	tests := []struct {
		line, want string
		wantErr    bool
	}{
		{"/session", "Session Info", false},
		{"/name  my work ", "Session name set: my work", false},
		{"/name", "Session name: my work", false},
		{"/changelog", "## 0.1.0", false},
		{"/export out.jsonl", "Session exported to: " + filepath.Join(e.cwd, "out.jsonl"), false},
		{"/copy", "OSC 52", false},
		{"/share", "", true},
		{"/debug", "Debug log written to: " + filepath.Join(e.agentDir, "relay-debug.log"), false},
		{"/login groq gsk-abc", "Saved API key for groq", false},
		{"/logout groq", "Removed the auth.json credential of groq", false},
		{"/trust", "Project trust for", false},
		{"/trust x", "", true},
		{"/bug it broke", "Bug report exported to: " + e.cwd, false},
	}
	for _, tt := range tests {
		out, handled, err := e.rt.Commands().Run(ctx, tt.line)
		if !handled || (err != nil) != tt.wantErr || !strings.Contains(out.Text, tt.want) {
			t.Errorf("%s: %+v handled=%v err=%v", tt.line, out, handled, err)
		}
	}
	out, _, _ := e.rt.Commands().Run(ctx, "/copy")
	if !strings.HasPrefix(out.Terminal, "\x1b]52;c;") {
		t.Errorf("/copy terminal bytes %q", out.Terminal)
	}
	if _, handled, _ := e.rt.Commands().Run(ctx, "/model"); handled {
		t.Error("/model claimed")
	}
	// /import of an exported copy opens it.
	src := filepath.Join(t.TempDir(), "copy.jsonl")
	b, _ := os.ReadFile(filepath.Join(e.cwd, "out.jsonl"))
	os.WriteFile(src, b, 0o644)
	out, _, err := e.rt.Commands().Run(ctx, "/import "+src)
	if err != nil || !out.SessionReplaced || e.rt.Session().SessionFile() != filepath.Join(filepath.Dir(e.rt.Session().SessionFile()), "copy.jsonl") {
		t.Errorf("/import: %+v %v", out, err)
	}
}
