package export

import (
	"bytes"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/alecthomas/chroma/v2"
	chtml "github.com/alecthomas/chroma/v2/formatters/html"

	"github.com/relay-agent/relay/internal/tui/markdown/lexers"
)

// Highlighting limits. chroma's regexp lexers run at a few hundred KB per
// second, so an export highlights at most maxHighlightBlock per block and
// highlightBudget in all; the rest is shown as plain (escaped) text. This
// keeps a 50 MB export within its time budget whatever the session holds.
const (
	maxHighlightBlock = 48 << 10
	highlightBudget   = 1 << 20
)

// highlighter renders code with chroma's HTML formatter using CSS classes;
// the page's stylesheet maps those classes to the theme's syntax colours
// (syntaxCSS).
type highlighter struct {
	budget atomic.Int64
	fmt    *chtml.Formatter
}

var emptyStyle = chroma.MustNewStyle("relay", chroma.StyleEntries{})

func newHighlighter() *highlighter {
	h := &highlighter{fmt: chtml.New(chtml.WithClasses(true), chtml.WithAllClasses(true), chtml.TabWidth(4))}
	h.budget.Store(highlightBudget)
	return h
}

// langOf is the lexer key for a file path: its extension, or its base name
// for extension-less files (Makefile, Dockerfile).
func langOf(path string) string {
	if ext := filepath.Ext(path); ext != "" {
		return ext[1:]
	}
	return strings.ToLower(filepath.Base(path))
}

// block writes code as <pre class="chroma ...">, highlighted when the
// language is known and the budget allows.
func (h *highlighter) block(w byteStringWriter, code, lang, class string) {
	var lex chroma.Lexer
	if lang != "" && len(code) <= maxHighlightBlock && h.budget.Load() > 0 {
		lex = lexers.For(lang)
	}
	if lex != nil {
		if h.budget.Add(-int64(len(code))) >= -int64(len(code)) {
			if it, err := lex.Tokenise(nil, code); err == nil {
				var b bytes.Buffer
				if err := h.fmt.Format(&b, emptyStyle, it); err == nil {
					out := b.String()
					if class != "" {
						out = strings.Replace(out, `class="chroma"`, `class="chroma `+class+`"`, 1)
					}
					w.WriteString(out)
					return
				}
			}
		}
	}
	w.WriteString(`<pre class="chroma plain`)
	if class != "" {
		w.WriteString(" " + class)
	}
	w.WriteString(`"><code>`)
	w.WriteString(escapeText(code))
	w.WriteString("</code></pre>")
}

// syntaxCSS is the stylesheet for chroma's classes: one rule per theme role
// listing every class that takes its colour.
var syntaxCSS = sync.OnceValue(func() string {
	byRole := map[string][]string{}
	for tt, class := range chroma.StandardTypes {
		if class == "" {
			continue
		}
		if role := lexers.Role(tt); role != "" {
			byRole[role] = append(byRole[role], ".chroma ."+class)
		}
	}
	roles := make([]string, 0, len(byRole))
	for r := range byRole {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	var b strings.Builder
	for _, r := range roles {
		sels := byRole[r]
		sort.Strings(sels)
		b.WriteString(strings.Join(sels, ","))
		b.WriteString("{color:var(--" + r + ")}\n")
	}
	return b.String()
})
