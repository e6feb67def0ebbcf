package settings

import (
	"errors"
	"fmt"
	"github.com/relay-agent/relay/internal/fsx"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Lock timing. The lock is a directory "<file>.lock", the same convention
// as the original's lock library, so relay and the original exclude each
// other. A lock older than lockStale is left over from a crashed process.
// A writer waits up to 5 s: a save holds the lock for milliseconds, but on
// a loaded machine a few concurrent ones (relay instances, a script) took
// longer than the 1 s this used to allow, and the setting was not saved.
const (
	lockAttempts = 250
	lockDelay    = 20 * time.Millisecond
	lockStale    = 10 * time.Second
)

// withFileLock runs fn while holding path's lock.
func withFileLock(path string, fn func() error) error {
	lock := path + ".lock"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	for attempt := 0; ; attempt++ {
		err := os.Mkdir(lock, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("lock %s: %w", path, err)
		}
		if st, serr := os.Stat(lock); serr == nil && time.Since(st.ModTime()) > lockStale {
			_ = os.Remove(lock)
			continue
		}
		if attempt >= lockAttempts {
			return fmt.Errorf("lock %s: held by another process", path)
		}
		time.Sleep(lockDelay)
	}
	defer os.Remove(lock)
	return fn()
}

// writeAtomic replaces path with data through a temporary file in the same
// directory and a rename, so readers see the old or the new file, never a
// torn one. An existing file's permissions are kept, and a symbolic link
// (a dotfiles setup) is written through: its target changes, the link stays.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return fsx.WriteFileAtomic(path, data, 0o644)
}
