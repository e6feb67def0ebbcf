package bugreport

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommandsRegistered(t *testing.T) {
	e := newCmdRuntime(t)
	e.seed(t)
	ctx := context.Background()
	for _, tt := range []struct{ line, want string }{
		{"/debug", "Debug log written to: " + filepath.Join(e.agentDir, "relay-debug.log")},
		{"/bug it broke", "Bug report exported to: " + e.cwd},
	} {
		out, handled, err := e.cmds.Run(ctx, tt.line)
		if !handled || err != nil || !strings.Contains(out.Text, tt.want) {
			t.Errorf("%s: %+v handled=%v err=%v", tt.line, out, handled, err)
		}
	}
}
