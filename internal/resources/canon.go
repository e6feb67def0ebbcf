package resources

import (
	"io/fs"
	"os"
	"path/filepath"
)

// canon resolves paths to their symlink-free form with one Lstat per
// distinct path component, cached for one Load: start-up discovery touches
// hundreds of files below the same few directories, and EvalSymlinks would
// walk every component of every path again.
type canon struct{ m map[string]string }

func newCanon() *canon { return &canon{m: map[string]string{}} }

func (c *canon) path(p string) string {
	if !filepath.IsAbs(p) {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
	}
	p = filepath.Clean(p)
	if r, ok := c.m[p]; ok {
		return r
	}
	r := p
	if parent := filepath.Dir(p); parent != p {
		fi, err := os.Lstat(p)
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			if e, err := filepath.EvalSymlinks(p); err == nil {
				r = e
			}
		default:
			r = filepath.Join(c.path(parent), filepath.Base(p))
		}
	}
	c.m[p] = r
	return r
}

// entryKind reports whether a directory entry is a directory or a regular
// file, following symlinks (a broken link is neither).
func entryKind(dir string, e fs.DirEntry) (isDir, isFile bool) {
	t := e.Type()
	if t&fs.ModeSymlink == 0 {
		return t.IsDir(), t.IsRegular()
	}
	st, err := os.Stat(filepath.Join(dir, e.Name()))
	if err != nil {
		return false, false
	}
	return st.IsDir(), st.Mode().IsRegular()
}
