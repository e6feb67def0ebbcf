package harness

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// harnessPrefix starts every user-role message the harness writes itself
// ("[harness:evidence] ..."), so the core never mistakes its own output for
// the developer's words.
const harnessPrefix = "[harness"

// machineTag matches the tags relay's own user-role texts start with
// ("[harness:evidence]", "[laya:plan]", "[laya:learn]"...).
var machineTag = lazyRe(`^\[(?:harness|laya):[a-z-]+\]`)

// isHarnessText reports whether a user-role text was written by relay
// itself (the harness or the Laya router), never by the developer.
func isHarnessText(text string) bool {
	t := strings.TrimLeftFunc(text, unicode.IsSpace)
	return strings.HasPrefix(t, harnessPrefix) || machineTag().MatchString(t)
}

// Go's RE2 has no look-around and its \b is ASCII-only, so word edges that
// must hold next to accented letters ("não", "faça") are spelled out as a
// non-letter or the text edge. The edge characters are consumed, which is fine
// for the match/no-match questions these patterns answer.
const (
	wordStart = `(?:^|[^\p{L}\p{N}_])`
	wordEnd   = `(?:[^\p{L}\p{N}_]|$)`
)

// lazyRe compiles a pattern on first use: nothing in this package costs
// anything at process start.
func lazyRe(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// wordsPattern matches any of words (which may hold regex syntax) as whole
// words, case-insensitively.
func wordsPattern(words ...string) string {
	return `(?i)` + wordStart + `(?:` + strings.Join(words, "|") + `)` + wordEnd
}

// startPattern matches any of words at the start of the text.
func startPattern(words ...string) string {
	return `(?i)^(?:` + strings.Join(words, "|") + `)` + wordEnd
}

// phrasePattern matches a lead word, at most one more word, then a verb:
// "do not use", "não altere", "never directly push".
func phrasePattern(lead, verbs []string) string {
	return `(?i)` + wordStart + `(?:` + strings.Join(lead, "|") + `)\s+(?:[\p{L}']+\s+)?(?:` +
		strings.Join(verbs, "|") + `)` + wordEnd
}

// developerProse drops fenced code blocks and XML-like blocks (expanded
// skills, attached files) whose wording is not the developer's instruction.
func developerProse(text string) string {
	text = dropFences(text)
	return strings.TrimSpace(dropTagBlocks(text))
}

func dropFences(text string) string {
	if !strings.Contains(text, "```") {
		return text // no copy: Restore passes every developer message of a long session
	}
	var b strings.Builder
	for {
		i := strings.Index(text, "```")
		if i < 0 {
			break
		}
		j := strings.Index(text[i+3:], "```")
		if j < 0 {
			break
		}
		b.WriteString(text[:i])
		b.WriteByte(' ')
		text = text[i+3+j+3:]
	}
	b.WriteString(text)
	return b.String()
}

var tagOpenRe = lazyRe(`<([A-Za-z][\w-]*)(?:[\s/][^>]*)?>`)

// dropTagBlocks replaces each <name ...>...</name> block (the first closing
// tag of the same name ends it) with a space.
func dropTagBlocks(text string) string {
	var b strings.Builder
	for {
		loc := tagOpenRe().FindStringSubmatchIndex(text)
		if loc == nil {
			if b.Len() == 0 {
				return text // nothing dropped: no copy
			}
			break
		}
		name := text[loc[2]:loc[3]]
		end := strings.Index(text[loc[1]:], "</"+name+">")
		if end < 0 {
			// An unclosed tag is prose ("use <T> here"); keep it and go on.
			b.WriteString(text[:loc[1]])
			text = text[loc[1]:]
			continue
		}
		b.WriteString(text[:loc[0]])
		b.WriteByte(' ')
		text = text[loc[1]+end+len(name)+3:]
	}
	b.WriteString(text)
	return b.String()
}

// clip collapses whitespace and truncates to max characters with "...".
func clip(text string, max int) string {
	single := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(single) <= max {
		return single
	}
	r := []rune(single)
	if max < 3 {
		return string(r[:max])
	}
	return string(r[:max-3]) + "..."
}

// chars counts characters the way the size thresholds mean them.
func chars(s string) int { return utf8.RuneCountInString(s) }
