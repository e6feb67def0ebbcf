package sessionshare

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// CopyResult is what /copy did. The TUI writes OSC52 to the terminal (it
// owns the terminal), which reaches the local clipboard even over SSH;
// Tool names the clipboard command that also received the text, if any.
type CopyResult struct {
	Text  string
	OSC52 string
	// Tool is the clipboard command that ran ("xclip", "wl-copy", ...), ""
	// when none is available; ToolErr is its failure, if any.
	Tool    string
	ToolErr error
}

// Message is the status line for the TUI.
func (c CopyResult) Message() string {
	switch {
	case c.Tool != "" && c.ToolErr == nil:
		return "Copied last agent message to clipboard (" + c.Tool + " and OSC 52)"
	case c.Tool != "":
		return fmt.Sprintf("Copied last agent message through the terminal (OSC 52); %s failed: %v", c.Tool, c.ToolErr)
	default:
		return "Copied last agent message through the terminal (OSC 52)"
	}
}

// ErrNothingToCopy is returned by /copy before any agent answer.
var ErrNothingToCopy = errors.New("No agent messages to copy yet.")

// LastAssistantText is the text of the newest assistant message on the
// branch that has any (errors and pure tool-call turns are skipped).
func (r *Feature) lastAssistantText() string {
	msgs := r.rt.ContextMessages()
	for i := len(msgs) - 1; i >= 0; i-- {
		a, ok := msgs[i].(*llm.AssistantMessage)
		if !ok {
			continue
		}
		var parts []string
		for _, b := range a.Content {
			if t, ok := b.(*llm.TextContent); ok && t.Text != "" {
				parts = append(parts, t.Text)
			}
		}
		if text := strings.Join(parts, ""); strings.TrimSpace(text) != "" {
			return text
		}
	}
	return ""
}

// CopyLastAssistant implements /copy: the last assistant text goes to the
// system clipboard command when one is present, and comes back as an OSC 52
// sequence for the TUI to write.
func (r *Feature) copyLastAssistant(ctx context.Context) (CopyResult, error) {
	text := r.lastAssistantText()
	if text == "" {
		return CopyResult{}, ErrNothingToCopy
	}
	res := CopyResult{Text: text, OSC52: OSC52(text, r.o.Env.Terminal.Tmux)}
	if name, args := clipboardCommand(r.o.Env.Get, exec.LookPath); name != "" {
		res.Tool = filepath.Base(name)
		res.ToolErr = runClipboard(ctx, name, args, text)
	}
	return res, nil
}

// OSC52 returns the escape sequence that sets the terminal's clipboard;
// inside tmux it is wrapped in a passthrough sequence.
func OSC52(text string, tmux bool) string {
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
	if tmux {
		return "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq
}

// clipboardCommand picks the platform's clipboard writer: pbcopy on macOS,
// clip on Windows, wl-copy under Wayland, xclip or xsel under X11.
func clipboardCommand(getenv func(string) string, lookPath func(string) (string, error)) (string, []string) {
	type cand struct {
		name string
		args []string
		when bool
	}
	var cands []cand
	switch runtime.GOOS {
	case "darwin":
		cands = []cand{{"pbcopy", nil, true}}
	case "windows":
		cands = []cand{{"clip", nil, true}}
	default:
		wayland, x11 := getenv("WAYLAND_DISPLAY") != "", getenv("DISPLAY") != ""
		cands = []cand{
			{"wl-copy", nil, wayland},
			{"xclip", []string{"-selection", "clipboard"}, x11},
			{"xsel", []string{"--clipboard", "--input"}, x11},
			{"termux-clipboard-set", nil, getenv("TERMUX_VERSION") != ""},
		}
	}
	for _, c := range cands {
		if !c.when {
			continue
		}
		if p, err := lookPath(c.name); err == nil {
			return p, c.args
		}
	}
	return "", nil
}

func runClipboard(ctx context.Context, path string, args []string, text string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = strings.NewReader(text)
	// No pipes for stdout/stderr: xclip and wl-copy fork a child that keeps
	// serving the selection, and a pipe it inherits would make Wait block
	// until that child exits. Stderr goes to a temporary file instead.
	errFile, err := os.CreateTemp("", "relay-clipboard-*")
	if err == nil {
		defer os.Remove(errFile.Name())
		defer errFile.Close()
		cmd.Stderr = errFile
	}
	if err := cmd.Run(); err != nil {
		if errFile != nil {
			if b, rerr := os.ReadFile(errFile.Name()); rerr == nil {
				if msg := strings.TrimSpace(string(b)); msg != "" {
					if len(msg) > 500 {
						msg = msg[:500] + "…"
					}
					return fmt.Errorf("%w: %s", err, msg)
				}
			}
		}
		return err
	}
	return nil
}
