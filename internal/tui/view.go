package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/tui/editor"
	"github.com/relay-agent/relay/internal/tui/keymap"
	"github.com/relay-agent/relay/internal/tui/theme"
)

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (m *Model) editorStyles() editor.Styles {
	th := m.th
	return editor.Styles{
		Text:          func(s string) string { return th.Fg("text", s) },
		Cursor:        func(s string) string { return "\x1b[7m" + s + "\x1b[27m" },
		Placeholder:   func(s string) string { return th.Fg("dim", s) },
		PopupItem:     func(s string) string { return th.Fg("text", s) },
		PopupSelected: func(s string) string { return th.Bg("selectedBg", th.Fg("accent", s)) },
		PopupDetail:   func(s string) string { return th.Fg("muted", s) },
	}
}

// View lays out, top to bottom: the transcript (fullscreen) or the live
// blocks (regular), the status line, completion list, the editor between
// two rules, and the footer.
func (m *Model) View() tea.View {
	if m.width == 0 || m.height == 0 {
		return tea.NewView("")
	}
	w := m.width
	bottom, cursorRow, cursorCol := m.bottomArea(w)
	var lines []string
	if m.overlay != nil {
		avail := max(3, m.height-len(bottom))
		ov := strings.Split(m.overlay.view(m, w, avail), "\n")
		if m.fullscreen {
			pad := max(0, avail-len(ov))
			lines = append(m.tr.View(w, pad), ov...)
		} else {
			lines = ov
		}
		cursorRow = -1
	} else if m.fullscreen {
		avail := max(1, m.height-len(bottom))
		var live []string
		if m.bashRunning {
			// A running ! command shows its latest output under the
			// transcript, as in regular mode, until it lands there.
			live = m.bashLive(w)
			if keep := avail / 2; len(live) > keep {
				live = live[len(live)-keep:]
			}
		}
		// An extension's header is pinned above the transcript; it is part
		// of the rows selection works on.
		var hdr []string
		if h := m.ext.header; h != nil {
			hdr = h.draw(m, w, max(0, avail/2))
		}
		m.rows = append(hdr, m.transcriptWithScrollbar(w, max(1, avail-len(live)-len(hdr)))...)
		lines = append(m.highlight(m.rows), live...)
	} else {
		live := m.tr.Live(w)
		if m.bashRunning {
			live = append(live, m.bashLive(w)...)
		}
		keep := max(0, m.height-len(bottom)-1)
		if len(live) > keep {
			live = live[len(live)-keep:]
		}
		lines = live
	}
	if cursorRow >= 0 {
		cursorRow += len(lines)
	}
	lines = append(lines, bottom...)
	// Extensions' overlays go over everything; a focused one owns the
	// cursor.
	n := len(lines)
	lines, ovRow, ovCol := m.compositeOverlays(lines)
	if cursorRow >= 0 {
		cursorRow += len(lines) - n
	}
	if f := m.focusedCustom(); f != nil && f.overlay {
		cursorRow, cursorCol = ovRow, ovCol
	}
	if !m.fullscreen && !m.opts.ClearOnShrink {
		// terminal.clearOnShrink off: the frame never gets shorter, so the
		// rows it leaves stay as blank rows instead of being cleared.
		if n := min(m.liveHigh, m.height); len(lines) < n {
			lines = append(lines, make([]string, n-len(lines))...)
		}
		m.liveHigh = max(m.liveHigh, len(lines))
	}
	if !m.fullscreen {
		// Leave a row above the frame so committed lines always have room
		// to print without pushing the frame into the scrollback.
		if len(lines) > m.height-1 && m.height > 1 {
			drop := len(lines) - (m.height - 1)
			if cursorRow >= 0 {
				cursorRow = max(0, cursorRow-drop)
			}
			lines = lines[drop:]
		}
		m.noteFrame(len(lines))
	}
	if m.quitting && !m.fullscreen {
		// On exit the renderer leaves the cursor on the frame's last row,
		// where the shell's prompt would overwrite the footer: end the
		// final frame with an empty row for it.
		lines = append(lines, "")
	}
	v := tea.NewView(strings.Join(lines, "\n"))
	v.WindowTitle = m.ext.title
	v.AltScreen = m.fullscreen
	if m.fullscreen {
		v.MouseMode = tea.MouseModeCellMotion
	}
	if m.opts.TerminalProgress && (m.busy || m.bashRunning) {
		v.ProgressBar = tea.NewProgressBar(tea.ProgressBarIndeterminate, 0)
	}
	if m.opts.ShowHardwareCursor && cursorRow >= 0 {
		v.Cursor = tea.NewCursor(cursorCol, cursorRow)
	}
	return v
}

func (m *Model) transcriptWithScrollbar(w, h int) []string {
	mode := m.opts.FullscreenScrollbar
	above, visible, total := 0, h, h
	showBar := false
	if mode != "hidden" {
		// Render first so the estimate includes what is on screen.
		m.tr.View(w-1, h)
		above, visible, total = m.tr.Scroll()
		showBar = mode == "always" || total > visible && (mode == "" || mode == "auto")
	}
	if !showBar {
		return m.tr.View(w, h)
	}
	rows := m.tr.View(w-1, h)
	thumb := max(1, h*visible/max(1, total))
	start := 0
	if total > visible {
		start = (h - thumb) * above / max(1, total-visible)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		pad := max(0, w-1-ansi.StringWidth(r))
		cell := m.th.Fg("scrollbarTrack", "│")
		if i >= start && i < start+thumb {
			cell = m.th.Fg("scrollbarThumb", "┃")
		}
		out[i] = r + strings.Repeat(" ", pad) + cell
	}
	return out
}

func (m *Model) bashLive(w int) []string {
	m.bashMu.Lock()
	out := m.bashOut.String()
	m.bashMu.Unlock()
	lines := []string{"", m.th.Fg("bashMode", "$ "+m.bashCmd)}
	tail := strings.Split(strings.TrimRight(ansi.Strip(out), "\n"), "\n")
	if len(tail) > 8 {
		tail = tail[len(tail)-8:]
	}
	for _, l := range tail {
		if l != "" {
			lines = append(lines, m.th.Fg("toolOutput", ansi.Truncate(l, w, "…")))
		}
	}
	return lines
}

// bottomArea renders status, completions, editor and footer; it also
// returns the cursor position inside it.
func (m *Model) bottomArea(w int) (lines []string, curRow, curCol int) {
	th := m.th
	// Status line.
	var status string
	switch {
	case m.searching:
		c, n := m.tr.SearchStatus()
		status = th.Fg("accent", "Search: ") + m.search + th.Fg("muted", fmt.Sprintf("  %d/%d  enter next · %s close", c, n, m.km.Label(keymap.AltScreenSearchClose)))
	case m.busy || m.bashRunning:
		if frame, text, ok := m.workingRow(); ok {
			if frame != "" {
				text = frame + " " + text
			}
			status = th.Fg("accent", text) + th.Fg("muted", " ("+m.km.Label(keymap.AppInterrupt)+" to interrupt)")
		}
	}
	// Our own notices come before the runtime's status, which may be long.
	if m.status != "" {
		role := "muted"
		if m.statusErr {
			role = "error"
		}
		if status != "" {
			status += "  "
		}
		status += th.Fg(role, m.status)
	}
	if m.opts.StatusLine != nil {
		if extra := m.opts.StatusLine(); extra != "" {
			if status != "" {
				status += "  "
			}
			status += th.Fg("dim", extra)
		}
	}
	lines = append(lines, ansi.Truncate(status, w, "…"))
	for _, q := range m.queued {
		lines = append(lines, th.Fg("muted", ansi.Truncate("  "+strings.ReplaceAll(q, "\n", " "), w, "…")))
	}
	if len(m.queued) > 0 {
		lines = append(lines, th.Fg("dim", ansi.Truncate("  ↳ "+m.km.Label(keymap.AppMessageDequeue)+" to edit all queued messages", w, "…")))
	}
	inline := m.inlineCustom()
	if pop := m.ed.CompletionView(w - 2); pop != "" && inline == nil && m.ext.editor == nil {
		for _, l := range strings.Split(pop, "\n") {
			lines = append(lines, " "+l)
		}
	}
	lines = append(lines, m.widgetLines(hooks.PlaceAboveEditor, w)...)
	switch {
	case inline != nil && inline.compView != nil:
		// ctx.ui.custom without overlay: the component takes the editor's
		// place until it is done.
		comp := inline.draw(m, w, max(3, m.height*2/3))
		curRow, curCol = -1, 0
		if inline.cursorRow >= 0 && m.focusedCustom() == inline {
			curRow, curCol = len(lines)+inline.cursorRow, inline.cursorCol
		}
		lines = append(lines, comp...)
		lines = append(lines, m.widgetLines(hooks.PlaceBelowEditor, w)...)
		lines = append(lines, m.footerLines(w)...)
		return lines, curRow, curCol
	case m.ext.editor != nil:
		// A replacement editor draws itself, borders included.
		e := m.ext.editor
		padX := max(0, min(3, m.opts.EditorPaddingX))
		comp := e.draw(m, m.editorWidth(w), max(1, m.height/2))
		curRow, curCol = -1, 0
		if e.cursorRow >= 0 && m.focusedCustom() == nil {
			curRow, curCol = len(lines)+e.cursorRow, padX+e.cursorCol
		}
		pad := strings.Repeat(" ", padX)
		for _, l := range comp {
			lines = append(lines, pad+l)
		}
		lines = append(lines, m.widgetLines(hooks.PlaceBelowEditor, w)...)
		lines = append(lines, m.footerLines(w)...)
		return lines, curRow, curCol
	}
	// Editor between rules; the rule colour shows the thinking level.
	ruleRole := "borderMuted"
	if m.hasThinking {
		ruleRole = thinkingRole(string(m.thinking))
	}
	if m.ed.BangMode() {
		ruleRole = "bashMode"
	}
	padX := max(0, min(3, m.opts.EditorPaddingX))
	edW := max(4, w-2*padX)
	maxRows := max(1, min(10, m.height/3))
	body := m.ed.View(edW, maxRows, m.opts.ShowHardwareCursor)
	// The rules say when the message is longer than the editor shows.
	above, below := m.ed.Hidden()
	lines = append(lines, editorRule(th, ruleRole, w, "↑", above))
	cx, cy := m.ed.Cursor()
	curRow, curCol = len(lines)+cy, padX+cx
	pad := strings.Repeat(" ", padX)
	for _, l := range strings.Split(body, "\n") {
		lines = append(lines, pad+l)
	}
	lines = append(lines, editorRule(th, ruleRole, w, "↓", below))
	lines = append(lines, m.widgetLines(hooks.PlaceBelowEditor, w)...)
	lines = append(lines, m.footerLines(w)...)
	return lines, curRow, curCol
}

// footerLines is an extension's footer when one is set, else the built-in
// footer and the extensions' status entries.
func (m *Model) footerLines(w int) []string {
	if f := m.ext.footer; f != nil {
		return f.draw(m, w, max(1, m.height/3))
	}
	lines := m.footer(w)
	if st := m.statusEntries(); len(st) > 0 {
		lines = append(lines, ansi.Truncate(strings.Join(st, m.th.Fg("dim", " · ")), w, "…")+"\x1b[0m")
	}
	return lines
}

// editorRule is the rule above or below the editor, naming the rows
// scrolled out on that side.
func editorRule(th *theme.Theme, role string, w int, arrow string, hidden int) string {
	if hidden <= 0 {
		return th.Fg(role, strings.Repeat("─", w))
	}
	label := fmt.Sprintf("─── %s %d more ", arrow, hidden)
	return th.Fg(role, ansi.Truncate(label+strings.Repeat("─", max(0, w-ansi.StringWidth(label))), w, ""))
}

func thinkingRole(level string) string {
	switch level {
	case "off", "":
		return "thinkingOff"
	case "minimal":
		return "thinkingMinimal"
	case "low":
		return "thinkingLow"
	case "medium":
		return "thinkingMedium"
	case "high":
		return "thinkingHigh"
	case "xhigh":
		return "thinkingXhigh"
	}
	return "thinkingMax"
}

// footer: cwd and session name; model and thinking level on the left,
// context use, tokens and cost on the right.
func (m *Model) footer(w int) []string {
	th := m.th
	in := m.info
	cwd := in.Cwd
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, cwd); err == nil && !strings.HasPrefix(rel, "..") {
			cwd = filepath.Join("~", rel)
		}
	}
	first := cwd
	if in.SessionName != "" {
		first += " · " + in.SessionName
	}
	left := m.modelName
	if m.hasThinking {
		left += " · " + th.Fg(thinkingRole(string(m.thinking)), string(m.thinking))
	}
	if m.opts.FooterModel != nil {
		if routed := m.opts.FooterModel(); routed != "" {
			left += " → " + routed
		}
	}
	var right []string
	if in.ContextWindow > 0 {
		pct := float64(in.ContextTokens) * 100 / float64(in.ContextWindow)
		role := "muted"
		switch {
		case pct >= 90:
			role = "error"
		case pct >= 70:
			role = "warning"
		}
		right = append(right, th.Fg(role, fmt.Sprintf("%.1f%%/%s", pct, compact(in.ContextWindow))))
	}
	if in.InputTokens+in.OutputTokens > 0 {
		right = append(right, fmt.Sprintf("↑%s ↓%s", compact(in.InputTokens), compact(in.OutputTokens)))
		if in.CacheRead > 0 {
			right = append(right, "R"+compact(in.CacheRead))
		}
	}
	if in.Cost > 0 {
		right = append(right, fmt.Sprintf("$%.3f", in.Cost))
	}
	r := strings.Join(right, " ")
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(r)
	second := left
	if gap >= 2 {
		second = left + strings.Repeat(" ", gap) + r
	}
	return []string{
		th.Fg("dim", ansi.Truncate(first, w, "…")),
		th.Fg("muted", ansi.Truncate(second, w, "…")),
	}
}

// compact prints 1234 as 1.2k and 1234567 as 1.2M.
func compact(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}
