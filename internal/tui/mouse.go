package tui

import (
	"fmt"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/tui/theme"
)

// selection is a mouse selection over the transcript rows of the last
// fullscreen frame, in screen cells.
type selection struct {
	active, dragging bool
	x0, y0, x1, y1   int
}

// ordered returns the selection start and end in reading order.
func (s selection) ordered() (x0, y0, x1, y1 int) {
	if s.y0 < s.y1 || s.y0 == s.y1 && s.x0 <= s.x1 {
		return s.x0, s.y0, s.x1, s.y1
	}
	return s.x1, s.y1, s.x0, s.y0
}

func (m *Model) mouse(msg tea.Msg) tea.Cmd {
	if !m.fullscreen || m.overlay != nil {
		return nil
	}
	switch msg := msg.(type) {
	case tea.MouseClickMsg:
		if msg.Button != tea.MouseLeft || msg.Y >= len(m.rows) {
			m.sel = selection{}
			return nil
		}
		m.sel = selection{active: true, dragging: true, x0: msg.X, y0: msg.Y, x1: msg.X, y1: msg.Y}
	case tea.MouseMotionMsg:
		if m.sel.dragging {
			m.sel.x1, m.sel.y1 = msg.X, max(0, min(msg.Y, len(m.rows)-1))
		}
	case tea.MouseReleaseMsg:
		if !m.sel.dragging {
			return nil
		}
		m.sel.dragging = false
		if m.sel.x0 == m.sel.x1 && m.sel.y0 == m.sel.y1 {
			m.sel = selection{}
			return nil
		}
		if m.opts.CopyOnSelect {
			return m.copySelection()
		}
	}
	return nil
}

// selectedText is the plain text under the selection.
func (m *Model) selectedText() string {
	if !m.sel.active {
		return ""
	}
	x0, y0, x1, y1 := m.sel.ordered()
	var out []string
	for y := y0; y <= y1 && y < len(m.rows); y++ {
		plain := ansi.Strip(m.rows[y])
		from, to := 0, ansi.StringWidth(plain)
		if y == y0 {
			from = x0
		}
		if y == y1 {
			to = min(to, x1+1)
		}
		if from < to {
			out = append(out, strings.TrimRight(ansi.Cut(plain, from, to), " "))
		} else {
			out = append(out, "")
		}
	}
	return strings.Join(out, "\n")
}

func (m *Model) copySelection() tea.Cmd {
	text := m.selectedText()
	if text == "" {
		return nil
	}
	m.setStatus(fmt.Sprintf("Copied %d characters", len([]rune(text))), false)
	return tea.SetClipboard(text)
}

// highlight draws the selection in reverse video on the frame's rows.
func (m *Model) highlight(rows []string) []string {
	if !m.sel.active {
		return rows
	}
	x0, y0, x1, y1 := m.sel.ordered()
	out := append([]string(nil), rows...)
	for y := y0; y <= y1 && y < len(out); y++ {
		plain := ansi.Strip(out[y])
		w := ansi.StringWidth(plain)
		from, to := 0, w
		if y == y0 {
			from = min(x0, w)
		}
		if y == y1 {
			to = min(w, x1+1)
		}
		if from >= to {
			continue
		}
		out[y] = ansi.Cut(plain, 0, from) + "\x1b[7m" + ansi.Cut(plain, from, to) + "\x1b[27m" + ansi.Cut(plain, to, w)
	}
	return out
}

type themeCheckMsg struct {
	mod time.Time
	th  *theme.Theme
	err error
}

// watchTheme re-reads the active custom theme file when it changes (the
// original hot-reloads <agent-dir>/themes/<name>.json).
func (m *Model) watchTheme() tea.Cmd {
	path := m.th.Source
	if path == "" || path == "builtin" {
		return nil
	}
	last := m.themeMod
	return tea.Tick(2*time.Second, func(time.Time) tea.Msg {
		st, err := os.Stat(path)
		if err != nil || !st.ModTime().After(last) {
			return themeCheckMsg{mod: last}
		}
		data, err := fsx.ReadFile(path, config.MaxConfigFile)
		if err != nil {
			return themeCheckMsg{mod: last, err: err}
		}
		th, err := theme.Parse(data)
		if err != nil {
			return themeCheckMsg{mod: st.ModTime(), err: fmt.Errorf("theme %s: %w", path, err)}
		}
		th.Source = path
		return themeCheckMsg{mod: st.ModTime(), th: th}
	})
}
