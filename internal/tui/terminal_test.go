package tui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tui"
	"github.com/relay-agent/relay/internal/tui/tuitest"
)

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestDetectImageProtocol(t *testing.T) {
	auto := settings.ImageProtocol{Value: "auto"}
	for _, tc := range []struct {
		name    string
		show    bool
		setting settings.ImageProtocol
		env     func(string) string
		want    string
	}{
		{"kitty window", true, auto, envOf("KITTY_WINDOW_ID", "1", "TERM", "xterm-kitty"), "kitty"},
		{"kitty term", true, auto, envOf("TERM", "xterm-kitty"), "kitty"},
		{"ghostty", true, auto, envOf("TERM_PROGRAM", "ghostty"), "kitty"},
		{"wezterm", true, auto, envOf("TERM_PROGRAM", "WezTerm"), "kitty"},
		{"iterm", true, auto, envOf("TERM_PROGRAM", "iTerm.app"), "iterm2"},
		{"iterm over ssh", true, auto, envOf("LC_TERMINAL", "iTerm2", "TERM", "xterm-256color"), "iterm2"},
		{"plain xterm", true, auto, envOf("TERM", "xterm-256color"), ""},
		{"tmux hides", true, auto, envOf("TMUX", "/tmp/x", "KITTY_WINDOW_ID", "1"), ""},
		{"showImages off", false, auto, envOf("KITTY_WINDOW_ID", "1"), ""},
		{"setting forces", true, settings.ImageProtocol{Value: "iterm2"}, envOf("KITTY_WINDOW_ID", "1"), "iterm2"},
		{"setting false", true, settings.ImageProtocol{}, envOf("KITTY_WINDOW_ID", "1"), ""},
		{"env forces", true, auto, envOf("RELAY_IMAGE_PROTOCOL", "kitty", "TERM", "xterm"), "kitty"},
		{"env none", true, auto, envOf("RELAY_IMAGE_PROTOCOL", "none", "KITTY_WINDOW_ID", "1"), ""},
		{"setting beats env", true, settings.ImageProtocol{Value: "kitty"}, envOf("RELAY_IMAGE_PROTOCOL", "iterm2"), "kitty"},
	} {
		if got := tui.DetectImageProtocol(tc.show, tc.setting, tc.env); got != tc.want {
			t.Errorf("%s: got %q want %q", tc.name, got, tc.want)
		}
	}
}

func TestDetectHyperlinks(t *testing.T) {
	for _, tc := range []struct {
		env  func(string) string
		want bool
	}{
		{envOf("TERM", "xterm-kitty"), true},
		{envOf("TERM_PROGRAM", "vscode"), true},
		{envOf("WT_SESSION", "x"), true},
		{envOf("VTE_VERSION", "7200"), true},
		{envOf("VTE_VERSION", "4600"), false},
		{envOf("TERM_PROGRAM", "Apple_Terminal"), false},
		{envOf("TERM", "screen-256color", "TERM_PROGRAM", "iTerm.app"), false},
	} {
		if got := tui.DetectHyperlinks(tc.env); got != tc.want {
			t.Errorf("%v: got %v", tc.env("TERM")+tc.env("TERM_PROGRAM")+tc.env("VTE_VERSION"), got)
		}
	}
}

func TestEscTimeout(t *testing.T) {
	for _, tc := range []struct {
		env  func(string) string
		want time.Duration
	}{
		{envOf(), 10 * time.Millisecond},
		{envOf("SSH_CONNECTION", "1 2 3 4"), 100 * time.Millisecond},
		{envOf("SSH_TTY", "/dev/pts/1", "RELAY_TUI_ESC_TIMEOUT", "250"), 250 * time.Millisecond},
		{envOf("RELAY_TUI_ESC_TIMEOUT", "0"), 0},
		{envOf("RELAY_TUI_ESC_TIMEOUT", "junk"), 10 * time.Millisecond},
	} {
		if got := tui.EscTimeout(tc.env); got != tc.want {
			t.Errorf("got %v want %v", got, tc.want)
		}
	}
}

func editorValue(d *tuitest.Driver) string {
	return tui.EditorValue(d.M.(*tui.Model))
}

// A lone Escape followed by a key within the timeout is alt+key (alt+b:
// word left); after the timeout the key stands alone.
func TestEscapeWaitsForAltPrefix(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.EscTimeout = 2 * time.Second
	d := start(t, f, o, 60, 12)
	d.Type("hello world")
	d.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	d.Send(tea.KeyPressMsg{Code: 'b', Text: "b"})
	d.Type("X")
	if got := editorValue(d); got != "hello Xworld" {
		t.Fatalf("esc b: editor %q", got)
	}

	o.EscTimeout = 5 * time.Millisecond
	d = start(t, f, o, 60, 12)
	d.Type("hello world")
	if !d.SendUntil(tea.KeyPressMsg{Code: tea.KeyEscape}, tui.IsEscFlush) {
		t.Fatal("the held Escape was never flushed")
	}
	d.Send(tea.KeyPressMsg{Code: 'b', Text: "b"})
	if got := editorValue(d); got != "hello worldb" {
		t.Fatalf("late b: editor %q", got)
	}
}

func TestClearOnShrink(t *testing.T) {
	for _, clear := range []bool{false, true} {
		f := tuitest.NewFake()
		o := opts()
		o.QuietStartup = true
		o.ClearOnShrink = clear
		m := tui.New(context.Background(), f, o)
		d := tuitest.NewDriver(m, 60, 30)
		before := len(strings.Split(m.View().Content, "\n"))
		d.Type("one")
		d.Press("ctrl+j")
		d.Type("two")
		d.Press("ctrl+j")
		d.Type("three")
		grown := len(strings.Split(m.View().Content, "\n"))
		d.Press("ctrl+c") // clears the editor
		after := len(strings.Split(m.View().Content, "\n"))
		if grown <= before {
			t.Fatalf("editor did not grow: %d -> %d", before, grown)
		}
		if clear && after != before || !clear && after != grown {
			t.Errorf("clearOnShrink=%v: rows %d -> %d -> %d", clear, before, grown, after)
		}
	}
}
