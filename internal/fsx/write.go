package fsx

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// maxLinks bounds symbolic link chains, as the kernel does (ELOOP).
const maxLinks = 40

// ResolveLinks follows path's final component through symbolic links and
// returns the file they lead to. A dangling link resolves to its missing
// target (so a write creates it); a path that is not a link is returned as
// is. Directories on the way are not resolved: only the last component
// matters for replacing a file.
func ResolveLinks(path string) (string, error) {
	for range maxLinks {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// WriteFileAtomic replaces the file at path with data so that a reader or a
// crash sees the old content or the new, never a mix: a temporary file in
// the same directory, fsync, rename over the original, fsync of the
// directory. A symbolic link is written through: its target gets the new
// content and the link stays. An existing file keeps its permissions; a new
// one gets perm.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	target, err := ResolveLinks(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if st, err := os.Stat(target); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("write %s: %w", path, &NotRegularError{Path: target, Kind: Kind(st.Mode())})
		}
		perm = st.Mode().Perm()
	}
	dir := filepath.Dir(target)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, "."+filepath.Base(target)+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := f.Write(data)
	if werr == nil {
		// The umask may have narrowed the mode OpenFile applied.
		werr = f.Chmod(perm)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, target)
	}
	if werr != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, werr)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
