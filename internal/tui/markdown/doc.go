package markdown

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

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
	tail     []string  // rendered tail for width
	tailSrc  int       // src length when tail was rendered
	tailAt   time.Time // when the tail was rendered
	finished bool

	fenceStart int      // offset of the open fence's opener line
	code       codeTail // plain lines of a long open code block
}

// codeTail caches the lines of a long code block while it streams: each
// complete line is drawn once, plain; highlighting happens once the block
// is finished. Without it every frame would re-highlight the whole block.
type codeTail struct {
	start, upTo int // content offsets: start of content, end of cached lines
	width       int
	lines       []string
}

// A large growing tail (a long code block being streamed) is re-rendered
// at most every tailThrottle, so one block cannot eat every frame.
const (
	largeTail    = 8 << 10
	tailThrottle = 50 * time.Millisecond
	// openCodeMin is the size from which a streaming code block is drawn
	// line by line, plain, until it is finished (highlighting 1 KB costs
	// about a millisecond; re-highlighting a growing block every frame
	// would not fit in one).
	openCodeMin = 1 << 10
)

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
		d.fenceLine(line, start)
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

func (d *Doc) fenceLine(line string, start int) {
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
		d.fenceStart = start
		d.code = codeTail{}
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
			c.lines = d.r.render(strings.TrimRight(s[c.start:c.end], "\n"), width, false)
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
	if !d.finished && d.fence.open && d.fenceStart == d.tailStart && len(s)-d.tailStart > openCodeMin {
		if len(out) > 0 {
			out = append(out, "")
		}
		return append(out, d.openCodeLines(s, width)...)
	}
	stale := d.tailSrc != len(s)
	if stale && d.tailSrc >= 0 && !d.finished && len(s)-d.tailStart > largeTail && time.Since(d.tailAt) < tailThrottle {
		stale = false // keep the previous render for this frame
	}
	if stale {
		d.tail = d.r.render(s[d.tailStart:], width, !d.finished)
		d.tailSrc = len(s)
		d.tailAt = time.Now()
	}
	if len(d.tail) > 0 {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, d.tail...)
	}
	return out
}

// openCodeLines draws a long code block that is still streaming.
func (d *Doc) openCodeLines(s string, width int) []string {
	th := d.r.opts.Theme
	indent := d.r.opts.CodeBlockIndent
	opener := s[d.fenceStart:]
	nl := strings.IndexByte(opener, '\n')
	if nl < 0 {
		return d.r.Render(opener, width)
	}
	lang := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(opener[:nl]), "`~"))
	c := &d.code
	if c.width != width || c.start != d.fenceStart+nl+1 {
		*c = codeTail{start: d.fenceStart + nl + 1, width: width}
		c.upTo = c.start
	}
	avail := max(4, width-len(indent))
	draw := func(line string) []string {
		line = th.Fg("mdCodeBlock", strings.ReplaceAll(line, "\t", "    "))
		var out []string
		for _, part := range strings.Split(ansi.Hardwrap(line, avail, true), "\n") {
			out = append(out, indent+part)
		}
		return SelfContained(out)
	}
	if last := strings.LastIndexByte(s, '\n'); last+1 > c.upTo {
		for _, l := range strings.Split(s[c.upTo:last], "\n") {
			c.lines = append(c.lines, draw(l)...)
		}
		c.upTo = last + 1
	}
	out := make([]string, 0, len(c.lines)+2)
	out = append(out, d.r.fence(lang))
	out = append(out, c.lines...)
	if partial := s[c.upTo:]; partial != "" {
		out = append(out, draw(partial)...)
	}
	return out
}
