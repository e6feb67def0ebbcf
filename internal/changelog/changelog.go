// Package changelog embeds relay's CHANGELOG.md for /changelog.
//
// go:embed cannot reach the repository root, so the package keeps a copy
// of the root file; TestMatchesRoot fails when the two drift apart, and
// `go generate ./internal/changelog` refreshes the copy.
package changelog

import (
	_ "embed"
	"strings"
)

//go:generate cp ../../CHANGELOG.md CHANGELOG.md

//go:embed CHANGELOG.md
var text string

// Text returns the whole changelog (Markdown).
func Text() string { return text }

// Latest returns the newest version heading ("0.1.0"), or "" when the
// changelog has none. An "Unreleased" section is not a version.
func Latest() string {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, "## "); ok {
			v = strings.TrimSpace(strings.Trim(strings.TrimSpace(v), "[]"))
			if !strings.EqualFold(v, "unreleased") {
				return v
			}
		}
	}
	return ""
}
