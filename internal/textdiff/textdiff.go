// Package textdiff renders line diffs of two texts: a standard unified
// patch and a compact numbered form for display, both on go-udiff.
package textdiff

import (
	"strconv"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Unified returns a standard unified patch from old to new labelled with
// path ("--- path", "+++ path"), with context lines around each change. It
// is empty when the texts are equal.
func Unified(path, oldText, newText string, context int) string {
	edits := udiff.Lines(oldText, newText)
	s, err := udiff.ToUnified(path, path, oldText, edits, context)
	if err != nil {
		return ""
	}
	return s
}

// Display returns a numbered diff for people and models: "+N text" for added
// lines (new numbering), "-N text" for removed lines and " N text" for
// context (old numbering), with " ..." where unchanged lines are skipped.
// Numbers are right-aligned to the widest line count. firstChanged is the
// line of the first change in the new text (0 when nothing changed).
func Display(oldText, newText string, context int) (diff string, firstChanged int) {
	edits := udiff.Lines(oldText, newText)
	u, err := udiff.ToUnifiedDiff("", "", oldText, edits, context)
	if err != nil || len(u.Hunks) == 0 {
		return "", 0
	}
	width := len(strconv.Itoa(max(strings.Count(oldText, "\n")+1, strings.Count(newText, "\n")+1)))
	pad := func(n int) string {
		s := strconv.Itoa(n)
		if len(s) < width {
			s = strings.Repeat(" ", width-len(s)) + s
		}
		return s
	}
	ellipsis := " " + strings.Repeat(" ", width) + " ..."
	var out []string
	oldTotal := strings.Count(oldText, "\n")
	if !strings.HasSuffix(oldText, "\n") && oldText != "" {
		oldTotal++
	}
	lastOld := 0
	for i, h := range u.Hunks {
		if (i == 0 && h.FromLine > 1) || (i > 0 && h.FromLine > lastOld+1) {
			out = append(out, ellipsis)
		}
		o, n := h.FromLine, h.ToLine
		for _, l := range h.Lines {
			text := strings.TrimSuffix(l.Content, "\n")
			switch l.Kind {
			case udiff.Insert:
				if firstChanged == 0 {
					firstChanged = n
				}
				out = append(out, "+"+pad(n)+" "+text)
				n++
			case udiff.Delete:
				if firstChanged == 0 {
					firstChanged = n
				}
				out = append(out, "-"+pad(o)+" "+text)
				o++
			default:
				out = append(out, " "+pad(o)+" "+text)
				o++
				n++
			}
		}
		lastOld = o - 1
	}
	if lastOld < oldTotal {
		out = append(out, ellipsis)
	}
	return strings.Join(out, "\n"), firstChanged
}
