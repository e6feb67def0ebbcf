package shell

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSanitize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\x1b[31mred\x1b[0m", "red"},
		{"a\r\nb\rc", "a\nbc"},
		{"\x1b]0;title\x07text", "text"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"nul\x00bell\x07tab\tok", "nulbelltab\tok"},
		{"bad\xff\xfeutf8 é", "badutf8 é"},
		{"\x1b(Bplain", "plain"},
	} {
		if got := Sanitize([]byte(c.in)); got != c.want {
			t.Errorf("Sanitize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// sequences and runes split across chunks
	var s Sanitizer
	var out []byte
	for _, chunk := range []string{"x\x1b[", "1;3", "2mé"[:3], "é"[1:] + "\x1b", "[0m!"} {
		out = s.Clean(out, []byte(chunk))
	}
	if string(out) != "xé!" {
		t.Errorf("chunked = %q", out)
	}
}

func bash(t *testing.T) Config {
	t.Helper()
	c, err := Resolve("")
	if err != nil {
		t.Skip(err)
	}
	return c
}

func run(t *testing.T, ctx context.Context, cmd string) (string, Exit, error) {
	var mu sync.Mutex
	var b strings.Builder
	ex, err := Run(ctx, Spec{Shell: bash(t), Command: cmd, Dir: t.TempDir()}, func(p []byte) {
		mu.Lock()
		b.Write(p)
		mu.Unlock()
	})
	return b.String(), ex, err
}

func TestRunExitAndMerge(t *testing.T) {
	out, ex, err := run(t, context.Background(), "echo out; echo err >&2; exit 3")
	if err != nil || ex.Code != 3 || out != "out\nerr\n" {
		t.Errorf("got %q %+v %v", out, ex, err)
	}
	_, ex, _ = run(t, context.Background(), "kill -TERM $$")
	if !ex.Signaled || ex.Code != 128+15 {
		t.Errorf("signal exit %+v", ex)
	}
	if _, err := Run(context.Background(), Spec{Shell: bash(t), Command: "true", Dir: "/nonexistent/dir"}, nil); !errors.Is(err, ErrNoDir) {
		t.Errorf("missing dir: %v", err)
	}
}

func TestRunBackgroundChildDoesNotHang(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		out, ex, err := run(t, context.Background(), "sleep 30 & echo started")
		if err != nil || ex.Code != 0 || out != "started\n" {
			t.Errorf("got %q %+v %v", out, ex, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run hung on a backgrounded child holding the pipe")
	}
}

func TestRunCancelKillsTree(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	done := make(chan struct{})
	go func() {
		defer close(done)
		out, _, err := run(t, ctx, "echo before; (sleep 60; echo child) & sleep 60")
		if !errors.Is(err, context.Canceled) || out != "before\n" {
			t.Errorf("got %q %v", out, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not stop the command")
	}
}

func TestResolveCustom(t *testing.T) {
	if _, err := Resolve("/no/such/shell"); err == nil || err.Error() != "Custom shell path not found: /no/such/shell" {
		t.Errorf("err = %v", err)
	}
	c, err := Resolve("sh")
	if err != nil || c.Args[0] != "-c" {
		t.Errorf("sh: %+v %v", c, err)
	}
}
