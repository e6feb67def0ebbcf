package app

import (
	"context"
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
		{"/trust", "Project trust for", false},
		{"/trust x", "", true},
	}
	for _, tt := range tests {
		out, handled, err := e.rt.cmds.Run(ctx, tt.line)
		if !handled || (err != nil) != tt.wantErr || !strings.Contains(out.Text, tt.want) {
			t.Errorf("%s: %+v handled=%v err=%v", tt.line, out, handled, err)
		}
	}
	if _, handled, _ := e.rt.cmds.Run(ctx, "/model"); handled {
		t.Error("/model claimed")
	}
	// Session transfer, keys and reports live in their own packages.
	for _, name := range []string{"/export", "/import", "/copy", "/share", "/login", "/logout", "/bug", "/debug"} {
		if _, handled, _ := e.rt.cmds.Run(ctx, name); handled {
			t.Errorf("%s is registered by the runtime core", name)
		}
	}
}
