package lexers

import "github.com/alecthomas/chroma/v2"

// Role maps a chroma token type to the theme role that colours it, "" for
// plain text. The TUI and the HTML export colour code the same way.
func Role(t chroma.TokenType) string {
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
