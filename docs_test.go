package relay

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// linkRe finds Markdown links [text](target).
var linkRe = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// The README and docs/ link only to files of the repository (no
// ../shared/design.md, which a clone does not have) and to headings that
// exist; the README states the Go version go.mod needs and keeps its first
// two commands.
func TestDocsLinksAndREADME(t *testing.T) {
	pages, _ := filepath.Glob("docs/*.md")
	pages = append(pages, "README.md")
	if len(pages) < 7 {
		t.Fatalf("docs/ has %d pages, want README.md plus providers, settings, keybindings, sessions, rpc, extensions", len(pages)-1)
	}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRe.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := filepath.Clean(filepath.Join(filepath.Dir(page), file))
			if file == "" {
				path = page
			}
			if strings.HasPrefix(path, "..") {
				t.Errorf("%s links outside the repository: %s", page, target)
				continue
			}
			body, err := os.ReadFile(path)
			if err != nil {
				if st, serr := os.Stat(path); serr == nil && st.IsDir() {
					continue
				}
				t.Errorf("%s links to %s, which does not exist", page, target)
				continue
			}
			if anchor != "" && !hasAnchor(string(body), anchor) {
				t.Errorf("%s links to %s: no heading #%s", page, target, anchor)
			}
		}
	}
	readme, _ := os.ReadFile("README.md")
	if strings.Contains(string(readme), "../shared") {
		t.Errorf("README refers to ../shared, which a clone does not have")
	}
	mod, _ := os.ReadFile("go.mod")
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if goLine == nil || !strings.Contains(string(readme), "Go "+string(goLine[1])) {
		t.Errorf("README does not state the Go version of go.mod (%s)", goLine)
	}
	first := "```sh\ngo build -o relay ./cmd/relay && ./relay --help\ngo vet ./... && go test -count=1 -timeout 20m ./...\n```"
	if !strings.Contains(string(readme), first) {
		t.Errorf("README lost its first two commands")
	}
}

// hasAnchor reports whether a Markdown page has a heading whose GitHub
// anchor is anchor.
func hasAnchor(page, anchor string) bool {
	for _, l := range strings.Split(page, "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		if b.String() == anchor {
			return true
		}
	}
	return false
}
