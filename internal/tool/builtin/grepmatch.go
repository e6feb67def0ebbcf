package builtin

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	re2 "github.com/wasilibs/go-re2"
)

// lineMatcher finds matching lines in a file buffer. Matches never span
// lines, as in ripgrep's default mode.
type lineMatcher struct {
	literal  []byte         // literal search (case-sensitive)
	finds    []rareFinder   // the literal, or the required literals (any one is in every match)
	re       *re2.Regexp    // RE2 for whole-buffer scans and verification
	std      *regexp.Regexp // stdlib, for text that is not valid UTF-8
	required bool           // finds is a prefilter for the regex
}

func newLineMatcher(pattern string, literal, ignoreCase bool) (*lineMatcher, error) {
	if literal && !ignoreCase {
		return &lineMatcher{literal: []byte(pattern), finds: []rareFinder{newRareFinder([]byte(pattern))}}, nil
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
	re, err := compileRE2(expr)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{re: re, std: std}
	if parsed, err := syntax.Parse(expr, syntax.Perl); err == nil {
		if lits := requiredLiterals(parsed.Simplify()); lits != nil {
			m.required = true
			for _, l := range lits {
				m.finds = append(m.finds, newRareFinder([]byte(l)))
			}
		}
	}
	return m, nil
}

// usefulPrefilter reports whether searching for lit first pays off: its
// rarest byte must not be whitespace, and a single byte must be rare.
func usefulPrefilter(lit string) bool {
	if lit == "" {
		return false
	}
	r := newRareFinder([]byte(lit)).b
	rank := byteRank(r)
	return rank < 255 && (len(lit) >= 2 || rank < 150)
}

// maxPrefilterLiterals bounds the literal set of an alternation.
const maxPrefilterLiterals = 8

// requiredLiterals returns a set of case-sensitive literals such that every
// match of re contains at least one of them, each worth searching for
// (usefulPrefilter); nil when there is no such set.
func requiredLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			for _, r := range re.Rune {
				if unicode.SimpleFold(r) != r {
					return nil
				}
			}
		}
		if l := string(re.Rune); usefulPrefilter(l) {
			return []string{l}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			ls := requiredLiterals(sub)
			if ls == nil || len(out)+len(ls) > maxPrefilterLiterals {
				return nil
			}
			out = append(out, ls...)
		}
		return out
	case syntax.OpConcat:
		var best []string
		consider := func(ls []string) {
			if ls != nil && (best == nil || setRarity(ls) < setRarity(best)) {
				best = ls
			}
		}
		run := ""
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				if ls := requiredLiterals(sub); ls != nil || sub.Flags&syntax.FoldCase == 0 {
					run += string(sub.Rune)
					if usefulPrefilter(run) {
						consider([]string{run})
					}
					continue
				}
			}
			run = ""
			consider(requiredLiterals(sub))
		}
		return best
	}
	return nil
}

// setRarity is the rarity of a literal set's most common member, plus a
// cost per extra literal to search for.
func setRarity(ls []string) int {
	worst := 0
	for _, l := range ls {
		worst = max(worst, newRareFinder([]byte(l)).rarity())
	}
	return worst + 512*(len(ls)-1)
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
	if m.re == nil || !utf8.Valid(line) || re2Broken.Load() {
		return m.std.Match(line)
	}
	matched, ok := guardRE2(func() bool { return m.re.Match(line) })
	if !ok {
		return m.std.Match(line)
	}
	return matched
}

// RE2 runs as WebAssembly whose memory is reserved up front (4 GiB of
// address space); under a limit such as `ulimit -v` that reservation, or a
// later growth, fails with a panic inside go-re2, and its state is not
// usable afterwards (a later call can block forever on a lock the failed
// one held). So every call is guarded, and after the first failure this
// process uses Go's regexp engine only.
var (
	re2Broken  atomic.Bool
	re2Failure atomic.Value // string: why RE2 is not used
	re2Noticed atomic.Bool  // the fallback notice was given
)

// guardRE2 runs f, turning a panic inside RE2 into ok=false and switching
// RE2 off for the process.
func guardRE2(f func() bool) (result, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			re2Failure.CompareAndSwap(nil, fmt.Sprint(p))
			re2Broken.Store(true)
			result, ok = false, false
		}
	}()
	return f(), true
}

// compileRE2 compiles expr with RE2; a nil regexp and nil error mean RE2 is
// unavailable and the caller uses Go's regexp.
func compileRE2(expr string) (*re2.Regexp, error) {
	if re2Broken.Load() {
		return nil, nil
	}
	var re *re2.Regexp
	var err error
	if _, ok := guardRE2(func() bool { re, err = re2.Compile(expr); return true }); !ok {
		return nil, nil
	}
	return re, err
}

// engineNotice is the one-time notice that RE2 could not be used; "" after
// the first call that returned it, and while RE2 works.
func engineNotice() string {
	if !re2Broken.Load() || !re2Noticed.CompareAndSwap(false, true) {
		return ""
	}
	why, _ := re2Failure.Load().(string)
	return "The RE2 regex engine could not start (" + why + "); searches use Go's regexp engine, which can be slower on large files"
}

// regexWindow bounds how much of a file one RE2 call copies in, so a huge
// file with many matches does not cost a copy of the rest per match.
const regexWindow = 8 << 20

// scan calls emit with the bounds of each matching line that starts at or
// after from (a line start) in order until emit
// returns false. Literal patterns use bytes.Index. Regexes first look for
// their required literal, if any (a file without it has no match), then let
// RE2 find all matches of a window in one call; a match that spans lines is
// kept only if its line matches on its own. Text that is not valid UTF-8
// (where RE2 stops) uses the stdlib engine.
func (m *lineMatcher) scan(buf []byte, from int, emit func(s, e int) bool) {
	pos := from
	if len(m.finds) > 0 {
		// Candidate lines hold a literal; a regex verifies each with the
		// stdlib engine, which beats a whole-buffer RE2 pass while candidates
		// are sparse. When they are dense, RE2 takes the rest of the file.
		next := make([]int, len(m.finds)) // next occurrence of each literal at or after its last search
		for i := range next {
			next[i] = -2 // not searched yet
		}
		candidates := 0
		for pos < len(buf) {
			at := -1
			for k, f := range m.finds {
				if next[k] == -1 {
					continue // no more occurrences
				}
				if next[k] < pos {
					if i := f.index(buf[pos:]); i >= 0 {
						next[k] = pos + i
					} else {
						next[k] = -1
						continue
					}
				}
				if at < 0 || next[k] < at {
					at = next[k]
				}
			}
			if at < 0 {
				return
			}
			s, e := lineBounds(buf, at)
			if m.required {
				candidates++
				if candidates > 16 && candidates*256 > e {
					pos = s
					break
				}
			}
			if (!m.required || m.std.Match(buf[s:e])) && !emit(s, e) {
				return
			}
			pos = e + 1
		}
		if pos >= len(buf) {
			return
		}
	}
	m.scanRE2(buf, pos, emit)
}

// scanRE2 lets RE2 find all matches of a window at a time.
func (m *lineMatcher) scanRE2(buf []byte, pos int, emit func(s, e int) bool) {
	for pos < len(buf) {
		end := len(buf)
		if end-pos > regexWindow {
			end = pos + regexWindow
			if nl := bytes.IndexByte(buf[end:], '\n'); nl >= 0 {
				end += nl + 1
			} else {
				end = len(buf)
			}
		}
		win := buf[pos:end]
		var locs [][]int
		ok := false
		if m.re != nil && !re2Broken.Load() && utf8.Valid(win) {
			_, ok = guardRE2(func() bool { locs = m.re.FindAllIndex(win, -1); return true })
		}
		if !ok {
			locs = m.std.FindAllIndex(win, -1)
		}
		lastLine, next := -1, end
		for _, loc := range locs {
			at := pos + loc[0]
			if at == len(buf) && buf[len(buf)-1] == '\n' {
				break // the empty position after the final newline is not a line
			}
			s, e := lineBounds(buf, at)
			if s <= lastLine {
				continue // another match on a line already reported
			}
			spans := pos+loc[1] > e
			if !spans || m.lineMatches(buf[s:e]) {
				lastLine = s
				if !emit(s, e) {
					return
				}
			}
			if spans {
				// the match consumed text of later lines: rescan from the next line
				next = e + 1
				break
			}
		}
		pos = next
	}
}

// windowMatches reports whether a window of a line too long to hold holds a
// match. first and last say whether the window starts and ends the line; a
// match touching a window edge that is not a line edge is not taken (a ^ or
// $ would match there), the overlap of the windows finds it instead.
func (m *lineMatcher) windowMatches(win []byte, first, last bool) bool {
	if m.re == nil && m.std == nil {
		return m.finds[0].index(win) >= 0
	}
	if m.required {
		found := false
		for _, f := range m.finds {
			if f.index(win) >= 0 {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	// a match may be refused at the start and at the end: three suffice
	var locs [][]int
	ok := false
	if m.re != nil && !re2Broken.Load() && utf8.Valid(win) {
		_, ok = guardRE2(func() bool { locs = m.re.FindAllIndex(win, 3); return true })
	}
	if !ok {
		locs = m.std.FindAllIndex(win, 3)
	}
	for _, loc := range locs {
		if (first || loc[0] > 0) && (last || loc[1] < len(win)) {
			return true
		}
	}
	return false
}
