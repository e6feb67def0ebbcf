package tui

import (
	"context"
	"fmt"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// ConfigItem is one resource row of `relay config`.
type ConfigItem struct {
	Group, Kind, Name, Path string
	Enabled                 bool
	// Editable rows belong to the scope's settings file; others are shown
	// for reference (inherited from the user settings).
	Editable bool
	// Override is the row's project override in a scope with Cycle:
	// "inherit", "load" or "unload"; Inherited marks a user resource.
	Override  string
	Inherited bool
}

// ConfigScope is one mode of `relay config`: the resources as that
// settings file sees them and how to turn one on or off.
type ConfigScope struct {
	Title, File string
	Items       []ConfigItem
	Toggle      func(item ConfigItem, enabled bool) error
	// Cycle, when set (the project mode), replaces Toggle: Space moves
	// any row through inherit / load / unload and returns it updated.
	Cycle func(item ConfigItem) (ConfigItem, error)
}

// RunConfig runs the resource selector of `relay config` until Esc or
// Ctrl+C: Space or Enter toggles a row and saves at once, Tab switches
// between the scopes, typing filters.
func RunConfig(ctx context.Context, in io.Reader, out io.Writer, scopes []ConfigScope, start int) error {
	m := &configModel{scopes: scopes, scope: start, height: 24, width: 80}
	m.first()
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	_, err := p.Run()
	if err != nil && ctx.Err() != nil {
		return nil
	}
	return err
}

type configModel struct {
	scopes        []ConfigScope
	scope, cursor int
	query, status string
	width, height int
}

func (m *configModel) Init() tea.Cmd { return nil }

// visible lists the indexes of the current scope's items that match the
// filter.
func (m *configModel) visible() []int {
	var out []int
	q := strings.ToLower(m.query)
	for i, it := range m.scopes[m.scope].Items {
		if q == "" || strings.Contains(strings.ToLower(it.Name+" "+it.Kind+" "+it.Path), q) {
			out = append(out, i)
		}
	}
	return out
}

func (m *configModel) first() {
	m.cursor = 0
}

func (m *configModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		vis := m.visible()
		switch k := msg.Keystroke(); k {
		case "esc", "ctrl+c":
			return m, tea.Quit
		case "up", "ctrl+p":
			if m.cursor > 0 {
				m.cursor--
			}
		case "down", "ctrl+n":
			if m.cursor < len(vis)-1 {
				m.cursor++
			}
		case "pgup":
			m.cursor = max(0, m.cursor-m.listHeight())
		case "pgdown":
			m.cursor = max(0, min(len(vis)-1, m.cursor+m.listHeight()))
		case "tab":
			if len(m.scopes) > 1 {
				m.scope = (m.scope + 1) % len(m.scopes)
				m.first()
			}
		case "space", "enter":
			if m.cursor < len(vis) {
				m.toggle(vis[m.cursor])
			}
		case "backspace":
			if m.query != "" {
				r := []rune(m.query)
				m.query = string(r[:len(r)-1])
				m.first()
			}
		default:
			if t := msg.Text; t != "" && !strings.ContainsAny(t, "\x1b\r\n\t") {
				m.query += t
				m.first()
			}
		}
	}
	return m, nil
}

func (m *configModel) toggle(i int) {
	sc := &m.scopes[m.scope]
	it := sc.Items[i]
	if sc.Cycle != nil {
		next, err := sc.Cycle(it)
		if err != nil {
			m.status = "Error: " + err.Error()
			return
		}
		sc.Items[i] = next
		what := map[string]string{"load": "loaded by the project", "unload": "unloaded by the project"}[next.Override]
		if what == "" {
			what = "inherited"
		}
		m.status = fmt.Sprintf("%s %s (saved to %s)", it.Name, what, sc.File)
		return
	}
	if !it.Editable {
		m.status = it.Name + " comes from another settings file; switch with Tab to change it there"
		return
	}
	if err := sc.Toggle(it, !it.Enabled); err != nil {
		m.status = "Error: " + err.Error()
		return
	}
	sc.Items[i].Enabled = !it.Enabled
	state := "disabled"
	if !it.Enabled {
		state = "enabled"
	}
	m.status = fmt.Sprintf("%s %s (saved to %s)", it.Name, state, sc.File)
}

// listHeight is the rows left for resources under the header.
func (m *configModel) listHeight() int { return max(3, m.height-7) }

func (m *configModel) View() tea.View {
	sc := m.scopes[m.scope]
	w := max(20, m.width)
	hint := "space toggle · esc close"
	if sc.Cycle != nil {
		hint = "space cycle inherit/+/- · esc close"
	}
	if len(m.scopes) > 1 {
		hint = "tab switch mode · " + hint
	}
	lines := []string{
		"\x1b[1m" + sc.Title + "\x1b[22m   " + hint,
		"\x1b[2m" + sc.File + "\x1b[22m",
		"Filter: " + m.query,
		"",
	}
	vis := m.visible()
	var rows []string
	cursorRow := 0
	group, kind := "", ""
	for n, i := range vis {
		it := sc.Items[i]
		if it.Group != group {
			group, kind = it.Group, ""
			rows = append(rows, "  \x1b[1m"+it.Group+"\x1b[22m")
		}
		if it.Kind != kind {
			kind = it.Kind
			rows = append(rows, "    \x1b[2m"+it.Kind+"\x1b[22m")
		}
		box := "[ ]"
		if it.Enabled {
			box = "[x]"
		}
		prefix := "  "
		if n == m.cursor {
			prefix, cursorRow = "> ", len(rows)
		}
		row := prefix + "    " + box + " " + it.Name
		switch {
		case sc.Cycle != nil && it.Override == "load":
			row = prefix + "    [+] " + it.Name + "  project load"
		case sc.Cycle != nil && it.Override == "unload":
			row = prefix + "    [-] " + it.Name + "  project unload"
		case sc.Cycle != nil && it.Inherited:
			row = "\x1b[2m" + row + "  inherited global\x1b[22m"
		case sc.Cycle == nil && !it.Editable:
			row = "\x1b[2m" + row + "  (inherited)\x1b[22m"
		}
		rows = append(rows, row)
	}
	if len(vis) == 0 {
		rows = append(rows, "  No resources found")
	}
	h := m.listHeight()
	startRow := 0
	if cursorRow >= h {
		startRow = cursorRow - h + 1
	}
	for i := startRow; i < len(rows) && i < startRow+h; i++ {
		lines = append(lines, rows[i])
	}
	lines = append(lines, "", m.status)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return tea.NewView(strings.Join(lines, "\n"))
}
