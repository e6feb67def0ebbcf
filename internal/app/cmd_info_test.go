package app

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/export"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

func TestSessionInfoText(t *testing.T) {
	e := newCmdRuntime(t)
	e.seed(t)
	if err := e.rt.SetSessionName("build check"); err != nil {
		t.Fatal(err)
	}
	got := e.rt.sessionInfoText()
	for _, want := range []string{
		"Session Info\n\nFile: " + e.rt.Session().SessionFile(),
		"ID: " + e.rt.Session().SessionID(),
		"Name: build check",
		"User: 2\nAssistant: 3\nTool Calls: 1\nTool Results: 1\nTotal: 6",
		"Input: 2,500\nOutput: 42\nCache Read: 5,000\nTotal: 7,542",
		"Cost\nTotal: $0.0225",
		"Context\nUsed: ",
		"/ 100,000 tokens",
		"Model: fake/m1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("session info lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Cache Write") {
		t.Error("zero cache writes should not be listed")
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4200: "-4,200"} {
		if got := export.Thousands(n); got != want {
			t.Errorf("export.Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestNameCommand(t *testing.T) {
	e := newCmdRuntime(t)
	if got, _ := e.rt.nameCommand(""); !strings.Contains(got, "no name") {
		t.Errorf("show without name: %q", got)
	}
	if got, err := e.rt.nameCommand("  refactor  "); err != nil || got != "Session name set: refactor" {
		t.Errorf("set: %q, %v", got, err)
	}
	if got, _ := e.rt.nameCommand(""); got != "Session name: refactor" {
		t.Errorf("show: %q", got)
	}
}

func TestChangelog(t *testing.T) {
	e := newCmdRuntime(t)
	if out, _, _ := e.rt.Commands().Run(context.Background(), "/changelog"); !strings.Contains(out.Text, "## 0.1.0") {
		got := out.Text
		t.Errorf("changelog lacks the 0.1.0 section:\n%s", got)
	}
}

func TestExportSession(t *testing.T) {
	e := newCmdRuntime(t)
	e.seed(t)
	id := e.rt.Session().SessionID()
	tests := []struct {
		arg, want, contains string
	}{
		{"", filepath.Join(e.cwd, "relay-session-"+id+".html"), "<!doctype html>"},
		{"out/s.html", filepath.Join(e.cwd, "out", "s.html"), "please check the build"},
		{"copy.JSONL", filepath.Join(e.cwd, "copy.JSONL"), `{"type":"session"`},
	}
	for _, tt := range tests {
		p, err := e.rt.exportSession(tt.arg)
		if err != nil {
			t.Fatalf("export %q: %v", tt.arg, err)
		}
		if p != tt.want {
			t.Errorf("export %q wrote %s, want %s", tt.arg, p, tt.want)
		}
		b, _ := os.ReadFile(p)
		if !strings.Contains(string(b), tt.contains) {
			t.Errorf("export %q lacks %q", tt.arg, tt.contains)
		}
	}
}

func TestImportSession(t *testing.T) {
	e := newCmdRuntime(t)
	ext := t.TempDir()
	src, err := session.Create("/elsewhere", ext, session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src.AppendMessage(userText("imported question"))
	srcPath := src.SessionFile()
	src.Close()

	res, err := e.rt.importSession(srcPath)
	if err != nil {
		t.Fatal(err)
	}
	wantDir := session.DefaultDir(e.agentDir, e.cwd)
	if filepath.Dir(res.Path) != wantDir || filepath.Base(res.Path) != filepath.Base(srcPath) {
		t.Errorf("imported to %s, want it in %s", res.Path, wantDir)
	}
	if e.rt.Session().SessionFile() != res.Path || res.Entries != 1 || res.Cwd != "/elsewhere" {
		t.Errorf("after import: open %s, result %+v", e.rt.Session().SessionFile(), res)
	}
	msgs := e.rt.ContextMessages()
	if len(msgs) != 1 || !strings.Contains(res.Text(), "Imported session (1 entries)") {
		t.Errorf("imported context %d messages; text %q", len(msgs), res.Text())
	}
	// Importing the same file again is fine; a different file of that name is refused.
	if _, err := e.rt.importSession(srcPath); err != nil {
		t.Errorf("re-import: %v", err)
	}
	other := filepath.Join(t.TempDir(), filepath.Base(srcPath))
	s2, _ := session.Create("/x", filepath.Dir(other), session.CreateOptions{})
	s2.AppendMessage(userText("different"))
	s2.Close()
	os.Rename(s2.SessionFile(), other)
	if _, err := e.rt.importSession(other); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("conflicting import: %v", err)
	}
	// Not a session, missing file.
	bad := filepath.Join(t.TempDir(), "notes.jsonl")
	os.WriteFile(bad, []byte(`{"hello":"world"}`+"\n"), 0o644)
	if _, err := e.rt.importSession(bad); err == nil {
		t.Error("importing a non-session file succeeded")
	}
	if _, err := e.rt.importSession(filepath.Join(ext, "missing.jsonl")); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := e.rt.importSession(""); err == nil {
		t.Error("empty path accepted")
	}
}

func TestCopyLastAssistant(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("fake xclip is for X11 platforms")
	}
	e := newCmdRuntime(t)
	if _, err := e.rt.copyLastAssistant(context.Background()); !errors.Is(err, ErrNothingToCopy) {
		t.Fatalf("empty session: %v", err)
	}
	e.seed(t)
	bin := t.TempDir()
	got := filepath.Join(bin, "clipboard")
	fakeCommand(t, bin, "xclip", `echo "$@" > "`+got+`.args"; cat > "`+got+`"`+"\n")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("DISPLAY", ":0")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("TMUX", "")
	e.rt.cfg.Env = config.ReadEnv()
	res, err := e.rt.copyLastAssistant(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "The build passes." {
		t.Errorf("copied %q", res.Text)
	}
	if b, _ := os.ReadFile(got); string(b) != res.Text {
		t.Errorf("xclip received %q", b)
	}
	if b, _ := os.ReadFile(got + ".args"); strings.TrimSpace(string(b)) != "-selection clipboard" {
		t.Errorf("xclip args %q", b)
	}
	want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(res.Text)) + "\x07"
	if res.OSC52 != want || res.ToolErr != nil || !strings.Contains(res.Message(), "xclip") {
		t.Errorf("result %+v", res)
	}
	// Without a clipboard command only the OSC 52 sequence remains.
	t.Setenv("PATH", t.TempDir())
	res, err = e.rt.copyLastAssistant(context.Background())
	if err != nil || res.Tool != "" || res.OSC52 == "" || !strings.Contains(res.Message(), "OSC 52") {
		t.Errorf("no tool: %+v, %v", res, err)
	}
}

func TestOSC52Tmux(t *testing.T) {
	got := OSC52("hi", true)
	if got != "\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\" {
		t.Errorf("tmux OSC 52 = %q", got)
	}
}

func userText(s string) llm.Message {
	return &llm.UserMessage{Content: llm.StringContent(s), Timestamp: 1}
}
