package builtin

import (
	"context"
	"testing"
)

func TestAbortedBeforeStart(t *testing.T) {
	env := newEnv(t)
	writeFile(t, env.Cwd, "f.txt", "x\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, args := range map[string]string{
		"read":  `{"path":"f.txt"}`,
		"grep":  `{"pattern":"x"}`,
		"find":  `{"pattern":"*"}`,
		"ls":    `{}`,
		"edit":  `{"path":"f.txt","edits":[{"oldText":"x","newText":"y"}]}`,
		"write": `{"path":"g.txt","content":"y"}`,
		"bash":  `{"command":"echo hi"}`,
	} {
		r := callCtx(t, ctx, mustTool(t, name, env), args)
		want := "Operation aborted"
		if name == "bash" {
			want = "Command aborted"
		}
		if !r.IsError || text(r) != want {
			t.Errorf("%s: %v %q", name, r.IsError, text(r))
		}
	}
}

func TestEditMultiErrorTexts(t *testing.T) {
	env := newEnv(t)
	writeFile(t, env.Cwd, "m.txt", "a\nb\n")
	ed := mustTool(t, "edit", env)
	wantText(t, call(t, ed, `{"path":"m.txt","edits":[{"oldText":"a","newText":"a"},{"oldText":"b","newText":"b"}]}`), true,
		"No changes made to m.txt. The replacements produced identical content.")
	wantText(t, call(t, ed, `{"path":"m.txt","edits":[{"oldText":"a","newText":"x"},{"oldText":"","newText":"b"}]}`), true,
		"edits[1].oldText must not be empty in m.txt.")
}
