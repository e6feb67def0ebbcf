package builtin

import (
	"fmt"
	"hash/maphash"
	"sort"
	"strings"
	"unicode"
)

// textEdit is one requested replacement.
type textEdit struct {
	Old, New string
}

func normalizeToLF(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// detectLineEnding returns "\r\n" when the first line break is CRLF.
func detectLineEnding(s string) string {
	lf := strings.IndexByte(s, '\n')
	if lf > 0 && s[lf-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

var fuzzyReplacer = strings.NewReplacer(
	"\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'",
	"\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u201f", `"`,
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u00a0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ",
	"\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200a", " ", "\u202f", " ", "\u205f", " ", "\u3000", " ",
)

func isTrailingSpace(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' }

// normalizeFuzzy is the tolerant form edits fall back to: trailing
// whitespace stripped from every line, typographic quotes, dashes and
// special spaces mapped to ASCII. Line breaks are unchanged, so line i of
// the result is line i of the input.
func normalizeFuzzy(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, isTrailingSpace)
	}
	return fuzzyReplacer.Replace(strings.Join(lines, "\n"))
}

type matched struct {
	index, length int
	editIndex     int
	newText       string
}

// findText looks for old in content exactly, then in the tolerant form;
// index and length are in the space of the content it returns.
func findText(content, old string) (idx, length int, fuzzy bool) {
	if i := strings.Index(content, old); i >= 0 {
		return i, len(old), false
	}
	fc, fo := normalizeFuzzy(content), normalizeFuzzy(old)
	if i := strings.Index(fc, fo); i >= 0 {
		return i, len(fo), true
	}
	return -1, 0, false
}

// applyEdits applies every edit, each matched against the original
// LF-normalized content, and returns the new content. When any edit needs
// the tolerant form, matching runs in that form and only the touched lines
// are rewritten from it: every other line keeps its original bytes.
func applyEdits(content string, edits []textEdit, path string) (string, error) {
	n := len(edits)
	norm := make([]textEdit, n)
	for i, e := range edits {
		norm[i] = textEdit{normalizeToLF(e.Old), normalizeToLF(e.New)}
		if norm[i].Old == "" {
			if n == 1 {
				return "", fmt.Errorf("oldText must not be empty in %s.", path)
			}
			return "", fmt.Errorf("edits[%d].oldText must not be empty in %s.", i, path)
		}
	}
	useFuzzy := false
	for _, e := range norm {
		if _, _, f := findText(content, e.Old); f {
			useFuzzy = true
			break
		}
	}
	base := content
	if useFuzzy {
		base = normalizeFuzzy(content)
	}
	fuzzyBase := normalizeFuzzy(base)
	ms := make([]matched, 0, n)
	for i, e := range norm {
		idx, length, _ := findText(base, e.Old)
		if idx < 0 {
			return "", notFoundError(path, i, n, content, e.Old)
		}
		if c := strings.Count(fuzzyBase, normalizeFuzzy(e.Old)); c > 1 {
			if n == 1 {
				return "", fmt.Errorf("Found %d occurrences of the text in %s. The text must be unique. Please provide more context to make it unique.", c, path)
			}
			return "", fmt.Errorf("Found %d occurrences of edits[%d] in %s. Each oldText must be unique. Please provide more context to make it unique.", c, i, path)
		}
		ms = append(ms, matched{idx, length, i, e.New})
	}
	sort.Slice(ms, func(a, b int) bool { return ms[a].index < ms[b].index })
	for i := 1; i < len(ms); i++ {
		p, c := ms[i-1], ms[i]
		if p.index+p.length > c.index {
			return "", fmt.Errorf("edits[%d] and edits[%d] overlap in %s. Merge them into one edit or target disjoint regions.", p.editIndex, c.editIndex, path)
		}
	}
	var out string
	if useFuzzy {
		out = replacePreservingLines(content, base, ms)
	} else {
		out = replaceAll(base, ms, 0)
	}
	if out == content {
		if n == 1 {
			return "", fmt.Errorf("No changes made to %s. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.", path)
		}
		return "", fmt.Errorf("No changes made to %s. The replacements produced identical content.", path)
	}
	return out, nil
}

// replaceAll applies sorted, disjoint replacements whose indexes are
// offset by off relative to s.
func replaceAll(s string, ms []matched, off int) string {
	var b strings.Builder
	b.Grow(len(s))
	pos := 0
	for _, m := range ms {
		b.WriteString(s[pos : m.index-off])
		b.WriteString(m.newText)
		pos = m.index - off + m.length
	}
	b.WriteString(s[pos:])
	return b.String()
}

// lineSpans returns the [start, end) byte spans of the lines of s, each
// including its "\n"; a final line without "\n" is included when non-empty.
func lineSpans(s string) [][2]int {
	var spans [][2]int
	for pos := 0; pos < len(s); {
		i := strings.IndexByte(s[pos:], '\n')
		end := len(s)
		if i >= 0 {
			end = pos + i + 1
		}
		spans = append(spans, [2]int{pos, end})
		pos = end
	}
	return spans
}

// replacePreservingLines applies replacements matched in base (a tolerant
// form of original with the same lines) so that lines no replacement
// touches are copied from original unchanged.
func replacePreservingLines(original, base string, ms []matched) string {
	orig, bl := lineSpans(original), lineSpans(base)
	if len(orig) != len(bl) || len(bl) == 0 {
		return replaceAll(base, ms, 0)
	}
	lineOf := func(off int) int {
		return sort.Search(len(bl), func(i int) bool { return bl[i][1] > off })
	}
	type group struct {
		start, end int // line range [start, end)
		ms         []matched
	}
	var groups []group
	for _, m := range ms {
		s := lineOf(m.index)
		e := s
		if m.length > 0 {
			e = lineOf(m.index + m.length - 1)
		}
		e = min(e, len(bl)-1) + 1
		if len(groups) > 0 && s < groups[len(groups)-1].end {
			g := &groups[len(groups)-1]
			g.end = max(g.end, e)
			g.ms = append(g.ms, m)
			continue
		}
		groups = append(groups, group{s, e, []matched{m}})
	}
	var b strings.Builder
	line := 0
	for _, g := range groups {
		if g.start > line {
			b.WriteString(original[orig[line][0]:orig[g.start-1][1]])
		}
		from, to := bl[g.start][0], bl[g.end-1][1]
		b.WriteString(replaceAll(base[from:to], g.ms, from))
		line = g.end
	}
	if line < len(orig) {
		b.WriteString(original[orig[line][0]:])
	}
	return b.String()
}

// notFoundError says that edit i was not found, where the closest region
// of the file is and how it differs from oldText.
func notFoundError(path string, i, n int, content, old string) error {
	header := fmt.Sprintf("Could not find the exact text in %s.", path)
	if n > 1 {
		header = fmt.Sprintf("Could not find edits[%d] in %s.", i, path)
	}
	return fmt.Errorf("%s The old text must match exactly including all whitespace and newlines.\n%s", header, closestMatch(content, old))
}

var seed = maphash.MakeSeed()

// squash drops all whitespace and normalizes quotes and dashes, for
// comparing lines that differ only in layout.
func squash(s string) string {
	s = fuzzyReplacer.Replace(s)
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// closestMatch finds the window of the file most like old: the window with
// the most lines equal to old's lines when whitespace and quotes are
// ignored, else the first line containing a prefix of old's first line.
func closestMatch(content, old string) string {
	if content == "" {
		return "File is empty."
	}
	lines := strings.Split(content, "\n")
	oldLines := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	k := len(oldLines)
	fileH := make([]uint64, len(lines))
	for i, l := range lines {
		fileH[i] = maphash.String(seed, squash(l))
	}
	oldH := make([]uint64, k)
	blank := maphash.String(seed, "")
	for i, l := range oldLines {
		oldH[i] = maphash.String(seed, squash(l))
	}
	best, bestScore := -1, 0
	for s := 0; s < len(lines) && len(lines)*k <= 50_000_000; s++ {
		score := 0
		for i := 0; i < k && s+i < len(lines); i++ {
			if fileH[s+i] == oldH[i] && oldH[i] != blank {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = s, score
		}
	}
	if best < 0 {
		first := strings.TrimSpace(oldLines[0])
		for l := min(len(first), 60); l >= 10 && best < 0; l -= 10 {
			needle := strings.TrimSpace(first[:l])
			if needle == "" {
				continue
			}
			for idx, line := range lines {
				if strings.Contains(line, needle) {
					best = idx
					break
				}
			}
		}
	}
	if best < 0 {
		var b strings.Builder
		b.WriteString("File starts with:")
		for i := 0; i < min(5, len(lines)); i++ {
			fmt.Fprintf(&b, "\n  %d: %s", i+1, lines[i])
		}
		return b.String()
	}
	start := max(0, best-2)
	end := min(len(lines), best+k+2)
	var b strings.Builder
	fmt.Fprintf(&b, "Closest match is around line %d:", best+1)
	for i := start; i < end; i++ {
		fmt.Fprintf(&b, "\n  %d: %s", i+1, lines[i])
	}
	if why := describeDifference(lines, best, oldLines); why != "" {
		b.WriteString("\n")
		b.WriteString(why)
	}
	return b.String()
}

// describeDifference explains the first line where old differs from the
// file region starting at line start.
func describeDifference(lines []string, start int, oldLines []string) string {
	for i, ol := range oldLines {
		at := start + i
		if at >= len(lines) {
			return fmt.Sprintf("oldText has %d lines but the file ends after line %d.", len(oldLines), len(lines))
		}
		fl := lines[at]
		if fl == ol {
			continue
		}
		var why string
		switch {
		case strings.TrimRightFunc(fl, isTrailingSpace) == strings.TrimRightFunc(ol, isTrailingSpace):
			why = "trailing whitespace differs"
		case strings.TrimLeftFunc(fl, unicode.IsSpace) == strings.TrimLeftFunc(ol, unicode.IsSpace):
			why = "indentation differs (file: " + describeIndent(fl) + ", oldText: " + describeIndent(ol) + ")"
		case squash(fl) == squash(ol) && fuzzyReplacer.Replace(fl) == fuzzyReplacer.Replace(ol):
			why = "quote, dash or space characters differ"
		case squash(fl) == squash(ol):
			why = "whitespace differs"
		default:
			why = "the text differs"
		}
		return fmt.Sprintf("Line %d differs: %s.\n  file:    %q\n  oldText: %q", at+1, why, fl, ol)
	}
	return ""
}

func describeIndent(s string) string {
	tabs, spaces := 0, 0
	for _, r := range s {
		switch r {
		case '\t':
			tabs++
		case ' ':
			spaces++
		default:
			goto done
		}
	}
done:
	switch {
	case tabs == 0 && spaces == 0:
		return "none"
	case tabs == 0:
		return fmt.Sprintf("%d spaces", spaces)
	case spaces == 0:
		return fmt.Sprintf("%d tabs", tabs)
	}
	return fmt.Sprintf("%d tabs and %d spaces", tabs, spaces)
}
