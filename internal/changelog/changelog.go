// Package changelog embeds relay's CHANGELOG.md for /changelog.
//
// go:embed cannot reach the repository root, so the package keeps a copy
// of the root file; TestMatchesRoot fails when the two drift apart, and
// `go generate ./internal/changelog` refreshes the copy.
package changelog

import (
	_ "embed"
	"regexp"
	"strconv"
	"strings"
)

//go:generate cp ../../CHANGELOG.md CHANGELOG.md

//go:embed CHANGELOG.md
var text string

// Text returns the whole changelog (Markdown).
func Text() string { return text }

// Latest returns the newest released version ("0.1.0"), or "" when the
// changelog has none; an "Unreleased" section is not a version.
func Latest() string {
	if e := parse(text); len(e) > 0 {
		return e[0].Version
	}
	return ""
}

// Entry is one released version's section of the changelog.
type Entry struct {
	Version string // "0.1.0"
	v       [3]int
	Content string // the section, its "## " heading included
}

var versionHeading = regexp.MustCompile(`^##\s+\[?v?(\d+)\.(\d+)\.(\d+)\]?`)

func parse(s string) []Entry {
	var out []Entry
	var cur *Entry
	var lines []string
	flush := func() {
		if cur != nil {
			cur.Content = strings.TrimSpace(strings.Join(lines, "\n"))
			out = append(out, *cur)
		}
		cur, lines = nil, nil
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "## ") {
			flush()
			if m := versionHeading.FindStringSubmatch(line); m != nil {
				cur = &Entry{Version: m[1] + "." + m[2] + "." + m[3]}
				for i := range cur.v {
					cur.v[i], _ = strconv.Atoi(m[i+1])
				}
			}
		}
		if cur != nil {
			lines = append(lines, line)
		}
	}
	flush()
	return out
}

func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(s), "v"), ".", 3)
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		// "1-dev" and "1+meta" count as 1.
		if i := strings.IndexAny(p, "-+"); i >= 0 {
			p = p[:i]
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// Startup decides the changelog shown once after an update. last is the
// lastChangelogVersion setting. show is the sections newer than last
// ("" on a fresh install, where there is nothing to compare with, and when
// nothing is new); record is the version to save as lastChangelogVersion
// ("" when the setting is already current).
func Startup(last string) (show, record string) {
	return startup(parse(text), last)
}

func startup(entries []Entry, last string) (show, record string) {
	if len(entries) == 0 {
		return "", ""
	}
	newest := entries[0]
	for _, e := range entries[1:] {
		if less(newest.v, e.v) {
			newest = e
		}
	}
	lv, ok := parseVersion(last)
	if !ok {
		// Fresh install (or a value relay did not write): remember the
		// version without showing anything.
		return "", newest.Version
	}
	var parts []string
	for _, e := range entries {
		if less(lv, e.v) {
			parts = append(parts, e.Content)
		}
	}
	if len(parts) == 0 {
		return "", ""
	}
	return strings.Join(parts, "\n\n"), newest.Version
}
