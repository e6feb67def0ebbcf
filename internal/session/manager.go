package session

import (
	"errors"
	"fmt"
	"github.com/relay-agent/relay/internal/fsx"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// CreateOptions are the options of a new session.
type CreateOptions struct {
	ID            string // caller-supplied session id (validated); "" = UUIDv7
	ParentSession string // path of the session this one was forked from
}

// Manager is one open session: its header, the entry tree, the leaf, and
// (when persisted) the locked file entries are appended to. It is safe for
// use by several goroutines.
type Manager struct {
	mu sync.Mutex

	cwd     string
	dir     string
	path    string // "" when in memory
	persist bool
	header  *Header
	app     *appender // nil until the file exists and is locked
	flushed bool      // the file holds the header and every entry before the backlog
	// unwritten counts the entries at the end of entries whose write
	// failed; the next append (or Close) writes them first.
	unwritten int
	closed    bool

	entries  []*Entry
	byID     map[string]*Entry
	children map[string][]*Entry // parent id ("" = roots) -> children in file order
	leaf     string

	problems []Problem
	now      func() time.Time
}

func newManager(cwd, dir string, persist bool) *Manager {
	return &Manager{
		cwd:      absPath(cwd),
		dir:      dir,
		persist:  persist,
		byID:     map[string]*Entry{},
		children: map[string][]*Entry{},
		now:      clock,
	}
}

// clock is the time source of new managers; tests replace it.
var clock = time.Now

// Create starts a new session for cwd in dir. Nothing is written until the
// first user or assistant message is appended.
func Create(cwd, dir string, opts CreateOptions) (*Manager, error) {
	id := opts.ID
	if id == "" {
		id = NewSessionID()
	} else if err := ValidateSessionID(id); err != nil {
		return nil, err
	}
	m := newManager(cwd, dir, true)
	now := m.now()
	m.header = newHeader(id, m.cwd, opts.ParentSession, now)
	m.path = filepath.Join(dir, FileName(now, id))
	return m, nil
}

// InMemory starts a session that is never written.
func InMemory(cwd string) *Manager {
	m := newManager(cwd, "", false)
	m.header = newHeader(NewSessionID(), m.cwd, "", m.now())
	return m
}

// Open opens the session file at path for appending, taking its lock. A
// missing or empty file starts a new session at that path; a file that is
// not a session, or is from a newer relay, is an error and stays untouched.
// Older versions are migrated and written back atomically. Problems found
// by the tolerant reader are available from Problems.
func Open(path, dir string) (*Manager, error) {
	path = absPath(path)
	if dir == "" {
		dir = filepath.Dir(path)
	}
	_, err := fsx.CheckRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return openNew(path, dir, "")
	}
	if err != nil {
		// A directory, FIFO or device is refused before it is opened:
		// reading /dev/zero never ends and a FIFO blocks.
		return nil, sessionReadError(path, err)
	}
	app, err := openAppender(path, false)
	if err != nil {
		return nil, err
	}
	data, err := readAll(app.f)
	if err != nil {
		app.close()
		return nil, sessionReadError(path, err)
	}
	fd, err := parseSession(path, data)
	if err != nil {
		app.close()
		return nil, err
	}
	if fd.header == nil {
		m, err := openNew(path, dir, "")
		if err != nil {
			app.close()
			return nil, err
		}
		m.app = app
		m.app.needLF = !fd.endsClean
		return m, nil
	}
	if fd.migratedFrom != 0 {
		if err := writeFileAtomic(path, rewriteLines(data, fd.changed)); err != nil {
			app.close()
			return nil, err
		}
		// The rename replaced the inode we locked: lock the new file. Its
		// end is the old file's end (a torn tail stays torn).
		app.close()
		if app, err = openAppender(path, false); err != nil {
			return nil, err
		}
	}
	m := newManager(fd.header.Cwd, dir, true)
	if fd.header.Cwd == "" {
		m.cwd = ""
	}
	m.path = path
	m.header = fd.header
	m.app = app
	m.app.needLF = !fd.endsClean
	m.flushed = true
	m.problems = fd.problems
	for _, e := range fd.entries {
		m.index(e)
	}
	if n := len(m.entries); n > 0 {
		m.leaf = m.entries[n-1].ID
	}
	return m, nil
}

func openNew(path, dir, parent string) (*Manager, error) {
	m := newManager(".", dir, true)
	m.header = newHeader(NewSessionID(), m.cwd, parent, m.now())
	m.path = path
	return m, nil
}

// Load reads a session file without locking it or migrating it on disk
// (migration happens in memory), for viewers such as `relay sessions`.
// Appends to a loaded session fail.
func Load(path string) (*Manager, error) {
	data, err := readSessionFile(path)
	if err != nil {
		return nil, err
	}
	fd, err := parseSession(path, data)
	if err != nil {
		return nil, err
	}
	if fd.header == nil {
		return nil, fmt.Errorf("%w: %s is empty", ErrNotSession, path)
	}
	m := newManager(fd.header.Cwd, filepath.Dir(path), false)
	m.path = path
	m.header = fd.header
	m.problems = fd.problems
	for _, e := range fd.entries {
		m.index(e)
	}
	if n := len(m.entries); n > 0 {
		m.leaf = m.entries[n-1].ID
	}
	return m, nil
}

// ContinueRecent opens the most recently modified session of cwd in dir,
// or creates a new one when there is none.
func ContinueRecent(cwd, dir string) (*Manager, error) {
	if p := mostRecent(cwd, dir); p != "" {
		return Open(p, dir)
	}
	return Create(cwd, dir, CreateOptions{})
}

func mostRecent(cwd, dir string) string {
	des, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	type cand struct {
		path string
		mod  time.Time
	}
	var cs []cand
	for _, de := range des {
		if de.IsDir() || filepath.Ext(de.Name()) != ".jsonl" {
			continue
		}
		if info, err := de.Info(); err == nil {
			cs = append(cs, cand{filepath.Join(dir, de.Name()), info.ModTime()})
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].mod.After(cs[j].mod) })
	want := absPath(cwd)
	for _, c := range cs {
		h, err := readHeader(c.path)
		if err == nil && h != nil && h.Cwd != "" && absPath(h.Cwd) == want {
			return c.path
		}
	}
	return ""
}

// ForkFrom copies every entry of the session at srcPath into a new session
// for targetCwd in dir whose header names srcPath as parentSession.
func ForkFrom(srcPath, targetCwd, dir, id string) (*Manager, error) {
	src, err := Load(srcPath)
	if err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	m, err := Create(targetCwd, dir, CreateOptions{ID: id, ParentSession: absPath(srcPath)})
	if err != nil {
		return nil, err
	}
	for _, e := range src.entries {
		m.index(copyEntry(e))
	}
	m.leaf = src.leaf
	if err := m.flushIfReady(); err != nil {
		return nil, err
	}
	return m, nil
}

// copyEntry returns an entry with its own copy of the record, detached from
// the buffer of the file it was read from.
func copyEntry(e *Entry) *Entry {
	raw := append([]byte(nil), e.raw...)
	c, err := parseEntry(raw, 0)
	if err != nil {
		// Entries were parsed once already; this cannot fail.
		panic(fmt.Sprintf("session: re-parse of entry %s: %v", e.ID, err))
	}
	return c
}

// Close releases the file and its lock. The Manager must not be used to
// append afterwards.
//
// Entries whose write failed earlier get one last try first; the error
// says when they could not be saved.
func (m *Manager) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var werr error
	if m.persist && !m.closed {
		if !m.flushed {
			werr = m.flushLocked()
		} else if m.app != nil {
			werr = m.writeBacklogLocked()
		}
	}
	err := m.app.close()
	m.app = nil
	m.closed = m.persist
	return errors.Join(werr, err)
}

// index adds e to the in-memory tree (not to the file).
func (m *Manager) index(e *Entry) {
	m.entries = append(m.entries, e)
	m.byID[e.ID] = e
	m.children[e.ParentID] = append(m.children[e.ParentID], e)
}

// readAll reads the whole file in one allocation of its size (io.ReadAll
// would grow and copy its buffer several times on a 50 MB session).
func readAll(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		// Swapped for a FIFO or device since the caller's check.
		return nil, &fsx.NotRegularError{Path: f.Name(), Kind: fsx.Kind(st.Mode())}
	}
	if st.Size() > MaxFileSize {
		return nil, &fsx.TooLargeError{Path: f.Name(), Size: st.Size(), Limit: MaxFileSize}
	}
	buf := make([]byte, 0, st.Size()+512)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// Getters.

func (m *Manager) Header() *Header { m.mu.Lock(); defer m.mu.Unlock(); return m.header }
func (m *Manager) SessionID() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.header.ID
}

// SessionFile is the path of the session file ("" when in memory).
func (m *Manager) SessionFile() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.path
}

func (m *Manager) SessionDir() string { m.mu.Lock(); defer m.mu.Unlock(); return m.dir }
func (m *Manager) Cwd() string        { m.mu.Lock(); defer m.mu.Unlock(); return m.cwd }

// IsPersisted reports whether entries are written to a file.
func (m *Manager) IsPersisted() bool { m.mu.Lock(); defer m.mu.Unlock(); return m.persist }

// Problems returns what the tolerant reader found in the file (with line
// numbers) and context-building decode failures.
func (m *Manager) Problems() []Problem {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Problem(nil), m.problems...)
}

// Entries returns all entries in file order.
func (m *Manager) Entries() []*Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*Entry(nil), m.entries...)
}

// EntryCount is the number of entries (header excluded).
func (m *Manager) EntryCount() int { m.mu.Lock(); defer m.mu.Unlock(); return len(m.entries) }

// Entry returns the entry with id, or nil.
func (m *Manager) Entry(id string) *Entry { m.mu.Lock(); defer m.mu.Unlock(); return m.byID[id] }

// EntriesSince returns the entries appended after the entry id (all entries
// when id is "" or unknown).
func (m *Manager) EntriesSince(id string) []*Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id != "" {
		for i := len(m.entries) - 1; i >= 0; i-- {
			if m.entries[i].ID == id {
				return append([]*Entry(nil), m.entries[i+1:]...)
			}
		}
	}
	return append([]*Entry(nil), m.entries...)
}

// Children returns the children of id in file order ("" = the roots).
func (m *Manager) Children(id string) []*Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.childrenOf(id)
}

func (m *Manager) childrenOf(id string) []*Entry {
	if id == "" {
		var roots []*Entry
		for _, e := range m.entries {
			if e.ParentID == "" || m.byID[e.ParentID] == nil {
				roots = append(roots, e)
			}
		}
		return roots
	}
	return append([]*Entry(nil), m.children[id]...)
}

// LeafID is the current position ("" before the first entry or after
// ResetLeaf).
func (m *Manager) LeafID() string { m.mu.Lock(); defer m.mu.Unlock(); return m.leaf }

// LeafEntry returns the leaf entry, or nil.
func (m *Manager) LeafEntry() *Entry { m.mu.Lock(); defer m.mu.Unlock(); return m.byID[m.leaf] }

// Branch returns the path from the root to fromID ("" = the leaf).
func (m *Manager) Branch(fromID string) []*Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	if fromID == "" {
		fromID = m.leaf
	}
	return m.pathTo(fromID)
}

// pathTo walks parent links from id to its root and returns root->id. A
// cycle in a corrupt file ends the walk instead of looping.
func (m *Manager) pathTo(id string) []*Entry {
	// A path without a cycle has at most len(m.byID) entries: count it,
	// then fill one slice of that size from the end. Resuming a long
	// session builds several such paths; a set of seen ids per call cost
	// megabytes of garbage. Only a (corrupt) cyclic chain needs the set.
	n := 0
	for e := m.byID[id]; e != nil; e = m.byID[e.ParentID] {
		n++
		if e.ParentID == "" {
			break
		}
		if n > len(m.byID) {
			return m.pathToCyclic(id)
		}
	}
	path := make([]*Entry, n)
	for e := m.byID[id]; n > 0; e = m.byID[e.ParentID] {
		n--
		path[n] = e
	}
	return path
}

// pathToCyclic is pathTo for a parent chain that loops: it stops before
// the first entry seen twice.
func (m *Manager) pathToCyclic(id string) []*Entry {
	var rev []*Entry
	seen := map[string]bool{}
	for e := m.byID[id]; e != nil && !seen[e.ID]; e = m.byID[e.ParentID] {
		seen[e.ID] = true
		rev = append(rev, e)
		if e.ParentID == "" {
			break
		}
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// Label returns the current label of entry id ("" when none).
func (m *Manager) Label(id string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, _ := m.labelOf(id)
	return l
}

func (m *Manager) labelOf(id string) (label, ts string) {
	for i := len(m.entries) - 1; i >= 0; i-- {
		e := m.entries[i]
		if lb := e.Label(); lb != nil && lb.TargetID == id {
			if lb.Label == nil {
				return "", e.Timestamp
			}
			return *lb.Label, e.Timestamp
		}
	}
	return "", ""
}

// Name is the session name of the latest session_info entry.
func (m *Manager) Name() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.entries) - 1; i >= 0; i-- {
		if si := m.entries[i].SessionInfo(); si != nil {
			if si.Name == nil {
				return ""
			}
			return *si.Name
		}
	}
	return ""
}

// TreeNode is one entry of Tree with its children and resolved label.
type TreeNode struct {
	Entry          *Entry      `json:"entry"`
	Children       []*TreeNode `json:"children"`
	Label          string      `json:"label,omitempty"`
	LabelTimestamp string      `json:"labelTimestamp,omitempty"`
}

// Tree returns the entry forest (roots and children in file order).
func (m *Manager) Tree() []*TreeNode {
	m.mu.Lock()
	defer m.mu.Unlock()
	labels := map[string][2]string{}
	for _, e := range m.entries {
		if lb := e.Label(); lb != nil {
			v := ""
			if lb.Label != nil {
				v = *lb.Label
			}
			labels[lb.TargetID] = [2]string{v, e.Timestamp}
		}
	}
	nodes := make(map[*Entry]*TreeNode, len(m.entries))
	var roots []*TreeNode
	for _, e := range m.entries {
		n := &TreeNode{Entry: e, Children: []*TreeNode{}}
		if l, ok := labels[e.ID]; ok && l[0] != "" {
			n.Label, n.LabelTimestamp = l[0], l[1]
		}
		nodes[e] = n
	}
	for _, e := range m.entries {
		n := nodes[e]
		p := m.byID[e.ParentID]
		if e.ParentID == "" || p == nil || p == e {
			roots = append(roots, n)
			continue
		}
		nodes[p].Children = append(nodes[p].Children, n)
	}
	return roots
}
