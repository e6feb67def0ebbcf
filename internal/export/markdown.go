package export

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	gmrenderer "github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// newMarkdown is goldmark with GFM whose output never carries markup from
// the content: raw HTML (inline and blocks) is shown as escaped text, as the
// TUI shows it; links keep only http(s)/mailto/fragment targets; images load
// nothing from the network (only inline data:image/png|gif|jpeg|webp is drawn,
// anything else becomes a link-like text); fenced code is highlighted with
// the page's chroma classes.
func newMarkdown(hl *highlighter) goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList),
		goldmark.WithRendererOptions(
			ghtml.WithHardWraps(),
			gmrenderer.WithNodeRenderers(util.Prioritized(&safeNodes{hl: hl}, 100)),
		),
	)
}

type safeNodes struct{ hl *highlighter }

func (s *safeNodes) RegisterFuncs(reg gmrenderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, s.rawHTML)
	reg.Register(ast.KindHTMLBlock, s.htmlBlock)
	reg.Register(ast.KindLink, s.link)
	reg.Register(ast.KindAutoLink, s.autoLink)
	reg.Register(ast.KindImage, s.image)
	reg.Register(ast.KindFencedCodeBlock, s.fenced)
}

func (s *safeNodes) rawHTML(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		n := node.(*ast.RawHTML)
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			writeEscaped(w, seg.Value(src))
		}
	}
	return ast.WalkSkipChildren, nil
}

func (s *safeNodes) htmlBlock(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.HTMLBlock)
	if entering {
		w.WriteString(`<p class="raw-html">`)
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			writeEscaped(w, seg.Value(src))
		}
		if n.HasClosure() {
			writeEscaped(w, n.ClosureLine.Value(src))
		}
		w.WriteString("</p>\n")
	}
	return ast.WalkSkipChildren, nil
}

// safeHref reports whether a link target may become an href: web and mail
// links and in-page fragments. Everything else (javascript:, data:, file:,
// vbscript:, relative paths that would resolve against a viewer's origin)
// is rendered as text.
func safeHref(dest string) bool {
	d := strings.ToLower(strings.TrimSpace(dest))
	return strings.HasPrefix(d, "https://") || strings.HasPrefix(d, "http://") ||
		strings.HasPrefix(d, "mailto:") || (strings.HasPrefix(d, "#") && len(d) > 1)
}

func writeHref(w util.BufWriter, dest []byte) {
	w.WriteString(`<a href="`)
	w.Write(util.EscapeHTML(util.URLEscape(dest, true)))
	w.WriteString(`" rel="noopener noreferrer nofollow" target="_blank">`)
}

func (s *safeNodes) link(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	ok := safeHref(string(n.Destination))
	if entering {
		if ok {
			writeHref(w, n.Destination)
		} else {
			w.WriteString(`<span class="bad-link" title="`)
			writeEscaped(w, n.Destination)
			w.WriteString(`">`)
		}
	} else if ok {
		w.WriteString("</a>")
	} else {
		w.WriteString("</span>")
	}
	return ast.WalkContinue, nil
}

func (s *safeNodes) autoLink(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	url := n.URL(src)
	label := n.Label(src)
	if n.AutoLinkType == ast.AutoLinkEmail && !bytes.HasPrefix(bytes.ToLower(url), []byte("mailto:")) {
		url = append([]byte("mailto:"), url...)
	}
	if safeHref(string(url)) {
		writeHref(w, url)
		writeEscaped(w, label)
		w.WriteString("</a>")
	} else {
		writeEscaped(w, label)
	}
	return ast.WalkSkipChildren, nil
}

// inlineImage reports whether a markdown image may be drawn: only data URLs
// of raster types (nothing is fetched, and SVG, which can carry script, is
// refused).
func inlineImage(dest string) bool {
	d := strings.ToLower(strings.TrimSpace(dest))
	for _, t := range []string{"data:image/png;", "data:image/gif;", "data:image/jpeg;", "data:image/webp;"} {
		if strings.HasPrefix(d, t) {
			return true
		}
	}
	return false
}

func (s *safeNodes) image(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Image)
	var alt bytes.Buffer
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			alt.Write(t.Value(src))
		}
	}
	if inlineImage(string(n.Destination)) {
		w.WriteString(`<img class="md-image" src="`)
		writeEscaped(w, bytes.TrimSpace(n.Destination))
		w.WriteString(`" alt="`)
		writeEscaped(w, alt.Bytes())
		w.WriteString(`">`)
		return ast.WalkSkipChildren, nil
	}
	// Remote or unknown images are not loaded: show what they were.
	w.WriteString(`<span class="md-image-ref">[image: `)
	writeEscaped(w, alt.Bytes())
	w.WriteString("] ")
	if safeHref(string(n.Destination)) {
		writeHref(w, n.Destination)
		writeEscaped(w, n.Destination)
		w.WriteString("</a>")
	} else {
		writeEscaped(w, n.Destination)
	}
	w.WriteString("</span>")
	return ast.WalkSkipChildren, nil
}

func (s *safeNodes) fenced(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.FencedCodeBlock)
	var code bytes.Buffer
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		code.Write(seg.Value(src))
	}
	lang := ""
	if l := n.Language(src); l != nil {
		lang = string(l)
	}
	s.hl.block(w, code.String(), lang, "")
	return ast.WalkSkipChildren, nil
}

type byteStringWriter interface {
	Write([]byte) (int, error)
	WriteString(string) (int, error)
}

// writeEscaped writes b as HTML text; CR and NUL, which the page's embedding
// must not carry (see sanitizeFragment), are written as references.
func writeEscaped(w byteStringWriter, b []byte) {
	w.WriteString(escapeText(string(b)))
}

var textEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;",
	"\r", "&#13;", "\x00", "\uFFFD", "\x01", "\uFFFD",
)

// escapeText is html.EscapeString that also keeps the embedding's reserved
// characters out.
func escapeText(s string) string { return textEscaper.Replace(s) }
