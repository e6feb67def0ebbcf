// Package markdown renders assistant markdown to themed ANSI lines:
// goldmark parses, our renderer draws, chroma (with lexers loaded lazily)
// colours code. Doc caches finished blocks so streaming only re-renders
// the last, growing block.
package markdown

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/relay-agent/relay/internal/tui/theme"
)

// Options are the markdown.* settings and the theme.
type Options struct {
	Theme *theme.Theme
	// CodeBlockIndent prefixes every code block line (markdown.codeBlockIndent).
	CodeBlockIndent string
	// Hyperlinks emits OSC 8 links (terminal.hyperlinks).
	Hyperlinks bool
	// Mermaid is markdown.mermaid: "off" draws mermaid blocks as any other
	// code; "final" draws flowcharts and sequence diagrams once the text
	// is complete, "streaming" also while it streams in. Diagrams that
	// cannot be drawn (another kind, too wide) show their source with a
	// label saying why.
	Mermaid string
}

// fence is the opening line of a code block.
func (r *Renderer) fence(lang string) string {
	return r.opts.Theme.Fg("mdCodeBlockBorder", "```"+lang)
}

// Renderer draws markdown. Safe for use from one goroutine at a time.
type Renderer struct {
	opts Options
	md   goldmark.Markdown
	// streaming: the text being rendered is still growing.
	streaming bool
	mermaid   mermaidCache
}

// NewRenderer builds a renderer; goldmark is set up here, not at init.
func NewRenderer(o Options) *Renderer {
	if o.Theme == nil {
		o.Theme = theme.Builtin("dark")
	}
	return &Renderer{opts: o, md: goldmark.New(goldmark.WithExtensions(extension.GFM))}
}

// Theme returns the renderer's theme.
func (r *Renderer) Theme() *theme.Theme { return r.opts.Theme }

// Render draws src at width and returns self-contained lines.
func (r *Renderer) Render(src string, width int) []string {
	return r.render(src, width, false)
}

func (r *Renderer) render(src string, width int, streaming bool) []string {
	r.streaming = streaming
	if width < 4 {
		width = 4
	}
	b := []byte(src)
	doc := r.md.Parser().Parse(text.NewReader(b))
	w := &walker{r: r, src: b, th: r.opts.Theme}
	lines := w.blocks(doc, width)
	return SelfContained(lines)
}

type walker struct {
	r   *Renderer
	src []byte
	th  *theme.Theme
}

// blocks renders the block children of n, with a blank line between
// blocks (none between the items of a tight list).
func (w *walker) blocks(n ast.Node, width int) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		lines := w.block(c, width)
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 && !tightItem(c) {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

func tightItem(n ast.Node) bool {
	if l, ok := n.Parent().(*ast.List); ok {
		return l.IsTight
	}
	if _, ok := n.(*ast.TextBlock); ok {
		return true
	}
	// A nested list directly inside a tight list item.
	if _, ok := n.(*ast.List); ok {
		if li, ok := n.Parent().(*ast.ListItem); ok {
			if l, ok := li.Parent().(*ast.List); ok {
				return l.IsTight
			}
		}
	}
	return false
}

func (w *walker) block(n ast.Node, width int) []string {
	th := w.th
	switch n := n.(type) {
	case *ast.Heading:
		s := w.inline(n)
		prefix := ""
		if n.Level > 2 {
			prefix = strings.Repeat("#", n.Level) + " "
		}
		s = th.Fg("mdHeading", theme.Bold(prefix+s))
		if n.Level == 1 {
			s = theme.Underline(s)
		}
		return wrap(s, width)
	case *ast.Paragraph, *ast.TextBlock:
		return wrap(w.inline(n), width)
	case *ast.ThematicBreak:
		return []string{th.Fg("mdHr", strings.Repeat("─", width))}
	case *ast.FencedCodeBlock:
		return w.code(n, string(n.Language(w.src)), width)
	case *ast.CodeBlock:
		return w.code(n, "", width)
	case *ast.Blockquote:
		inner := w.blocks(n, width-2)
		bar := th.Fg("mdQuoteBorder", "│ ")
		for i, l := range inner {
			inner[i] = bar + th.Fg("mdQuote", theme.Italic(l))
		}
		return inner
	case *ast.List:
		return w.list(n, width)
	case *ast.HTMLBlock:
		var lines []string
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			lines = append(lines, th.Fg("muted", strings.TrimRight(string(seg.Value(w.src)), "\n")))
		}
		return lines
	case *east.Table:
		return w.table(n, width)
	}
	// Unknown block: render its children.
	return w.blocks(n, width)
}

func (w *walker) code(n ast.Node, lang string, width int) []string {
	var sb strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		sb.Write(seg.Value(w.src))
	}
	th := w.th
	indent := w.r.opts.CodeBlockIndent
	out := []string{w.r.fence(lang)}
	if isMermaid(lang) && w.r.opts.Mermaid != "off" {
		lines, note := w.r.diagram(sb.String(), width-ansi.StringWidth(indent))
		if note == "" {
			for i, l := range lines {
				lines[i] = indent + l
			}
			return lines
		}
		out[0] += " " + th.Fg("muted", note)
	}
	body := Highlight(th, strings.ReplaceAll(sb.String(), "\t", "    "), lang)
	avail := max(4, width-ansi.StringWidth(indent))
	for _, l := range body {
		if ansi.StringWidth(l) > avail {
			for _, part := range strings.Split(ansi.Hardwrap(l, avail, true), "\n") {
				out = append(out, indent+part)
			}
			continue
		}
		out = append(out, indent+l)
	}
	return append(out, th.Fg("mdCodeBlockBorder", "```"))
}

func (w *walker) list(l *ast.List, width int) []string {
	var out []string
	num := l.Start
	if num == 0 {
		num = 1
	}
	// Ordered markers share one width so item text lines up.
	maxMarker := 2
	if l.IsOrdered() {
		maxMarker = len(strconv.Itoa(num+l.ChildCount()-1)) + 2
	}
	first := true
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		var marker string
		if l.IsOrdered() {
			marker = fmt.Sprintf("%d.", num)
			num++
		} else {
			marker = "-"
		}
		marker += strings.Repeat(" ", maxMarker-len(marker))
		body := w.blocks(item, width-maxMarker)
		if len(body) == 0 {
			body = []string{""}
		}
		if !first && !l.IsTight {
			out = append(out, "")
		}
		first = false
		pad := strings.Repeat(" ", maxMarker)
		for i, line := range body {
			if i == 0 {
				out = append(out, w.th.Fg("mdListBullet", marker)+line)
			} else {
				out = append(out, pad+line)
			}
		}
	}
	return out
}

func (w *walker) table(t *east.Table, width int) []string {
	var rows [][]string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			s := w.inline(c)
			if _, ok := r.(*east.TableHeader); ok {
				s = theme.Bold(s)
			}
			cells = append(cells, s)
		}
		rows = append(rows, cells)
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return nil
	}
	widths := make([]int, cols)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	// Shrink the widest columns until the table fits.
	avail := width - 3*(cols-1)
	for total(widths) > avail && avail > cols {
		wi := 0
		for i := range widths {
			if widths[i] > widths[wi] {
				wi = i
			}
		}
		widths[wi]--
	}
	border := w.th.Fg("borderMuted", " │ ")
	var out []string
	for ri, r := range rows {
		var b strings.Builder
		for i := 0; i < cols; i++ {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			c = ansi.Truncate(c, widths[i], "…")
			if i > 0 {
				b.WriteString(border)
			}
			b.WriteString(c)
			if i < cols-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(c)))
			}
		}
		out = append(out, b.String())
		if ri == 0 {
			var sep []string
			for _, wd := range widths {
				sep = append(sep, strings.Repeat("─", wd))
			}
			out = append(out, w.th.Fg("borderMuted", strings.Join(sep, "─┼─")))
		}
	}
	return out
}

func total(ws []int) int {
	t := 0
	for _, w := range ws {
		t += w
	}
	return t
}

// inline renders the inline children of n to one styled string; soft
// breaks become spaces and hard breaks newlines.
func (w *walker) inline(n ast.Node) string {
	var b strings.Builder
	w.inlineTo(&b, n)
	return b.String()
}

func (w *walker) inlineTo(b *strings.Builder, n ast.Node) {
	th := w.th
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(w.src))
			if c.HardLineBreak() {
				b.WriteByte('\n')
			} else if c.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			var sb strings.Builder
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if tx, ok := t.(*ast.Text); ok {
					sb.Write(tx.Segment.Value(w.src))
				}
			}
			b.WriteString(th.Fg("mdCode", sb.String()))
		case *ast.Emphasis:
			inner := w.inline(c)
			if c.Level >= 2 {
				b.WriteString(theme.Bold(inner))
			} else {
				b.WriteString(theme.Italic(inner))
			}
		case *east.Strikethrough:
			b.WriteString(theme.Strike(w.inline(c)))
		case *ast.Link:
			w.link(b, w.inline(c), string(c.Destination))
		case *ast.AutoLink:
			u := string(c.URL(w.src))
			w.link(b, string(c.Label(w.src)), u)
		case *ast.Image:
			b.WriteString(th.Fg("muted", "[image: "+w.inline(c)+"]"))
		case *east.TaskCheckBox:
			if c.IsChecked {
				b.WriteString(th.Fg("success", "[x] "))
			} else {
				b.WriteString(th.Fg("muted", "[ ] "))
			}
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.WriteString(th.Fg("muted", string(seg.Value(w.src))))
			}
		default:
			w.inlineTo(b, c)
		}
	}
}

func (w *walker) link(b *strings.Builder, label, url string) {
	th := w.th
	shown := th.Fg("mdLink", theme.Underline(label))
	if w.r.opts.Hyperlinks {
		shown = ansi.SetHyperlink(url) + shown + ansi.ResetHyperlink()
	}
	b.WriteString(shown)
	if url != "" && url != label && "mailto:"+label != url {
		b.WriteString(th.Fg("mdLinkUrl", " ("+url+")"))
	}
}

// wrap word-wraps a styled string to width, keeping explicit newlines.
func wrap(s string, width int) []string {
	if s == "" {
		return nil
	}
	return strings.Split(ansi.Wrap(s, width, ""), "\n")
}
