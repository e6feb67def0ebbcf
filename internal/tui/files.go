package tui

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/relay-agent/relay/internal/tui/editor"
)

// FileCompleter completes @paths from the directory the prefix names,
// relative to Root (one directory read per request, off the UI loop).
type FileCompleter struct {
	Root string
	Max  int
}

// Complete lists the entries of the prefix's directory that start with
// its last element; directories first, hidden entries only when asked for.
func (f FileCompleter) Complete(req editor.CompletionRequest) []editor.Completion {
	if req.Kind != editor.CompleteFile {
		return nil
	}
	p := req.Prefix
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
	out := append(dirs, files...)
	if n := f.Max; n > 0 && len(out) > n {
		out = out[:n]
	} else if len(out) > 200 {
		out = out[:200]
	}
	return out
}
