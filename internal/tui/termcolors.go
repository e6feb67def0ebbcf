package tui

import (
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// The `system` theme is built from the terminal's colours: Init asks for
// the background, foreground and the 16 ANSI colours (OSC 10/11/4); the
// answers arrive as messages and the theme is rebuilt once they settle.

type themeRebuildMsg struct{}

func (m *Model) systemTheme() bool {
	s := m.opts.ThemeSetting
	return s == "" || s == "system" || strings.Contains(s, "/")
}

// queryColors asks the terminal for its colours.
func (m *Model) queryColors() tea.Cmd {
	if !m.systemTheme() {
		return tea.RequestBackgroundColor // still decides light/dark pairs
	}
	var q strings.Builder
	q.WriteString("\x1b]4")
	for i := 0; i < 16; i++ {
		q.WriteString(";" + strconv.Itoa(i) + ";?")
	}
	q.WriteString("\x07")
	return tea.Batch(tea.RequestBackgroundColor, tea.RequestForegroundColor, tea.Raw(q.String()))
}

// colorReply folds one OSC 4 answer ("\x1b]4;N;rgb:...") into the palette.
func (m *Model) colorReply(ev uv.UnknownOscEvent) bool {
	s := strings.TrimPrefix(string(ev), "\x1b]")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "\x07"), "\x1b\\")
	rest, ok := strings.CutPrefix(s, "4;")
	if !ok {
		return false
	}
	found := false
	// One answer may carry several "index;colour" pairs.
	parts := strings.Split(rest, ";")
	for i := 0; i+1 < len(parts); i += 2 {
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < 0 || n > 15 {
			continue
		}
		if c := ansi.XParseColor(parts[i+1]); c != nil {
			m.opts.Terminal.Palette[n] = c
			found = true
		}
	}
	return found
}

// scheduleThemeRebuild coalesces colour answers into one rebuild.
func (m *Model) scheduleThemeRebuild() tea.Cmd {
	if m.rebuildPending || !m.systemTheme() {
		return nil
	}
	m.rebuildPending = true
	return tea.Tick(30*time.Millisecond, func(time.Time) tea.Msg { return themeRebuildMsg{} })
}
