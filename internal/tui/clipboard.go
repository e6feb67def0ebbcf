package tui

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os/exec"
	"runtime"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm"
)

type clipboardImageMsg struct {
	img *llm.ImageContent
	err error
}

// pasteImage reads an image from the system clipboard with the platform's
// clipboard tool (wl-paste, xclip, pngpaste, PowerShell); when there is
// none it falls back to pasting text through the terminal (OSC 52).
func pasteImage(t config.Terminal) tea.Msg {
	data, mime := readClipboardImage(t)
	if len(data) == 0 {
		return tea.ReadClipboard()
	}
	return clipboardImageMsg{img: &llm.ImageContent{Data: base64.StdEncoding.EncodeToString(data), MimeType: mime}}
}

func readClipboardImage(t config.Terminal) ([]byte, string) {
	try := func(name string, args ...string) []byte {
		if _, err := exec.LookPath(name); err != nil {
			return nil
		}
		out, err := exec.Command(name, args...).Output()
		if err != nil {
			return nil
		}
		return out
	}
	switch {
	case runtime.GOOS == "darwin":
		if b := try("pngpaste", "-"); len(b) > 0 {
			return b, "image/png"
		}
	case runtime.GOOS == "windows" || t.WSL:
		ps := "Add-Type -AssemblyName System.Windows.Forms;$i=[Windows.Forms.Clipboard]::GetImage();if($i){$m=New-Object IO.MemoryStream;$i.Save($m,[Drawing.Imaging.ImageFormat]::Png);[Convert]::ToBase64String($m.ToArray())}"
		for _, exe := range []string{"powershell.exe", "powershell"} {
			if b := try(exe, "-NoProfile", "-Command", ps); len(bytes.TrimSpace(b)) > 0 {
				if d, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b))); err == nil {
					return d, "image/png"
				}
			}
		}
	}
	if t.Wayland {
		if types := try("wl-paste", "--list-types"); len(types) > 0 {
			for _, t := range []string{"image/png", "image/jpeg", "image/webp", "image/gif"} {
				if bytes.Contains(types, []byte(t)) {
					if b := try("wl-paste", "--no-newline", "--type", t); len(b) > 0 {
						return b, t
					}
				}
			}
		}
	}
	if t.X11 {
		if targets := try("xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"); len(targets) > 0 {
			for _, t := range []string{"image/png", "image/jpeg", "image/webp", "image/gif"} {
				if bytes.Contains(targets, []byte(t)) {
					if b := try("xclip", "-selection", "clipboard", "-t", t, "-o"); len(b) > 0 {
						return b, t
					}
				}
			}
		}
	}
	return nil, ""
}

// attachImage keeps a pasted image for the next prompt and marks its
// place in the editor.
func (m *Model) attachImage(img *llm.ImageContent) {
	m.images = append(m.images, *img)
	m.ed.InsertText(fmt.Sprintf("[image #%d] ", len(m.images)))
}

// takeImages returns the attached images whose markers are still in the
// submitted text, and forgets all of them.
func (m *Model) takeImages(text string) []llm.ImageContent {
	var out []llm.ImageContent
	for i, img := range m.images {
		if strings.Contains(text, fmt.Sprintf("[image #%d]", i+1)) {
			out = append(out, img)
		}
	}
	m.images = nil
	return out
}
