package builtin

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"

	re2 "github.com/wasilibs/go-re2"
)

// lineMatcher finds matching lines in a file buffer. Matches never span
// lines, as in ripgrep's default mode.
type lineMatcher struct {
	literal  []byte         // literal search (case-sensitive)
	re       *re2.Regexp    // RE2 for whole-buffer scans and verification
	std      *regexp.Regexp // stdlib, for text that is not valid UTF-8
	required []byte         // a literal every match contains (prefilter), if any
}

func newLineMatcher(pattern string, literal, ignoreCase bool) (*lineMatcher, error) {
	if literal && !ignoreCase {
		return &lineMatcher{literal: []byte(pattern)}, nil
	}
	expr := pattern
	if literal {
		expr = regexp.QuoteMeta(pattern)
	}
	// ^ and $ anchor at line boundaries, as in grep and ripgrep
	if ignoreCase {
		expr = "(?mi)" + expr
	} else {
		expr = "(?m)" + expr
	}
	std, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	re, err := re2.Compile(expr)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{re: re, std: std}
	if parsed, err := syntax.Parse(expr, syntax.Perl); err == nil {
		if lit := requiredLiteral(parsed.Simplify()); len(lit) >= 2 {
			m.required = []byte(lit)
		}
	}
	return m, nil
}

// requiredLiteral returns the longest case-sensitive literal that every
// match of re must contain ("" when there is none).
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			for _, r := range re.Rune {
				if r < utf8.RuneSelf && (r|0x20 >= 'a' && r|0x20 <= 'z') || r >= utf8.RuneSelf {
					return ""
				}
			}
		}
		return string(re.Rune)
	case syntax.OpCapture:
		return requiredLiteral(re.Sub[0])
	case syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best, run := "", ""
		for _, s := range re.Sub {
			if s.Op == syntax.OpLiteral && (s.Flags&syntax.FoldCase == 0 || requiredLiteral(s) != "") {
				run += string(s.Rune)
				if len(run) > len(best) {
					best = run
				}
				continue
			}
			run = ""
			if l := requiredLiteral(s); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return ""
}

func lineBounds(buf []byte, i int) (start, end int) {
	start = bytes.LastIndexByte(buf[:i], '\n') + 1
	end = bytes.IndexByte(buf[i:], '\n')
	if end < 0 {
		end = len(buf)
	} else {
		end += i
	}
	return start, end
}

func (m *lineMatcher) lineMatches(line []byte) bool {
	if !utf8.Valid(line) {
		return m.std.Match(line)
	}
	return m.re.Match(line)
}

// next returns the bounds of the first matching line starting at or after
// pos, or -1. valid tells whether buf is valid UTF-8 (RE2 stops at invalid
// bytes, so such files use the stdlib engine).
func (m *lineMatcher) next(buf []byte, pos int, valid bool) (start, end int) {
	for pos < len(buf) {
		switch {
		case m.literal != nil:
			i := bytes.Index(buf[pos:], m.literal)
			if i < 0 {
				return -1, -1
			}
			return lineBounds(buf, pos+i)
		case m.required != nil:
			i := bytes.Index(buf[pos:], m.required)
			if i < 0 {
				return -1, -1
			}
			s, e := lineBounds(buf, pos+i)
			if m.lineMatches(buf[s:e]) {
				return s, e
			}
			pos = e + 1
		default:
			var loc []int
			if valid {
				loc = m.re.FindIndex(buf[pos:])
			} else {
				loc = m.std.FindIndex(buf[pos:])
			}
			if loc == nil || (pos+loc[0] == len(buf) && buf[len(buf)-1] == '\n') {
				return -1, -1 // no match, or only the empty position after the final newline
			}
			s, e := lineBounds(buf, pos+loc[0])
			if pos+loc[1] <= e || m.lineMatches(buf[s:e]) {
				return s, e
			}
			pos = e + 1
		}
	}
	return -1, -1
}
