package tui

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/relay-agent/relay/internal/tui/editor"
)

// FileCompleter completes @paths relative to Root, off the UI loop: a
// prefix with a "/" lists that directory; a bare word of two or more
// characters also searches an index of the project's files (built once,
// skipping hidden directories, node_modules and vendor; at most
// maxIndexed files).
type FileCompleter struct {
	Root string
	Max  int

	once  sync.Once
	index []string
}

const maxIndexed = 50000

func (f *FileCompleter) buildIndex() {
	skip := map[string]bool{"node_modules": true, "vendor": true, "__pycache__": true, "target": true, "dist": true}
	_ = filepath.WalkDir(f.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(f.index) >= maxIndexed {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != f.Root && (strings.HasPrefix(name, ".") || skip[name]) {
				return filepath.SkipDir
			}
			return nil
		}
		if rel, err := filepath.Rel(f.Root, p); err == nil {
			f.index = append(f.index, filepath.ToSlash(rel))
		}
		return nil
	})
}

// search ranks indexed paths whose base name contains q: base-name
// prefix matches first, then shorter paths.
func (f *FileCompleter) search(q string) []editor.Completion {
	f.once.Do(f.buildIndex)
	q = strings.ToLower(q)
	type hit struct {
		path  string
		score int
	}
	var hits []hit
	for _, p := range f.index {
		base := strings.ToLower(path.Base(p))
		i := strings.Index(base, q)
		if i < 0 {
			continue
		}
		score := len(p)
		if i == 0 {
			score -= 1000
		}
		hits = append(hits, hit{p, score})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score < hits[j].score
		}
		return hits[i].path < hits[j].path
	})
	var out []editor.Completion
	for _, h := range hits[:min(len(hits), 50)] {
		out = append(out, editor.Completion{Value: h.path})
	}
	return out
}

// Complete lists the entries of the prefix's directory that start with
// its last element; directories first, hidden entries only when asked for.
func (f *FileCompleter) Complete(req editor.CompletionRequest) []editor.Completion {
	if req.Kind != editor.CompleteFile {
		return nil
	}
	p := req.Prefix
	if len(p) >= 2 && !strings.ContainsAny(p, "/~") {
		local := f.list(p)
		seen := map[string]bool{}
		for _, c := range local {
			seen[c.Value] = true
		}
		for _, c := range f.search(p) {
			if !seen[c.Value] {
				local = append(local, c)
			}
		}
		return f.limit(local)
	}
	return f.limit(f.list(p))
}

func (f *FileCompleter) limit(out []editor.Completion) []editor.Completion {
	n := f.Max
	if n <= 0 {
		n = 200
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// list returns the entries of the prefix's directory that start with its
// last element.
func (f *FileCompleter) list(p string) []editor.Completion {
	dir, base := "", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, base = p[:i+1], p[i+1:]
	}
	abs := dir
	if strings.HasPrefix(dir, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			abs = filepath.Join(home, dir[2:])
		}
	} else if !filepath.IsAbs(dir) {
		abs = filepath.Join(f.Root, dir)
	}
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil
	}
	lb := strings.ToLower(base)
	var dirs, files []editor.Completion
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if !strings.HasPrefix(strings.ToLower(name), lb) {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(abs, name)); err == nil {
				isDir = st.IsDir()
			}
		}
		if isDir {
			dirs = append(dirs, editor.Completion{Value: dir + name + "/", Label: dir + name + "/", Continue: true})
		} else {
			files = append(files, editor.Completion{Value: dir + name})
		}
	}
	sort.Slice(dirs, func(i, j int) bool { return dirs[i].Value < dirs[j].Value })
	sort.Slice(files, func(i, j int) bool { return files[i].Value < files[j].Value })
	return append(dirs, files...)
}
