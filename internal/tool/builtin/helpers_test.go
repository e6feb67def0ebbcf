package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/tool"
)

func newEnv(t *testing.T) Env {
	t.Helper()
	return Env{Cwd: t.TempDir(), TempDir: t.TempDir(), ImagesAutoResize: true}
}

func mustTool(t *testing.T, name string, env Env) tool.Tool {
	t.Helper()
	tl, err := New(name, env)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func call(t *testing.T, tl tool.Tool, args any) tool.Result {
	t.Helper()
	return callCtx(t, context.Background(), tl, args)
}

func callCtx(t *testing.T, ctx context.Context, tl tool.Tool, args any) tool.Result {
	t.Helper()
	var raw json.RawMessage
	switch v := args.(type) {
	case string:
		raw = json.RawMessage(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		raw = b
	}
	return tl.Execute(ctx, raw, nil)
}

func text(r tool.Result) string { return r.Content.PlainText() }

func writeFile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func wantText(t *testing.T, r tool.Result, isErr bool, want string) {
	t.Helper()
	if got := text(r); got != want || r.IsError != isErr {
		t.Errorf("got (isError=%v)\n%q\nwant (isError=%v)\n%q", r.IsError, got, isErr, want)
	}
}

func wantContains(t *testing.T, r tool.Result, isErr bool, parts ...string) {
	t.Helper()
	got := text(r)
	if r.IsError != isErr {
		t.Errorf("isError = %v, want %v; text:\n%s", r.IsError, isErr, got)
	}
	for _, p := range parts {
		if !strings.Contains(got, p) {
			t.Errorf("missing %q in\n%s", p, got)
		}
	}
}

func lines(prefix string, from, to int) string {
	var b []string
	for i := from; i <= to; i++ {
		b = append(b, prefix+itoa(i))
	}
	return strings.Join(b, "\n")
}

func itoa(i int) string { return strconv.Itoa(i) }

func detailsJSON(t *testing.T, r tool.Result) string {
	t.Helper()
	if r.Details == nil {
		return ""
	}
	b, err := json.Marshal(r.Details)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// bigText is n bytes of numbered lines.
func bigText(n int) []byte {
	var b bytes.Buffer
	b.Grow(n + 64)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %09d of a large file that an edit rewrites\n", i)
	}
	return b.Bytes()
}
