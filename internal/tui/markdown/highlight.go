package markdown

import (
	"embed"
	"io/fs"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"

	"github.com/relay-agent/relay/internal/tui/theme"
)

// Lexer definitions are chroma's XML files (MIT, see lexers/LICENSE),
// embedded here rather than importing chroma/lexers, whose init registers
// every lexer and costs ~6 ms at every start. Ours load on first use.
//
//go:embed lexers/*.xml
var lexerFS embed.FS

var (
	registryOnce sync.Once
	registry     *chroma.LexerRegistry
)

func lexerRegistry() *chroma.LexerRegistry {
	registryOnce.Do(func() {
		registry = chroma.NewLexerRegistry()
		paths, _ := fs.Glob(lexerFS, "lexers/*.xml")
		for _, p := range paths {
			if l, err := chroma.NewXMLLexer(lexerFS, p); err == nil {
				registry.Register(l)
			}
		}
		registry.Register(goLexer())
	})
	return registry
}

// goLexer is our own Go grammar on chroma's core.
func goLexer() chroma.Lexer {
	return chroma.MustNewLexer(&chroma.Config{Name: "Go", Aliases: []string{"go", "golang"}, Filenames: []string{"*.go"}},
		func() chroma.Rules {
			return chroma.Rules{"root": {
				{Pattern: `\s+`, Type: chroma.TextWhitespace},
				{Pattern: `//[^\n]*`, Type: chroma.CommentSingle},
				{Pattern: `/\*(.|\n)*?\*/`, Type: chroma.CommentMultiline},
				{Pattern: `(break|case|chan|const|continue|default|defer|else|fallthrough|for|func|go|goto|if|import|interface|map|package|range|return|select|struct|switch|type|var)\b`, Type: chroma.Keyword},
				{Pattern: `(true|false|iota|nil)\b`, Type: chroma.KeywordConstant},
				{Pattern: `(any|bool|byte|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr)\b`, Type: chroma.KeywordType},
				{Pattern: `0[xX][0-9a-fA-F_]+|0b[01_]+|\d[\d_]*(\.\d*)?([eE][+-]?\d+)?i?`, Type: chroma.LiteralNumber},
				{Pattern: "`[^`]*`", Type: chroma.LiteralString},
				{Pattern: `"(\\\\|\\"|[^"\n])*"`, Type: chroma.LiteralString},
				{Pattern: `'(\\.|[^\\'])+'`, Type: chroma.LiteralStringChar},
				{Pattern: `[a-zA-Z_]\w*(?=\s*\()`, Type: chroma.NameFunction},
				{Pattern: `(<<=|>>=|<<|>>|<=|>=|&\^=|&\^|\+=|-=|\*=|/=|%=|&=|\|=|&&|\|\||<-|\+\+|--|==|!=|:=|\.\.\.|[+\-*/%&|^!<>=])`, Type: chroma.Operator},
				{Pattern: `[()\[\]{}.,;:~]`, Type: chroma.Punctuation},
				{Pattern: `[^\W\d]\w*`, Type: chroma.NameOther},
			}}
		})
}

// lexerFor finds a lexer by fence language or file name; nil if unknown.
func lexerFor(lang string) chroma.Lexer {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if lang == "" {
		return nil
	}
	switch lang {
	case "sh", "shell", "zsh", "console":
		lang = "bash"
	case "ts", "tsx":
		lang = "typescript"
	case "js", "jsx", "mjs":
		lang = "javascript"
	case "py":
		lang = "python"
	case "rs":
		lang = "rust"
	case "yml":
		lang = "yaml"
	case "dockerfile":
		lang = "docker"
	}
	reg := lexerRegistry()
	if l := reg.Get(lang); l != nil && l.Config().Name != "fallback" {
		return chroma.Coalesce(l)
	}
	if l := reg.Match("x." + lang); l != nil {
		return chroma.Coalesce(l)
	}
	return nil
}

// roleOf maps a chroma token type to a theme role.
func roleOf(t chroma.TokenType) string {
	switch {
	case t.InCategory(chroma.Comment):
		return "syntaxComment"
	case t == chroma.KeywordType || t == chroma.NameClass || t == chroma.NameBuiltin:
		return "syntaxType"
	case t.InCategory(chroma.Keyword):
		return "syntaxKeyword"
	case t == chroma.NameFunction || t == chroma.NameFunctionMagic:
		return "syntaxFunction"
	case t.InSubCategory(chroma.NameVariable) || t == chroma.NameAttribute || t == chroma.NameTag:
		return "syntaxVariable"
	case t.InSubCategory(chroma.LiteralString):
		return "syntaxString"
	case t.InSubCategory(chroma.LiteralNumber):
		return "syntaxNumber"
	case t.InCategory(chroma.Operator):
		return "syntaxOperator"
	case t.InCategory(chroma.Punctuation):
		return "syntaxPunctuation"
	case t == chroma.GenericInserted:
		return "toolDiffAdded"
	case t == chroma.GenericDeleted:
		return "toolDiffRemoved"
	}
	return ""
}

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
		role := roleOf(tok.Type)
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
