package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/tui/editor"
	"github.com/relay-agent/relay/internal/tui/keymap"
)

// selectDialog is ctx.ui.select: the filterable list of the built-in
// selectors; confirm answers the option, cancel answers undefined.
type selectDialog struct {
	dialogBase
	list *selectList
}

func newSelectDialog(b dialogBase, options []string) *selectDialog {
	items := make([]selectItem, len(options))
	for i, o := range options {
		items[i] = selectItem{label: o, value: o}
	}
	return &selectDialog{dialogBase: b, list: newSelect(b.title, items, nil)}
}

func (s *selectDialog) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	switch {
	case m.is(keymap.SelectCancel, k) || m.is(keymap.AppInterrupt, k):
		m.answer(s, dialogAnswer{})
	case m.is(keymap.SelectConfirm, k):
		if l := s.list; len(l.shown) > 0 {
			m.answer(s, dialogAnswer{text: l.items[l.shown[l.selected]].label, ok: true})
		}
	default:
		// Movement and filtering; the list never closes itself here
		// (confirm and cancel are handled above).
		return s.list.key(m, k)
	}
	return nil
}

func (s *selectDialog) paste(m *Model, text string) tea.Cmd { return s.list.paste(m, text) }

func (s *selectDialog) view(m *Model, w, h int) string {
	body := s.list.view(m, w, max(3, h-1))
	// The list's own title line becomes the dialog's heading (with the
	// time left).
	if _, rest, ok := strings.Cut(body, "\n"); ok {
		return s.heading(m, "accent", "") + "\n" + rest
	}
	return s.heading(m, "accent", "")
}

// textDialog is ctx.ui.input (one line) and ctx.ui.editor (several lines,
// prefilled): relay's editor without completion; Enter submits, the
// newline key adds a line, cancel answers undefined.
type textDialog struct {
	dialogBase
	ed                   *editor.Editor // made on the loop, with its keymap
	placeholder, prefill string
	multiline            bool
}

func newTextDialog(b dialogBase, placeholder, prefill string, multiline bool) *textDialog {
	return &textDialog{dialogBase: b, multiline: multiline, placeholder: placeholder, prefill: prefill}
}

func (t *textDialog) editor(m *Model) *editor.Editor {
	if t.ed == nil {
		t.ed = editor.New(m.km)
		t.ed.Styles = m.editorStyles()
		t.ed.Placeholder = t.placeholder
		if t.prefill != "" {
			t.ed.SetValue(t.prefill)
		}
	}
	return t.ed
}

func (t *textDialog) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	ed := t.editor(m)
	switch {
	case m.is(keymap.SelectCancel, k) || m.is(keymap.AppInterrupt, k):
		m.answer(t, dialogAnswer{})
		return nil
	case !t.multiline && m.is(keymap.InputNewLine, k):
		return nil // one line only
	case m.is(keymap.EditorHistoryPrevious, k) || m.is(keymap.EditorHistoryNext, k):
		return nil // no prompt history in a dialog
	}
	out, cmd := ed.HandleKey(k)
	if out == editor.Submitted {
		text := ed.TakeSubmission()
		if !t.multiline {
			text = strings.ReplaceAll(text, "\n", " ")
		}
		m.answer(t, dialogAnswer{text: text, ok: true})
	}
	return cmd
}

func (t *textDialog) paste(m *Model, s string) tea.Cmd {
	if !t.multiline {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", " "), "\n", " ")
	}
	t.editor(m).InsertText(s)
	return nil
}

func (t *textDialog) view(m *Model, w, h int) string {
	ed := t.editor(m)
	rows := 1
	if t.multiline {
		rows = max(1, h-4)
	}
	lines := []string{t.heading(m, "accent", "")}
	rule := m.th.Fg("borderMuted", strings.Repeat("─", max(1, w)))
	lines = append(lines, rule)
	lines = append(lines, strings.Split(ed.View(max(4, w), rows, false), "\n")...)
	lines = append(lines, rule)
	hint := m.km.Label(keymap.InputSubmit) + " submit · " + m.km.Label(keymap.SelectCancel) + " cancel"
	if t.multiline {
		hint = m.km.Label(keymap.InputSubmit) + " submit · " + m.km.Label(keymap.InputNewLine) + " new line · " + m.km.Label(keymap.SelectCancel) + " cancel"
	}
	lines = append(lines, m.th.Fg("dim", ansi.Truncate(hint, max(10, w), "…")))
	return strings.Join(lines, "\n")
}
