package editor

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Styles colour the editor; each is a function so the package does not
// depend on a style library. The theme fills them.
type Styles struct {
	Text          func(string) string
	Cursor        func(string) string
	Placeholder   func(string) string
	PopupItem     func(string) string
	PopupSelected func(string) string
	PopupDetail   func(string) string
}

// PlainStyles draws the cursor in reverse video and nothing else.
func PlainStyles() Styles {
	id := func(s string) string { return s }
	return Styles{
		Text:          id,
		Cursor:        func(s string) string { return "\x1b[7m" + s + "\x1b[27m" },
		Placeholder:   id,
		PopupItem:     id,
		PopupSelected: func(s string) string { return "\x1b[7m" + s + "\x1b[27m" },
		PopupDetail:   id,
	}
}

// viewState caches each line's wrap points for the current width, so a
// keystroke rewraps only its own line.
type viewState struct {
	width, height int
	wraps         [][]int // per line: start column of each visual row
	scroll        int     // first visible visual row
	total         int     // visual rows of the text at the last View
	// HideCursor leaves the cursor cell to the terminal's hardware cursor.
	cursorX, cursorY int
}

func (v *viewState) invalidate(row int) {
	if row < 0 || row >= len(v.wraps) {
		v.wraps = nil
		return
	}
	v.wraps[row] = nil
}

func runeWidth(r rune) int {
	if r < 0x80 {
		if r < 0x20 {
			return 0
		}
		return 1
	}
	return ansi.StringWidth(string(r))
}

// wrapLine returns the start column of each visual row of line at width w.
// It prefers breaking after a space and always leaves room for the cursor
// after the last rune.
func wrapLine(line []rune, w int) []int {
	starts := []int{0}
	if w < 2 {
		w = 2
	}
	start, width, lastSpace := 0, 0, -1
	for i := 0; i < len(line); i++ {
		rw := runeWidth(line[i])
		if width+rw > w {
			brk := i
			if lastSpace >= start && lastSpace+1 < i {
				brk = lastSpace + 1
			}
			starts = append(starts, brk)
			start, lastSpace = brk, -1
			width = 0
			for j := brk; j < i; j++ {
				width += runeWidth(line[j])
			}
		}
		if line[i] == ' ' {
			lastSpace = i
		}
		width += rw
	}
	if width+1 > w && len(line) > start {
		starts = append(starts, len(line))
	}
	return starts
}

func (e *Editor) ensureWraps(width int) {
	v := &e.view
	if width != v.width {
		v.width = width
		v.wraps = nil
	}
	if len(v.wraps) != len(e.buf.lines) {
		v.wraps = make([][]int, len(e.buf.lines))
	}
	for i, l := range e.buf.lines {
		if v.wraps[i] == nil {
			v.wraps[i] = wrapLine(l, width)
		}
	}
}

// visualOf returns the visual row index (within the line) holding col.
func visualOf(starts []int, col int) int {
	r := 0
	for i, s := range starts {
		if col >= s {
			r = i
		}
	}
	return r
}

func (e *Editor) rowWidth(line []rune, from, to int) int {
	w := 0
	for _, r := range line[from:to] {
		w += runeWidth(r)
	}
	return w
}

// colAtX finds the column in [from, to) whose display offset is nearest x.
func (e *Editor) colAtX(line []rune, from, to, x int) int {
	w := 0
	for c := from; c < to; c++ {
		rw := runeWidth(line[c])
		if w+rw > x {
			return c
		}
		w += rw
	}
	return to
}

// moveVisual moves the cursor one visual row up (-1) or down; false at the
// first or last row.
func (e *Editor) moveVisual(dir int) bool {
	if e.view.width == 0 {
		e.ensureWraps(80)
	}
	e.ensureWraps(e.view.width)
	b := &e.buf
	starts := e.view.wraps[b.cur.row]
	vr := visualOf(starts, b.cur.col)
	line := b.lines[b.cur.row]
	x := e.rowWidth(line, starts[vr], b.cur.col)
	row, target := b.cur.row, vr+dir
	if target < 0 {
		if row == 0 {
			return false
		}
		row--
		target = len(e.view.wraps[row]) - 1
	} else if target >= len(starts) {
		if row == len(b.lines)-1 {
			return false
		}
		row++
		target = 0
	}
	ts := e.view.wraps[row]
	tl := b.lines[row]
	end := len(tl)
	if target+1 < len(ts) {
		end = ts[target+1]
		if end > ts[target] {
			end-- // stay on this visual row
		}
	}
	b.cur = pos{row, e.colAtX(tl, ts[target], end, x)}
	return true
}

// View renders at most height visual rows at the given width. The cursor
// cell is drawn with Styles.Cursor unless hideCursor is set.
func (e *Editor) View(width, height int, hideCursor bool) string {
	if width < 2 {
		width = 2
	}
	e.view.height = max(1, height)
	e.ensureWraps(width)
	st := e.Styles
	if e.buf.empty() && e.Placeholder != "" {
		e.view.cursorX, e.view.cursorY = 0, 0
		ph := ansi.Truncate(e.Placeholder, width-1, "…")
		if hideCursor {
			return st.Placeholder(ph)
		}
		return st.Cursor(" ") + st.Placeholder(ph)
	}
	// Absolute visual row of the cursor, and the total.
	total, curRow := 0, 0
	for i, starts := range e.view.wraps {
		if i == e.buf.cur.row {
			curRow = total + visualOf(starts, e.buf.cur.col)
		}
		total += len(starts)
	}
	v := &e.view
	v.total = total
	if curRow < v.scroll {
		v.scroll = curRow
	}
	if curRow >= v.scroll+v.height {
		v.scroll = curRow - v.height + 1
	}
	v.scroll = max(0, min(v.scroll, total-v.height))
	var out strings.Builder
	n, abs := 0, 0
	for i, starts := range v.wraps {
		if abs+len(starts) <= v.scroll {
			abs += len(starts)
			continue
		}
		line := e.buf.lines[i]
		for j, s := range starts {
			if abs < v.scroll {
				abs++
				continue
			}
			if n >= v.height {
				break
			}
			end := len(line)
			if j+1 < len(starts) {
				end = starts[j+1]
			}
			if n > 0 {
				out.WriteByte('\n')
			}
			if abs == curRow {
				c := e.buf.cur.col
				v.cursorX, v.cursorY = e.rowWidth(line, s, c), n
				out.WriteString(st.Text(string(line[s:c])))
				if hideCursor {
					out.WriteString(st.Text(string(line[c:end])))
				} else if c < end {
					out.WriteString(st.Cursor(string(line[c])))
					out.WriteString(st.Text(string(line[c+1 : end])))
				} else {
					out.WriteString(st.Cursor(" "))
				}
			} else {
				out.WriteString(st.Text(string(line[s:end])))
			}
			n++
			abs++
		}
		if n >= v.height {
			break
		}
	}
	return out.String()
}

// Hidden is how many visual rows of the text the last View left out above
// and below its window (a long message scrolls inside the editor).
func (e *Editor) Hidden() (above, below int) {
	v := &e.view
	if e.buf.empty() {
		return 0, 0
	}
	return v.scroll, max(0, v.total-v.scroll-v.height)
}

// Cursor is the cursor cell of the last View, relative to its top left.
func (e *Editor) Cursor() (x, y int) { return e.view.cursorX, e.view.cursorY }

// VisualLines is the number of visual rows the text needs at width.
func (e *Editor) VisualLines(width int) int {
	e.ensureWraps(max(2, width))
	n := 0
	for _, s := range e.view.wraps {
		n += len(s)
	}
	return n
}
