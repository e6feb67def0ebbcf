// Package lexers is the syntax-highlighting grammar set shared by the TUI's
// markdown renderer and the HTML export: chroma's XML lexer definitions for
// common languages plus relay's own Go grammar, loaded on first use.
package lexers

import (
	"embed"
	"io/fs"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// Lexer definitions are chroma's XML files (MIT, see lexers/LICENSE),
// embedded here rather than importing chroma/lexers, whose init registers
// every lexer and costs ~6 ms at every start. Ours load on first use.
//
//go:embed *.xml
var lexerFS embed.FS

var (
	registryOnce sync.Once
	registry     *chroma.LexerRegistry
)

func lexerRegistry() *chroma.LexerRegistry {
	registryOnce.Do(func() {
		registry = chroma.NewLexerRegistry()
		paths, _ := fs.Glob(lexerFS, "*.xml")
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

// For finds a lexer by fence language or file extension (without the
// dot); nil if unknown. The lexer is coalesced (adjacent tokens of one type
// merged).
func For(lang string) chroma.Lexer {
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
