package tui

import (
	"strconv"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tui/transcript"
)

// Terminal capability detection from the environment, for the settings
// whose value is "auto" (terminal.images, terminal.hyperlinks) and for
// RELAY_TUI_ESC_TIMEOUT. env is os.Getenv outside tests.

// insideMultiplexer: tmux and screen swallow graphics sequences without a
// passthrough wrapper, and their OSC 8 support depends on configuration.
func insideMultiplexer(env func(string) string) bool {
	term := env("TERM")
	return env("TMUX") != "" || env("STY") != "" || strings.HasPrefix(term, "screen") || strings.HasPrefix(term, "tmux")
}

// DetectImageProtocol picks the inline-image protocol: terminal.images
// "kitty"/"iterm2" forces one and false turns images off; "auto" lets
// RELAY_IMAGE_PROTOCOL (kitty|iterm2|none|auto) decide, then the terminal:
// kitty, Ghostty, WezTerm and Konsole speak the kitty protocol, iTerm2 its
// own. Inside tmux or screen auto-detection answers none.
func DetectImageProtocol(showImages bool, setting settings.ImageProtocol, env func(string) string) string {
	if !showImages {
		return ""
	}
	switch v := strings.ToLower(setting.Value); v {
	case transcript.ProtocolKitty, transcript.ProtocolITerm2:
		return v
	case "", "false", "none", "off":
		return ""
	}
	switch v := strings.ToLower(strings.TrimSpace(env("RELAY_IMAGE_PROTOCOL"))); v {
	case transcript.ProtocolKitty, transcript.ProtocolITerm2:
		return v
	case "none", "off", "false", "0":
		return ""
	}
	if insideMultiplexer(env) {
		return ""
	}
	term, prog := env("TERM"), env("TERM_PROGRAM")
	switch {
	case env("KITTY_WINDOW_ID") != "" || term == "xterm-kitty",
		prog == "ghostty" || term == "xterm-ghostty",
		prog == "WezTerm" || env("WEZTERM_EXECUTABLE") != "",
		env("KONSOLE_VERSION") != "":
		return transcript.ProtocolKitty
	case prog == "iTerm.app" || env("LC_TERMINAL") == "iTerm2" || env("ITERM_SESSION_ID") != "":
		return transcript.ProtocolITerm2
	}
	return ""
}

// DetectHyperlinks reports whether the terminal draws OSC 8 links, for
// terminal.hyperlinks "auto" without RELAY_HYPERLINKS: kitty, Ghostty,
// WezTerm, iTerm2 3.1+, VS Code, Windows Terminal, Konsole, foot,
// Alacritty, Rio and VTE 0.50+ terminals do; tmux and screen count as no.
func DetectHyperlinks(env func(string) string) bool {
	if insideMultiplexer(env) {
		return false
	}
	term, prog := env("TERM"), env("TERM_PROGRAM")
	switch {
	case env("KITTY_WINDOW_ID") != "" || term == "xterm-kitty",
		prog == "ghostty" || term == "xterm-ghostty",
		prog == "WezTerm", prog == "vscode", prog == "iTerm.app" || env("LC_TERMINAL") == "iTerm2",
		prog == "rio" || term == "rio",
		env("WT_SESSION") != "", env("KONSOLE_VERSION") != "",
		strings.HasPrefix(term, "foot"), term == "alacritty":
		return true
	}
	if v, err := strconv.Atoi(env("VTE_VERSION")); err == nil && v >= 5000 {
		return true
	}
	return false
}

// EscTimeout is how long a lone Escape waits to become an Alt prefix:
// RELAY_TUI_ESC_TIMEOUT in milliseconds, else 100 ms over SSH (keys arrive
// split across packets) and 10 ms locally.
func EscTimeout(env func(string) string) time.Duration {
	if v := strings.TrimSpace(env("RELAY_TUI_ESC_TIMEOUT")); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			return time.Duration(min(n, 2000)) * time.Millisecond
		}
	}
	if env("SSH_CONNECTION") != "" || env("SSH_TTY") != "" || env("SSH_CLIENT") != "" {
		return 100 * time.Millisecond
	}
	return 10 * time.Millisecond
}

// imageOptions applies terminal.images detection and imageWidthCells.
func imageOptions(s *settings.Settings, env func(string) string) transcript.ImageOptions {
	return transcript.ImageOptions{
		Protocol:   DetectImageProtocol(s.Terminal.ShowImages, s.Terminal.Images, env),
		WidthCells: s.Terminal.ImageWidthCells,
	}
}
