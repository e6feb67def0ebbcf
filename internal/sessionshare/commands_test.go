package sessionshare

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	e := newEnv(t)
	e.seed(t)
	t.Setenv("PATH", t.TempDir()) // no clipboard tool, no gh
	ctx := context.Background()
	tests := []struct {
		line, want string
		wantErr    bool
	}{
		{"/export out.jsonl", "Session exported to: " + filepath.Join(e.cwd, "out.jsonl"), false},
		{"/copy", "OSC 52", false},
		{"/share", "", true},
	}
	for _, tt := range tests {
		out, handled, err := e.cmds.Run(ctx, tt.line)
		if !handled || (err != nil) != tt.wantErr || !strings.Contains(out.Text, tt.want) {
			t.Errorf("%s: %+v handled=%v err=%v", tt.line, out, handled, err)
		}
	}
	out, _, _ := e.cmds.Run(ctx, "/copy")
	if !strings.HasPrefix(out.Terminal, "\x1b]52;c;") {
		t.Errorf("/copy terminal bytes %q", out.Terminal)
	}
	// /import of an exported copy opens it.
	src := filepath.Join(t.TempDir(), "copy.jsonl")
	b, _ := os.ReadFile(filepath.Join(e.cwd, "out.jsonl"))
	os.WriteFile(src, b, 0o644)
	out, _, err := e.cmds.Run(ctx, "/import "+src)
	if err != nil || !out.SessionReplaced || e.rt.Session().SessionFile() != filepath.Join(filepath.Dir(e.rt.Session().SessionFile()), "copy.jsonl") {
		t.Errorf("/import: %+v %v", out, err)
	}
	// Registering twice names the clash.
	if err := Register(e.rt, e.cmds, Options{Cwd: e.cwd}); err == nil || !strings.Contains(err.Error(), "export") {
		t.Errorf("second registration: %v", err)
	}
}
