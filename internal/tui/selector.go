package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/tui/keymap"
)

// overlay is a modal component drawn above the editor: selectors, the
// /resume picker, the /tree navigator.
type overlay interface {
	key(m *Model, k tea.KeyPressMsg) tea.Cmd
	view(m *Model, w, h int) string
	paste(m *Model, s string) tea.Cmd
}

type selectItem struct {
	label  string
	detail string
	desc   string // shown under the list for the selected item
	value  any
}

// selectList is a filterable list: typing narrows it, tui.select.* keys
// move and confirm.
type selectList struct {
	title    string
	hint     string
	items    []selectItem
	filter   string
	shown    []int
	selected int
	onSelect func(m *Model, it selectItem) tea.Cmd
	noFilter bool
	// extra handles list-specific keys (save, ...) for the selected item.
	extra func(m *Model, k tea.KeyPressMsg, it selectItem) (tea.Cmd, bool)
}

func newSelect(title string, items []selectItem, onSelect func(*Model, selectItem) tea.Cmd) *selectList {
	s := &selectList{title: title, items: items, onSelect: onSelect}
	s.refilter()
	return s
}

func (s *selectList) refilter() {
	s.shown = s.shown[:0]
	q := strings.ToLower(s.filter)
	for i, it := range s.items {
		if q == "" || matchWords(strings.ToLower(it.label+" "+it.detail), q) {
			s.shown = append(s.shown, i)
		}
	}
	s.selected = max(0, min(s.selected, len(s.shown)-1))
}

// filterChanged refilters after the user typed: the best (first) match is
// selected, so typing a name and pressing enter picks what they typed, not
// whatever row the old selection index lands on.
func (s *selectList) filterChanged() {
	s.selected = 0
	s.refilter()
}

// matchWords reports whether every space-separated word of q occurs in s.
func matchWords(s, q string) bool {
	for _, w := range strings.Fields(q) {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

func (s *selectList) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	if s.extra != nil && len(s.shown) > 0 {
		if cmd, ok := s.extra(m, k, s.items[s.shown[s.selected]]); ok {
			return cmd
		}
	}
	switch {
	case m.is(keymap.SelectCancel, k):
		m.overlay = nil
	case m.is(keymap.SelectUp, k):
		if len(s.shown) > 0 {
			s.selected = (s.selected - 1 + len(s.shown)) % len(s.shown)
		}
	case m.is(keymap.SelectDown, k):
		if len(s.shown) > 0 {
			s.selected = (s.selected + 1) % len(s.shown)
		}
	case m.is(keymap.SelectPageUp, k):
		s.selected = max(0, s.selected-10)
	case m.is(keymap.SelectPageDown, k):
		s.selected = max(0, min(len(s.shown)-1, s.selected+10))
	case m.is(keymap.SelectConfirm, k):
		if len(s.shown) == 0 {
			return nil
		}
		it := s.items[s.shown[s.selected]]
		m.overlay = nil
		return s.onSelect(m, it)
	case m.is(keymap.EditorDeleteCharBackward, k):
		if r := []rune(s.filter); len(r) > 0 && !s.noFilter {
			s.filter = string(r[:len(r)-1])
			s.filterChanged()
		}
	default:
		if k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 && !s.noFilter {
			s.filter += k.Text
			s.filterChanged()
		}
	}
	return nil
}

func (s *selectList) paste(m *Model, text string) tea.Cmd {
	if !s.noFilter {
		s.filter += strings.ReplaceAll(text, "\n", " ")
		s.filterChanged()
	}
	return nil
}

func (s *selectList) view(m *Model, w, h int) string {
	th := m.th
	lines := []string{th.Fg("accent", s.title)}
	if !s.noFilter {
		lines = append(lines, th.Fg("muted", "Filter: ")+s.filter)
	}
	hintRows := 1 + ansi.StringWidth(s.hint)/max(10, w)
	rows := max(1, h-len(lines)-1-hintRows)
	if s.hasDesc() {
		rows = max(1, rows-2)
	}
	lines = append(lines, listRows(m, w, rows, len(s.shown), s.selected, func(i int) (string, string) {
		it := s.items[s.shown[i]]
		return it.label, it.detail
	})...)
	if len(s.shown) > 0 {
		if d := s.items[s.shown[s.selected]].desc; d != "" {
			lines = append(lines, "", th.Fg("muted", ansi.Truncate("  "+d, w, "…")))
		}
	}
	hint := s.hint
	if hint == "" {
		hint = fmt.Sprintf("%s select · %s cancel", m.km.Label(keymap.SelectConfirm), m.km.Label(keymap.SelectCancel))
	}
	for _, l := range strings.Split(ansi.Wrap(hint, max(10, w), ""), "\n") {
		lines = append(lines, th.Fg("dim", l))
	}
	return strings.Join(lines, "\n")
}

func (s *selectList) hasDesc() bool {
	for _, it := range s.items {
		if it.desc != "" {
			return true
		}
	}
	return false
}

// listRows draws a window of n rows around the selection, details in one
// column after the widest label (labels wider than half the width are
// cut).
func listRows(m *Model, w, rows, n, selected int, row func(i int) (string, string)) []string {
	th := m.th
	if n == 0 {
		return []string{th.Fg("muted", "  (no matches)")}
	}
	labelW := 0
	for i := 0; i < n; i++ {
		label, _ := row(i)
		labelW = max(labelW, ansi.StringWidth(label))
	}
	labelW = min(labelW, max(8, (w-4)/2))
	first := max(0, min(selected-rows/2, n-rows))
	var out []string
	for i := first; i < min(n, first+rows); i++ {
		label, detail := row(i)
		label = ansi.Truncate(label, labelW, "…")
		role, mark := "text", "  "
		if i == selected {
			role, mark = "accent", th.Fg("accent", "› ")
		}
		line := mark + th.Fg(role, label)
		if detail != "" {
			if room := w - 2 - labelW - 2; room > 0 {
				line += strings.Repeat(" ", labelW-ansi.StringWidth(label)+2) + th.Fg("muted", ansi.Truncate(detail, room, "…"))
			}
		}
		out = append(out, line)
	}
	return out
}
