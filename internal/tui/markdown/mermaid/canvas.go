package mermaid

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Direction bits of a line cell.
const (
	up uint8 = 1 << iota
	down
	left
	right
)

// Line styles.
const (
	solid uint8 = iota
	dotted
	thick
)

type cell struct {
	r     rune // text or arrowhead; 0 when the cell is a line or blank
	cont  bool // the right half of a wide rune
	mask  uint8
	style uint8
	round bool // a box corner drawn rounded
	class Class
}

// canvas is a grid that grows on demand.
type canvas struct {
	rows [][]cell
}

func (c *canvas) at(x, y int) *cell {
	if x < 0 || y < 0 {
		return &cell{} // off the canvas: drawn nowhere
	}
	for len(c.rows) <= y {
		c.rows = append(c.rows, nil)
	}
	for len(c.rows[y]) <= x {
		c.rows[y] = append(c.rows[y], cell{})
	}
	return &c.rows[y][x]
}

// line draws a horizontal or vertical segment from (x0,y0) to (x1,y1),
// adding direction bits so it joins what is already there.
func (c *canvas) line(x0, y0, x1, y1 int, style uint8, class Class) {
	if x0 == x1 && y0 == y1 {
		return
	}
	dx, dy := sign(x1-x0), sign(y1-y0)
	var fwd, back uint8
	switch {
	case dx > 0:
		fwd, back = right, left
	case dx < 0:
		fwd, back = left, right
	case dy > 0:
		fwd, back = down, up
	default:
		fwd, back = up, down
	}
	x, y := x0, y0
	for {
		cl := c.at(x, y)
		if x != x0 || y != y0 {
			cl.mask |= back
		}
		if x != x1 || y != y1 {
			cl.mask |= fwd
		}
		if cl.r == 0 {
			cl.style, cl.class = style, class
		}
		if x == x1 && y == y1 {
			return
		}
		x, y = x+dx, y+dy
	}
}

// path draws consecutive segments through the points.
func (c *canvas) path(pts [][2]int, style uint8, class Class) {
	for i := 1; i < len(pts); i++ {
		c.line(pts[i-1][0], pts[i-1][1], pts[i][0], pts[i][1], style, class)
	}
}

// mark adds direction bits to one cell (a lifeline piece).
func (c *canvas) mark(x, y int, bits uint8, class Class) {
	cl := c.at(x, y)
	if cl.r != 0 {
		return
	}
	if cl.mask == 0 {
		cl.style, cl.class = solid, class
	}
	cl.mask |= bits
}

// put writes a rune (an arrowhead, a letter) over whatever is there.
func (c *canvas) put(x, y int, r rune, class Class) {
	cl := c.at(x, y)
	*cl = cell{r: r, class: class}
}

// text writes s from (x,y); wide runes take two cells.
func (c *canvas) text(x, y int, s string, class Class) {
	for _, r := range s {
		w := runeWidth(r)
		if w == 0 {
			continue
		}
		c.put(x, y, r, class)
		if w == 2 {
			cl := c.at(x+1, y)
			*cl = cell{cont: true, class: class}
		}
		x += w
	}
}

// box draws a rectangle with (x,y) its top-left corner.
func (c *canvas) box(x, y, w, h int, round bool, class Class) {
	c.line(x, y, x+w-1, y, solid, class)
	c.line(x+w-1, y, x+w-1, y+h-1, solid, class)
	c.line(x+w-1, y+h-1, x, y+h-1, solid, class)
	c.line(x, y+h-1, x, y, solid, class)
	if round {
		for _, p := range [][2]int{{x, y}, {x + w - 1, y}, {x, y + h - 1}, {x + w - 1, y + h - 1}} {
			c.at(p[0], p[1]).round = true
		}
	}
}

var glyphs = [3][16]rune{
	solid:  {' ', '│', '│', '│', '─', '┘', '┐', '┤', '─', '└', '┌', '├', '─', '┴', '┬', '┼'},
	dotted: {' ', '╎', '╎', '╎', '╌', '┘', '┐', '┤', '╌', '└', '┌', '├', '╌', '┴', '┬', '┼'},
	thick:  {' ', '┃', '┃', '┃', '━', '┛', '┓', '┫', '━', '┗', '┏', '┣', '━', '┻', '┳', '╋'},
}

func (cl cell) glyph() rune {
	if cl.r != 0 {
		return cl.r
	}
	if cl.round {
		switch cl.mask {
		case down | right:
			return '╭'
		case down | left:
			return '╮'
		case up | right:
			return '╰'
		case up | left:
			return '╯'
		}
	}
	return glyphs[cl.style][cl.mask]
}

// art turns the canvas into rows of classed spans, trailing blanks
// trimmed.
func (c *canvas) art() *Art {
	a := &Art{}
	// Columns blank in every row on the left are cut.
	lead := -1
	for _, row := range c.rows {
		for x, cl := range row {
			if cl.cont || cl.glyph() != ' ' {
				if lead < 0 || x < lead {
					lead = x
				}
				break
			}
		}
	}
	type glyphCell struct {
		r     rune
		class Class
	}
	var cells []glyphCell
	for _, row := range c.rows {
		if lead > 0 {
			row = row[min(lead, len(row)):]
		}
		cells = cells[:0]
		last := -1 // the last cell with ink
		for _, cl := range row {
			if cl.cont {
				continue
			}
			g, k := cl.glyph(), cl.class
			if g == ' ' {
				k = None
			} else {
				last = len(cells)
			}
			cells = append(cells, glyphCell{g, k})
		}
		var spans []Span
		var b strings.Builder
		w := 0
		for i := 0; i <= last; i++ {
			if i > 0 && cells[i].class != cells[i-1].class {
				spans = append(spans, Span{Class: cells[i-1].class, Text: b.String()})
				b.Reset()
			}
			b.WriteRune(cells[i].r)
			w += runeWidth(cells[i].r)
		}
		if last >= 0 {
			spans = append(spans, Span{Class: cells[last].class, Text: b.String()})
		}
		a.Lines = append(a.Lines, spans)
		a.Width = max(a.Width, w)
	}
	// Drop blank rows at the end.
	for len(a.Lines) > 0 && len(a.Lines[len(a.Lines)-1]) == 0 {
		a.Lines = a.Lines[:len(a.Lines)-1]
	}
	return a
}

func sign(n int) int {
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	}
	return 0
}

func width(s string) int { return ansi.StringWidth(s) }

// runeWidth is a rune's width in cells; box drawing and Latin text take
// the fast path.
func runeWidth(r rune) int {
	if r >= 0x20 && r < 0x300 || r >= 0x2500 && r < 0x2600 {
		return 1
	}
	return ansi.StringWidth(string(r))
}

func truncate(s string, w int) string { return ansi.Truncate(s, w, "…") }
