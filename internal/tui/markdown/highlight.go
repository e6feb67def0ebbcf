package markdown

import (
	"strings"

	"github.com/alecthomas/chroma/v2"

	"github.com/relay-agent/relay/internal/tui/markdown/lexers"
	"github.com/relay-agent/relay/internal/tui/theme"
)

// lexerFor finds a lexer by fence language or file name; nil if unknown.
func lexerFor(lang string) chroma.Lexer { return lexers.For(lang) }

// maxHighlight bounds the code highlighted at once: chroma needs roughly
// 3 ms per KB, and a finished block is drawn on the UI loop.
const maxHighlight = 32 << 10

// Highlight colours code with the theme's syntax roles and returns its
// lines. Unknown languages, and blocks over maxHighlight, use the
// mdCodeBlock colour.
func Highlight(th *theme.Theme, code, lang string) []string {
	code = strings.TrimSuffix(code, "\n")
	var lex chroma.Lexer
	if len(code) <= maxHighlight {
		lex = lexerFor(lang)
	}
	if lex == nil {
		lines := strings.Split(code, "\n")
		for i, l := range lines {
			lines[i] = th.Fg("mdCodeBlock", l)
		}
		return lines
	}
	it, err := lex.Tokenise(nil, code)
	if err != nil {
		return Highlight(th, code, "")
	}
	var lines []string
	var cur strings.Builder
	for tok := it(); tok != chroma.EOF; tok = it() {
		role := lexers.Role(tok.Type)
		parts := strings.Split(tok.Value, "\n")
		for i, p := range parts {
			if i > 0 {
				lines = append(lines, cur.String())
				cur.Reset()
			}
			if p == "" {
				continue
			}
			if role == "" {
				cur.WriteString(th.Fg("text", p))
			} else {
				cur.WriteString(th.Fg(role, p))
			}
		}
	}
	lines = append(lines, cur.String())
	return lines
}
