package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/tui/keymap"
)

type sessionsMsg struct {
	items []SessionItem
	err   error
}

// resumePicker is the /resume session picker: search, sort toggle,
// named-only filter, path display, rename, and delete with confirmation.
type resumePicker struct {
	all       bool // every project, not just this folder
	items     []SessionItem
	loaded    bool
	err       error
	query     string
	shown     []int
	selected  int
	sortName  bool
	namedOnly bool
	showPath  bool
	renaming  bool
	rename    string
	confirm   bool // waiting for delete confirmation
	current   string
}

func (m *Model) openResume() tea.Cmd {
	p := &resumePicker{current: m.info.SessionFile}
	m.overlay = p
	return p.load(m)
}

func (p *resumePicker) load(m *Model) tea.Cmd {
	rt, all := m.rt, p.all
	return func() tea.Msg {
		items, err := rt.ListSessions(all)
		return sessionsMsg{items, err}
	}
}

func (p *resumePicker) setItems(items []SessionItem, err error) {
	p.items, p.err, p.loaded = items, err, true
	p.refilter()
}

func (p *resumePicker) title(s SessionItem) string {
	if s.Name != "" {
		return s.Name
	}
	if s.FirstMessage != "" {
		return oneLine(s.FirstMessage)
	}
	return s.ID
}

func (p *resumePicker) refilter() {
	p.shown = p.shown[:0]
	q := strings.ToLower(p.query)
	for i, s := range p.items {
		if p.namedOnly && s.Name == "" {
			continue
		}
		if q != "" && !matchWords(strings.ToLower(s.Name+" "+s.FirstMessage+" "+s.Cwd+" "+s.Path), q) {
			continue
		}
		p.shown = append(p.shown, i)
	}
	sort.SliceStable(p.shown, func(a, b int) bool {
		x, y := p.items[p.shown[a]], p.items[p.shown[b]]
		if p.sortName {
			return strings.ToLower(p.title(x)) < strings.ToLower(p.title(y))
		}
		return x.Modified.After(y.Modified)
	})
	p.selected = max(0, min(p.selected, len(p.shown)-1))
}

func (p *resumePicker) cur() (SessionItem, bool) {
	if len(p.shown) == 0 {
		return SessionItem{}, false
	}
	return p.items[p.shown[p.selected]], true
}

func (p *resumePicker) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	rt := m.rt
	if p.confirm {
		p.confirm = false
		if k.Text == "y" || k.Text == "Y" {
			s, ok := p.cur()
			if !ok {
				return nil
			}
			if s.Path == p.current {
				m.setStatus("The current session cannot be deleted", true)
				return nil
			}
			return func() tea.Msg {
				if err := rt.DeleteSession(s.Path); err != nil {
					return sessionsMsg{err: err}
				}
				items, err := rt.ListSessions(p.all)
				return sessionsMsg{items, err}
			}
		}
		return nil
	}
	if p.renaming {
		switch {
		case m.is(keymap.SelectCancel, k):
			p.renaming = false
		case m.is(keymap.SelectConfirm, k):
			p.renaming = false
			s, ok := p.cur()
			name := strings.TrimSpace(p.rename)
			if !ok || name == "" {
				return nil
			}
			return func() tea.Msg {
				if err := rt.RenameSession(s.Path, name); err != nil {
					return sessionsMsg{err: err}
				}
				items, err := rt.ListSessions(p.all)
				return sessionsMsg{items, err}
			}
		case m.is(keymap.EditorDeleteCharBackward, k):
			if r := []rune(p.rename); len(r) > 0 {
				p.rename = string(r[:len(r)-1])
			}
		default:
			if k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
				p.rename += k.Text
			}
		}
		return nil
	}
	switch {
	case m.is(keymap.InputTab, k):
		p.all = !p.all
		p.loaded = false
		return p.load(m)
	case m.is(keymap.AppSessionTogglePath, k):
		p.showPath = !p.showPath
	case m.is(keymap.AppSessionToggleSort, k):
		p.sortName = !p.sortName
		p.refilter()
	case m.is(keymap.AppSessionToggleNamedFilter, k):
		p.namedOnly = !p.namedOnly
		p.refilter()
	case m.is(keymap.AppSessionRename, k):
		if s, ok := p.cur(); ok {
			p.renaming, p.rename = true, s.Name
		}
	case m.is(keymap.AppSessionDeleteNoninvasive, k) && p.query == "":
		if _, ok := p.cur(); ok {
			p.confirm = true
		}
	case m.is(keymap.AppSessionDelete, k):
		if _, ok := p.cur(); ok {
			p.confirm = true
		}
	case m.is(keymap.SelectCancel, k):
		m.overlay = nil
	case m.is(keymap.SelectUp, k):
		if n := len(p.shown); n > 0 {
			p.selected = (p.selected - 1 + n) % n
		}
	case m.is(keymap.SelectDown, k):
		if n := len(p.shown); n > 0 {
			p.selected = (p.selected + 1) % n
		}
	case m.is(keymap.SelectPageUp, k):
		p.selected = max(0, p.selected-10)
	case m.is(keymap.SelectPageDown, k):
		p.selected = max(0, min(len(p.shown)-1, p.selected+10))
	case m.is(keymap.SelectConfirm, k):
		s, ok := p.cur()
		if !ok {
			return nil
		}
		m.overlay = nil
		if m.busy {
			m.tr.AddError("wait for the agent to finish or abort it first")
			return nil
		}
		return m.call(func() resultMsg {
			if err := rt.SwitchSession(s.Path); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{notice: "Resumed " + p.title(s), reload: true}
		})
	case m.is(keymap.EditorDeleteCharBackward, k):
		if r := []rune(p.query); len(r) > 0 {
			p.query = string(r[:len(r)-1])
			p.refilter()
		}
	default:
		if k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
			p.query += k.Text
			p.refilter()
		}
	}
	return nil
}

func (p *resumePicker) paste(m *Model, s string) tea.Cmd {
	s = strings.ReplaceAll(s, "\n", " ")
	if p.renaming {
		p.rename += s
	} else {
		p.query += s
		p.refilter()
	}
	return nil
}

func (p *resumePicker) view(m *Model, w, h int) string {
	th := m.th
	scope := "this folder"
	if p.all {
		scope = "all projects"
	}
	sortBy := "recent"
	if p.sortName {
		sortBy = "name"
	}
	flags := []string{scope, "sort: " + sortBy}
	if p.namedOnly {
		flags = append(flags, "named only")
	}
	lines := []string{th.Fg("accent", "Resume session") + th.Fg("muted", "  "+strings.Join(flags, " · ")),
		th.Fg("muted", "Search: ") + p.query}
	switch {
	case p.err != nil:
		lines = append(lines, th.Fg("error", p.err.Error()))
	case !p.loaded:
		lines = append(lines, th.Fg("muted", "  Loading…"))
	default:
		rows := max(1, h-len(lines)-2)
		lines = append(lines, listRows(m, w, rows, len(p.shown), p.selected, func(i int) (string, string) {
			s := p.items[p.shown[i]]
			detail := fmt.Sprintf("%s · %d msgs", age(s.Modified), s.Messages)
			if p.showPath {
				detail += " · " + s.Path
			} else if p.all && s.Cwd != "" {
				detail += " · " + s.Cwd
			}
			label := p.title(s)
			if s.Path == p.current {
				label += " (current)"
			}
			return label, detail
		})...)
	}
	var hint string
	switch {
	case p.confirm:
		s, _ := p.cur()
		hint = th.Fg("warning", "Delete "+p.title(s)+"? (y/n)")
	case p.renaming:
		hint = th.Fg("accent", "Rename: ") + p.rename
	default:
		km := m.km
		hint = th.Fg("dim", ansi.Truncate(fmt.Sprintf("enter open · tab scope · %s rename · %s delete · %s sort · %s named · %s path · esc close",
			km.Label(keymap.AppSessionRename), km.Label(keymap.AppSessionDelete), km.Label(keymap.AppSessionToggleSort),
			km.Label(keymap.AppSessionToggleNamedFilter), km.Label(keymap.AppSessionTogglePath)), w, "…"))
	}
	lines = append(lines, hint)
	return strings.Join(lines, "\n")
}

func age(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
