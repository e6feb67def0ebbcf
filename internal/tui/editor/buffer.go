// Package editor is relay's multi-line prompt editor: emacs-style motion
// and kill ring, undo, jump to character, prompt history, collapsed large
// pastes, @file and /command completion, and soft wrap by display width.
//
// Lines are copy-on-write rune slices: an edit replaces the one line it
// touches, so a keystroke costs O(line) and an undo snapshot only copies the
// slice of line headers.
package editor

import (
	"strings"
	"unicode"
)

// pos is a position in the buffer: line index and rune column.
type pos struct{ row, col int }

func (a pos) before(b pos) bool { return a.row < b.row || a.row == b.row && a.col < b.col }

type snapshot struct {
	lines [][]rune
	cur   pos
}

// buffer holds the text and cursor; all mutations go through its methods
// so the wrap cache learns which lines changed.
type buffer struct {
	lines [][]rune
	cur   pos
	// onChange is told which line changed (-1: the line structure changed).
	onChange func(row int)
}

func newBuffer() buffer { return buffer{lines: [][]rune{{}}} }

func (b *buffer) changed(row int) {
	if b.onChange != nil {
		b.onChange(row)
	}
}

func (b *buffer) line() []rune { return b.lines[b.cur.row] }

func (b *buffer) text() string {
	var sb strings.Builder
	for i, l := range b.lines {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(string(l))
	}
	return sb.String()
}

func (b *buffer) setText(s string) {
	parts := strings.Split(s, "\n")
	b.lines = make([][]rune, len(parts))
	for i, p := range parts {
		b.lines[i] = []rune(p)
	}
	last := len(b.lines) - 1
	b.cur = pos{last, len(b.lines[last])}
	b.changed(-1)
}

func (b *buffer) empty() bool { return len(b.lines) == 1 && len(b.lines[0]) == 0 }

func (b *buffer) snapshot() snapshot {
	return snapshot{lines: append([][]rune(nil), b.lines...), cur: b.cur}
}

func (b *buffer) restore(s snapshot) {
	b.lines = append([][]rune(nil), s.lines...)
	b.cur = s.cur
	b.changed(-1)
}

// insert puts s at the cursor and leaves the cursor after it.
func (b *buffer) insert(s string) {
	if s == "" {
		return
	}
	rs := []rune(s)
	line := b.line()
	head, tail := line[:b.cur.col], line[b.cur.col:]
	if !containsNewline(rs) {
		nl := make([]rune, 0, len(line)+len(rs))
		nl = append(append(append(nl, head...), rs...), tail...)
		b.lines[b.cur.row] = nl
		b.cur.col += len(rs)
		b.changed(b.cur.row)
		return
	}
	parts := strings.Split(s, "\n")
	newLines := make([][]rune, 0, len(parts))
	first := append(append([]rune{}, head...), []rune(parts[0])...)
	newLines = append(newLines, first)
	for _, p := range parts[1 : len(parts)-1] {
		newLines = append(newLines, []rune(p))
	}
	lastPart := []rune(parts[len(parts)-1])
	last := append(append([]rune{}, lastPart...), tail...)
	newLines = append(newLines, last)
	rest := append([][]rune{}, b.lines[b.cur.row+1:]...)
	b.lines = append(append(b.lines[:b.cur.row], newLines...), rest...)
	b.cur = pos{b.cur.row + len(parts) - 1, len(lastPart)}
	b.changed(-1)
}

func containsNewline(rs []rune) bool {
	for _, r := range rs {
		if r == '\n' {
			return true
		}
	}
	return false
}

// deleteRange removes [from, to) and returns the removed text; the cursor
// goes to from.
func (b *buffer) deleteRange(from, to pos) string {
	if !from.before(to) {
		return ""
	}
	if from.row == to.row {
		line := b.lines[from.row]
		removed := string(line[from.col:to.col])
		nl := make([]rune, 0, len(line)-(to.col-from.col))
		nl = append(append(nl, line[:from.col]...), line[to.col:]...)
		b.lines[from.row] = nl
		b.cur = from
		b.changed(from.row)
		return removed
	}
	var sb strings.Builder
	sb.WriteString(string(b.lines[from.row][from.col:]))
	for r := from.row + 1; r < to.row; r++ {
		sb.WriteByte('\n')
		sb.WriteString(string(b.lines[r]))
	}
	sb.WriteByte('\n')
	sb.WriteString(string(b.lines[to.row][:to.col]))
	joined := append(append([]rune{}, b.lines[from.row][:from.col]...), b.lines[to.row][to.col:]...)
	rest := append([][]rune{}, b.lines[to.row+1:]...)
	b.lines = append(append(b.lines[:from.row], joined), rest...)
	b.cur = from
	b.changed(-1)
	return sb.String()
}

// prevPos is one rune before p (crossing line starts), or p at the start.
func (b *buffer) prevPos(p pos) pos {
	if p.col > 0 {
		return pos{p.row, p.col - 1}
	}
	if p.row > 0 {
		return pos{p.row - 1, len(b.lines[p.row-1])}
	}
	return p
}

func (b *buffer) nextPos(p pos) pos {
	if p.col < len(b.lines[p.row]) {
		return pos{p.row, p.col + 1}
	}
	if p.row < len(b.lines)-1 {
		return pos{p.row + 1, 0}
	}
	return p
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordLeft is the start of the word before p: skip spaces (and line
// starts), then either a run of word characters or a run of punctuation.
func (b *buffer) wordLeft(p pos) pos {
	for {
		if p.col == 0 {
			if p.row == 0 {
				return p
			}
			p = pos{p.row - 1, len(b.lines[p.row-1])}
			continue
		}
		if !unicode.IsSpace(b.lines[p.row][p.col-1]) {
			break
		}
		p.col--
	}
	line := b.lines[p.row]
	word := isWord(line[p.col-1])
	for p.col > 0 && !unicode.IsSpace(line[p.col-1]) && isWord(line[p.col-1]) == word {
		p.col--
	}
	return p
}

func (b *buffer) wordRight(p pos) pos {
	for {
		line := b.lines[p.row]
		if p.col == len(line) {
			if p.row == len(b.lines)-1 {
				return p
			}
			p = pos{p.row + 1, 0}
			continue
		}
		if !unicode.IsSpace(line[p.col]) {
			break
		}
		p.col++
	}
	line := b.lines[p.row]
	word := isWord(line[p.col])
	for p.col < len(line) && !unicode.IsSpace(line[p.col]) && isWord(line[p.col]) == word {
		p.col++
	}
	return p
}

// find returns the next (forward) or previous occurrence of r from p.
func (b *buffer) find(p pos, r rune, forward bool) (pos, bool) {
	if forward {
		row, col := p.row, p.col+1
		for row < len(b.lines) {
			line := b.lines[row]
			for ; col < len(line); col++ {
				if line[col] == r {
					return pos{row, col}, true
				}
			}
			row, col = row+1, 0
		}
		return p, false
	}
	row, col := p.row, p.col-1
	for row >= 0 {
		line := b.lines[row]
		if col >= len(line) {
			col = len(line) - 1
		}
		for ; col >= 0; col-- {
			if line[col] == r {
				return pos{row, col}, true
			}
		}
		row--
		if row >= 0 {
			col = len(b.lines[row]) - 1
		}
	}
	return p, false
}
