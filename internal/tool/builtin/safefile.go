package builtin

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/relay-agent/relay/internal/fsx"
)

// openRegular opens path (following links) when it is a regular file and
// refuses anything else with an *fsx.NotRegularError before it can block:
// the path is stat'ed first, the open does not wait for a FIFO's writer,
// and the opened file is checked again in case it was swapped in between.
// flag is os.O_RDONLY or os.O_RDWR (fsx.OpenRegular only reads).
func openRegular(path string, flag int) (*os.File, os.FileInfo, error) {
	if _, err := fsx.CheckRegular(path); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, flag|oNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fsx.NotRegularError{Path: path, Kind: fsx.Kind(st.Mode())}
	}
	return f, st, nil
}

// errChanged reports a file that another process changed between the read
// of an edit and its save.
var errChanged = errors.New("file changed on disk")

// sameVersion reports whether two stats of a file show the same content
// version: same file, size, modification and change time.
func sameVersion(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) &&
		changeTime(a) == changeTime(b)
}

// recentWindow: file time stamps advance in clock ticks (a few ms on
// Linux), so a same-size rewrite shortly after the previous one can leave
// size and times unchanged; a file modified this recently before it was read
// is also compared by content hash before it is replaced.
const recentWindow = 200 * time.Millisecond

// fileSnapshot is the content of a file as one read saw it. f stays open on
// that version, so writes that reach it after it is replaced can be noticed.
type fileSnapshot struct {
	f      *os.File
	st     os.FileInfo
	data   []byte
	hashed bool
	sum    [sha256.Size]byte
}

// readSnapshot reads the regular file at path whole. It opens the file for
// reading and writing, which also checks that the edit may write it.
func readSnapshot(path string) (*fileSnapshot, error) {
	f, st, err := openRegular(path, os.O_RDWR)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	// Read the size stat reported and one byte more: a file that grows
	// while it is read is a changed file, not one to read without end.
	data := make([]byte, 0, st.Size()+1)
	for len(data) < cap(data) {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return nil, err
		}
	}
	s := &fileSnapshot{f: f, st: st, data: data}
	after, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !sameVersion(st, after) || int64(len(data)) != st.Size() {
		f.Close()
		return nil, errChanged
	}
	if start.Sub(st.ModTime()) < recentWindow {
		s.hashed, s.sum = true, sha256.Sum256(data)
	}
	return s, nil
}

func (s *fileSnapshot) close() { s.f.Close() }

// unchangedAt reports whether path still holds the version s read.
func (s *fileSnapshot) unchangedAt(path string) bool {
	st, err := os.Stat(path)
	if err != nil || !sameVersion(s.st, st) {
		return false
	}
	if !s.hashed {
		return true
	}
	data, err := os.ReadFile(path)
	return err == nil && sha256.Sum256(data) == s.sum
}

// maxCatchUps bounds how often a save follows a file that keeps growing.
const maxCatchUps = 100

// catchUp makes sure target still holds the version s read before the new
// content (being written to tmp) replaces it. Bytes another process
// appended meanwhile are appended to tmp as they are, since the edit was
// made to the text before them; any other change is errChanged.
func (s *fileSnapshot) catchUp(target string, tmp *os.File) error {
	for i := 0; i < maxCatchUps; i++ {
		if s.unchangedAt(target) {
			return nil
		}
		// appended compares the bytes themselves, so a content hash need not
		// be read again for the versions it accepted.
		s.hashed = false
		st, err := os.Stat(target)
		if err != nil || !os.SameFile(st, s.st) || st.Size() <= s.st.Size() {
			return errChanged
		}
		extra, ok := s.appended(st.Size())
		if !ok {
			return errChanged
		}
		if _, err := tmp.Write(extra); err != nil {
			return err
		}
		s.data = append(s.data, extra...)
		s.st = st
	}
	return errChanged
}

// appended returns the bytes between the end of what s read and size, when
// the file still starts with what s read.
func (s *fileSnapshot) appended(size int64) ([]byte, bool) {
	const chunk = 1 << 20
	buf := make([]byte, chunk)
	for off := 0; off < len(s.data); off += chunk {
		n := min(chunk, len(s.data)-off)
		if _, err := s.f.ReadAt(buf[:n], int64(off)); err != nil || !bytes.Equal(buf[:n], s.data[off:off+n]) {
			return nil, false
		}
	}
	extra := make([]byte, size-int64(len(s.data)))
	if _, err := s.f.ReadAt(extra, int64(len(s.data))); err != nil {
		return nil, false
	}
	return extra, true
}

// commitStage names the points of a save that tests stop a writer at.
type commitStage int

const (
	stageChunkWritten commitStage = iota // one chunk of the new content is in the temp file
	stageBeforeRename                    // the temp file is complete and synced
	stageAfterRename                     // the new content is in place
)

// commitHook, when set (by tests), runs at each stage of a save.
var commitHook func(commitStage)

func hook(s commitStage) {
	if commitHook != nil {
		commitHook(s)
	}
}

// writeChunk bounds one write call, so a save of a huge file reaches the
// kill-during-write hook between chunks.
const writeChunk = 8 << 20

var tempSeq atomic.Uint64

// createTemp creates a new file next to target with the given permissions
// (the umask applies, as for any new file).
func createTemp(target string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(target)
	for {
		name := filepath.Join(dir, "."+base+".relay-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(tempSeq.Add(1), 10)+".tmp")
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
}

func writeAll(f *os.File, content []byte) error {
	for len(content) > 0 {
		n := min(len(content), writeChunk)
		if _, err := f.Write(content[:n]); err != nil {
			return err
		}
		content = content[n:]
		hook(stageChunkWritten)
	}
	return nil
}

// replaceFile writes content to target so that a crash at any point leaves
// either the old or the new content, never a mix or an empty file: the
// content goes to a temp file in the same directory, is synced, and renamed
// over target. The file keeps its mode and, where the system allows, its
// owner. old is the version the content was derived from (nil for a plain
// overwrite or a new file); when target no longer holds it, nothing is
// written and errChanged is returned. A file with several hard links, or in
// a directory relay may not create files in, is rewritten in place instead:
// a rename would split the links or is impossible.
func replaceFile(target string, content []byte, old *fileSnapshot) (warning string, err error) {
	perm := fs.FileMode(0o644)
	var st os.FileInfo
	if old != nil {
		st = old.st
	} else if s, err := os.Stat(target); err == nil {
		if !s.Mode().IsRegular() {
			return "", &fsx.NotRegularError{Path: target, Kind: fsx.Kind(s.Mode())}
		}
		st = s
	}
	if st != nil {
		perm = st.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		if linkCount(st) > 1 {
			return "", rewriteInPlace(target, content, old)
		}
	}
	tmp, err := createTemp(target, perm)
	if err != nil {
		if st != nil && (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)) {
			return "", rewriteInPlace(target, content, old)
		}
		return "", err
	}
	committed := false
	defer func() {
		tmp.Close()
		if !committed {
			os.Remove(tmp.Name())
		}
	}()
	if st != nil {
		// The new file gets the old one's mode bits exactly (no umask) and,
		// when allowed, its owner and group.
		_ = tmp.Chmod(perm)
		keepOwner(tmp, st)
	}
	if err := writeAll(tmp, content); err != nil {
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		return "", err
	}
	hook(stageBeforeRename)
	if old != nil {
		if err := old.catchUp(target, tmp); err != nil {
			return "", err
		}
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return "", err
	}
	committed = true
	hook(stageAfterRename)
	if old != nil {
		return salvageLateWrites(target, old, tmp), nil
	}
	return "", nil
}

// salvageLateWrites handles writes another process made to the replaced
// file between the last check and the rename (it had the file open): bytes
// appended to it are appended to the new file too. It returns a warning
// for a change it could not carry over; the new content is in place either
// way.
func salvageLateWrites(target string, old *fileSnapshot, newFile *os.File) string {
	seen := old.st
	for round := 0; round < maxCatchUps; round++ {
		// Unlinking the replaced file changed its change time, so only size
		// and modification time tell whether it was written to.
		now, err := old.f.Stat()
		if err != nil || now.Size() == seen.Size() && now.ModTime().Equal(seen.ModTime()) {
			return ""
		}
		if now.Size() <= seen.Size() {
			return "another process changed the file while the edit was saved; its change went to the replaced file and is not in the edited one"
		}
		extra := make([]byte, now.Size()-seen.Size())
		if _, err := old.f.ReadAt(extra, seen.Size()); err != nil && err != io.EOF {
			return fmt.Sprintf("another process appended %d bytes while the edit was saved, which could not be read back: %v", len(extra), err)
		}
		if err := appendTo(target, newFile, extra); err != nil {
			return fmt.Sprintf("another process appended %d bytes while the edit was saved, which could not be kept: %v", len(extra), err)
		}
		seen = now
	}
	return "another process kept writing to the replaced file while the edit was saved; its latest writes are not in the edited file"
}

// appendTo appends data to the file at target when it is still newFile.
// The append is atomic with respect to other appenders (O_APPEND), which may
// already be writing to the new file.
func appendTo(target string, newFile *os.File, data []byte) error {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND|oNonblock, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	a, err := f.Stat()
	if err != nil {
		return err
	}
	b, err := newFile.Stat()
	if err != nil {
		return err
	}
	if !os.SameFile(a, b) {
		return errChanged
	}
	_, err = f.Write(data)
	return err
}

// rewriteInPlace overwrites target's content directly, for files a rename
// cannot replace. It is not crash-safe, but checks for a concurrent change
// as replaceFile does.
func rewriteInPlace(target string, content []byte, old *fileSnapshot) error {
	if old != nil && !old.unchangedAt(target) {
		return errChanged
	}
	f, err := os.OpenFile(target, os.O_WRONLY|oNonblock, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return err
	} else if !st.Mode().IsRegular() {
		return &fsx.NotRegularError{Path: target, Kind: fsx.Kind(st.Mode())}
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if err := writeAll(f, content); err != nil {
		return err
	}
	return f.Sync()
}
