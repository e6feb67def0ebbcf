package builtin

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/charlievieth/fastwalk"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreFiles are read in every directory, like ripgrep and fd do.
var ignoreFiles = []string{".gitignore", ".ignore"}

type patKind uint8

const (
	patGeneric patKind = iota // go-git pattern matching
	patName                   // a plain name at any depth
	patSuffix                 // "*" followed by a plain suffix, at any depth
)

type ignorePat struct {
	kind    patKind
	negate  bool
	dirOnly bool
	lit     string
	gp      gitignore.Pattern
}

// ignoreRules are the patterns of one directory's ignore files; parent
// links lead to the rules of enclosing directories. Deeper rules and later
// lines take precedence, as in git.
type ignoreRules struct {
	parent *ignoreRules
	dir    string // absolute directory the patterns are relative to
	pats   []ignorePat
}

func parseIgnore(data []byte) []ignorePat {
	var pats []ignorePat
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if t := strings.TrimRight(line, " "); !strings.HasSuffix(t, "\\") {
			line = t
		}
		if line == "" {
			continue
		}
		p := ignorePat{gp: gitignore.ParsePattern(line, nil)}
		body := line
		if strings.HasPrefix(body, "!") {
			p.negate, body = true, body[1:]
		}
		if strings.HasSuffix(body, "/") {
			p.dirOnly, body = true, strings.TrimSuffix(body, "/")
		}
		switch {
		case body == "" || strings.Contains(body, "/") || strings.HasPrefix(body, "\\"):
			p.kind = patGeneric
		case !strings.ContainsAny(body, "*?[\\"):
			p.kind, p.lit = patName, body
		case body[0] == '*' && !strings.ContainsAny(body[1:], "*?[\\"):
			p.kind, p.lit = patSuffix, body[1:]
		default:
			p.kind = patGeneric
		}
		pats = append(pats, p)
	}
	return pats
}

// result: 0 no match, 1 ignored, 2 re-included.
func (p *ignorePat) match(dir, abs, name string, isDir bool) int {
	var hit bool
	switch p.kind {
	case patName:
		hit = name == p.lit && (!p.dirOnly || isDir)
	case patSuffix:
		hit = strings.HasSuffix(name, p.lit) && (!p.dirOnly || isDir)
	default:
		if len(abs) <= len(dir)+1 || !strings.HasPrefix(abs, dir) {
			return 0
		}
		rel := abs[len(dir)+1:]
		switch p.gp.Match(strings.Split(rel, string(filepath.Separator)), isDir) {
		case gitignore.Exclude:
			return 1
		case gitignore.Include:
			return 2
		}
		return 0
	}
	if !hit {
		return 0
	}
	if p.negate {
		return 2
	}
	return 1
}

func (r *ignoreRules) ignored(abs, name string, isDir bool) bool {
	for n := r; n != nil; n = n.parent {
		for i := len(n.pats) - 1; i >= 0; i-- {
			switch n.pats[i].match(n.dir, abs, name, isDir) {
			case 1:
				return true
			case 2:
				return false
			}
		}
	}
	return false
}

// withDir returns the rules for directory dir: r plus dir's ignore files.
func (r *ignoreRules) withDir(dir string) *ignoreRules {
	var pats []ignorePat
	for _, f := range ignoreFiles {
		if data, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			pats = append(pats, parseIgnore(data)...)
		}
	}
	if len(pats) == 0 {
		return r
	}
	return &ignoreRules{parent: r, dir: dir, pats: pats}
}

// rootRules loads the rules that apply above root: the enclosing git
// repository's .git/info/exclude and the ignore files of root's ancestors
// up to the repository root.
func rootRules(root string) *ignoreRules {
	repo := ""
	for d := root; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			repo = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if repo == "" {
		return nil
	}
	var r *ignoreRules
	if data, err := os.ReadFile(filepath.Join(repo, ".git", "info", "exclude")); err == nil {
		if pats := parseIgnore(data); len(pats) > 0 {
			r = &ignoreRules{dir: repo, pats: pats}
		}
	}
	if repo == root {
		return r
	}
	rel, err := filepath.Rel(repo, filepath.Dir(root))
	if err != nil {
		return r
	}
	d := repo
	r = r.withDir(d)
	if rel != "." {
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			d = filepath.Join(d, part)
			r = r.withDir(d)
		}
	}
	return r
}

// walkEntry is one file-system entry the walk found.
type walkEntry struct {
	abs   string
	name  string
	isDir bool
	typ   fs.FileMode
	de    fs.DirEntry
}

var errStopWalk = errors.New("stop walk")

// walkTree walks root in parallel, honouring .gitignore/.ignore files
// (nested ones and the repository's), searching hidden entries but never
// entering .git, and calls visit for every entry that is not ignored
// (concurrently). visit returns errStopWalk to end the walk early, or
// fs.SkipDir for a directory it does not want entered.
func walkTree(root string, visit func(e walkEntry) error) error {
	base := rootRules(root).withDir(root)
	var rules sync.Map // dir -> *ignoreRules
	rules.Store(root, base)
	conf := fastwalk.Config{Follow: false, NumWorkers: fastwalk.DefaultNumWorkers()}
	err := fastwalk.Walk(&conf, root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, errStopWalk) {
				return err // fastwalk reports a callback's error back for the directory
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if path == root {
			return nil
		}
		name := d.Name()
		parent := path[:len(path)-len(name)-1]
		isDir := d.IsDir()
		if isDir && name == ".git" {
			return fs.SkipDir
		}
		v, ok := rules.Load(parent)
		if !ok {
			v = base
		}
		r := v.(*ignoreRules)
		if r.ignored(path, name, isDir) {
			if isDir {
				return fs.SkipDir
			}
			return nil
		}
		if err := visit(walkEntry{abs: path, name: name, isDir: isDir, typ: d.Type(), de: d}); err != nil {
			return err
		}
		if isDir {
			rules.Store(path, r.withDir(path))
		}
		return nil
	})
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}
