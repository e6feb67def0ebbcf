package resources

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreFileNames are read in every directory a discovery walk enters.
var ignoreFileNames = []string{".gitignore", ".ignore", ".fdignore"}

// ignorer holds the ignore patterns met so far below one walk root. Each
// pattern is scoped to the directory of its file, so nested files only
// affect their own subtree, and later (deeper) patterns win.
type ignorer struct {
	root string
	pats []gitignore.Pattern
}

func newIgnorer(root string) *ignorer { return &ignorer{root: root} }

// enter adds the ignore files among dir's entries.
func (ig *ignorer) enter(dir string, entries []fs.DirEntry) {
	var domain []string
	for _, name := range ignoreFileNames {
		if !hasEntry(entries, name) {
			continue
		}
		if domain == nil {
			domain = ig.parts(dir)
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSuffix(line, "\r")
			t := strings.TrimSpace(line)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			ig.pats = append(ig.pats, gitignore.ParsePattern(line, domain))
		}
	}
}

// parts returns p relative to the root as path components (nil for the root).
func (ig *ignorer) parts(p string) []string {
	rel, err := filepath.Rel(ig.root, p)
	if err != nil || rel == "." {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

// ignored reports whether path (below the root) is ignored.
func (ig *ignorer) ignored(path string, isDir bool) bool {
	if len(ig.pats) == 0 {
		return false
	}
	parts := ig.parts(path)
	for i := len(ig.pats) - 1; i >= 0; i-- {
		switch ig.pats[i].Match(parts, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}

func hasEntry(entries []fs.DirEntry, name string) bool {
	for _, e := range entries {
		if e.Name() == name {
			return true
		}
	}
	return false
}
