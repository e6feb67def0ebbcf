package markdown

import "strings"

// Doc is a markdown text that may still be growing. Its text is split into
// chunks at blank lines outside code fences where the next line is not
// indented (so list continuations and indented code stay together). Every
// chunk but the last is final: it is rendered once per width and cached.
// Only the last chunk is re-rendered as text streams in, which keeps a
// long answer linear instead of quadratic.
//
// Cost of the split: reference-style link definitions do not reach other
// chunks, and a loose list is drawn as consecutive lists, which looks the
// same in a terminal.
type Doc struct {
	r    *Renderer
	src  strings.Builder
	text string // src as string, refreshed lazily

	done      []chunk // finished chunks, in order
	tailStart int     // byte offset where the unfinished chunk starts
	scanPos   int     // bytes before scanPos were scanned for boundaries
	fence     fenceState
	prevBlank bool

	width    int
	tail     []string // rendered tail for width
	tailSrc  int      // src length when tail was rendered
	finished bool
}

type chunk struct {
	start, end int
	lines      []string
	width      int
}

type fenceState struct {
	open bool
	char byte
	n    int
}

// NewDoc starts an empty document.
func (r *Renderer) NewDoc() *Doc { return &Doc{r: r, tailSrc: -1} }

// Append adds streamed text.
func (d *Doc) Append(s string) {
	if s == "" {
		return
	}
	d.src.WriteString(s)
	d.text = ""
	d.scan()
}

// SetText replaces the text (the authoritative final content).
func (d *Doc) SetText(s string) {
	if d.finished && s == d.Text() {
		return
	}
	*d = Doc{r: d.r, tailSrc: -1, width: d.width, finished: d.finished}
	d.Append(s)
}

// Finish marks the text complete; the tail becomes cacheable.
func (d *Doc) Finish() { d.finished = true }

// Text is the document source.
func (d *Doc) Text() string {
	if d.text == "" && d.src.Len() > 0 {
		d.text = d.src.String()
	}
	return d.text
}

// scan finds new chunk boundaries in the unscanned complete lines.
func (d *Doc) scan() {
	s := d.Text()
	for {
		nl := strings.IndexByte(s[d.scanPos:], '\n')
		if nl < 0 {
			// The first byte of an unfinished line is enough to decide a
			// boundary after a blank line.
			if d.prevBlank && !d.fence.open && d.scanPos < len(s) {
				d.boundaryAt(d.scanPos, s[d.scanPos])
			}
			return
		}
		line := s[d.scanPos : d.scanPos+nl]
		start := d.scanPos
		d.scanPos += nl + 1
		if d.prevBlank && !d.fence.open && line != "" {
			d.boundaryAt(start, line[0])
		}
		d.fenceLine(line)
		d.prevBlank = strings.TrimSpace(line) == "" && !d.fence.open
	}
}

func (d *Doc) boundaryAt(off int, first byte) {
	if first == ' ' || first == '\t' || off <= d.tailStart {
		return
	}
	d.done = append(d.done, chunk{start: d.tailStart, end: off})
	d.tailStart = off
	d.tailSrc = -1
}

func (d *Doc) fenceLine(line string) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 {
		return
	}
	c := t[0]
	if c != '`' && c != '~' {
		return
	}
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return
	}
	switch {
	case !d.fence.open:
		if c == '`' && strings.ContainsRune(t[n:], '`') {
			return // not a fence: info strings cannot hold backticks
		}
		d.fence = fenceState{open: true, char: c, n: n}
	case c == d.fence.char && n >= d.fence.n && strings.TrimSpace(t[n:]) == "":
		d.fence = fenceState{}
	}
}

// DropCache frees the rendered lines; the next Lines renders again.
func (d *Doc) DropCache() {
	for i := range d.done {
		d.done[i].lines = nil
	}
	d.tail, d.tailSrc = nil, -1
}

// Lines renders the document at width: cached chunks plus the tail.
func (d *Doc) Lines(width int) []string {
	if width != d.width {
		d.width = width
		d.tailSrc = -1
	}
	s := d.Text()
	var out []string
	for i := range d.done {
		c := &d.done[i]
		if c.lines == nil || c.width != width {
			c.lines = d.r.Render(strings.TrimRight(s[c.start:c.end], "\n"), width)
			c.width = width
		}
		if len(c.lines) == 0 {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, c.lines...)
	}
	if d.tailSrc != len(s) {
		d.tail = d.r.Render(s[d.tailStart:], width)
		d.tailSrc = len(s)
	}
	if len(d.tail) > 0 {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, d.tail...)
	}
	return out
}
