package sessionshare

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
	"github.com/relay-agent/relay/internal/session"
)

func TestExportSession(t *testing.T) {
	e := newEnv(t)
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
		p, err := e.f.exportSession(tt.arg)
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
	e := newEnv(t)
	ext := t.TempDir()
	src, err := session.Create("/elsewhere", ext, session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src.AppendMessage(userText("imported question"))
	srcPath := src.SessionFile()
	src.Close()

	res, err := e.f.importSession(srcPath)
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
	if _, err := e.f.importSession(srcPath); err != nil {
		t.Errorf("re-import: %v", err)
	}
	other := filepath.Join(t.TempDir(), filepath.Base(srcPath))
	s2, _ := session.Create("/x", filepath.Dir(other), session.CreateOptions{})
	s2.AppendMessage(userText("different"))
	s2.Close()
	os.Rename(s2.SessionFile(), other)
	if _, err := e.f.importSession(other); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("conflicting import: %v", err)
	}
	// Not a session, missing file.
	bad := filepath.Join(t.TempDir(), "notes.jsonl")
	os.WriteFile(bad, []byte(`{"hello":"world"}`+"\n"), 0o644)
	if _, err := e.f.importSession(bad); err == nil {
		t.Error("importing a non-session file succeeded")
	}
	if _, err := e.f.importSession(filepath.Join(ext, "missing.jsonl")); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := e.f.importSession(""); err == nil {
		t.Error("empty path accepted")
	}
}

func TestCopyLastAssistant(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("fake xclip is for X11 platforms")
	}
	e := newEnv(t)
	if _, err := e.f.copyLastAssistant(context.Background()); !errors.Is(err, ErrNothingToCopy) {
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
	e.f.o.Env = config.ReadEnv()
	res, err := e.f.copyLastAssistant(context.Background())
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
	res, err = e.f.copyLastAssistant(context.Background())
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
