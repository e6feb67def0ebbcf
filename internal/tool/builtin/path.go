package builtin

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/relay-agent/relay/internal/shell"
)

// unicodeSpaces are the space characters models and macOS file names use
// in place of a plain space.
var unicodeSpaces = strings.NewReplacer(
	"\u00a0", " ", "\u2000", " ", "\u2001", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ",
	"\u2005", " ", "\u2006", " ", "\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200a", " ",
	"\u202f", " ", "\u205f", " ", "\u3000", " ")

// resolvePath expands a leading "~", drops a leading "@" (models copy
// @file mentions), normalizes unusual spaces and resolves p against cwd.
func resolvePath(p, cwd string) string {
	p = strings.TrimPrefix(p, "@")
	p = unicodeSpaces.Replace(p)
	p = shell.ExpandHome(p)
	if p == "" {
		p = "."
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	return filepath.Join(cwd, p)
}

// resolveReadPath is resolvePath plus the macOS screenshot name variant
// (a narrow no-break space before AM/PM) when the plain path does not exist.
func resolveReadPath(p, cwd string) string {
	abs := resolvePath(p, cwd)
	if _, err := os.Stat(abs); err == nil {
		return abs
	}
	for _, suffix := range []string{" AM.", " PM."} {
		if strings.Contains(abs, suffix) {
			alt := strings.ReplaceAll(abs, suffix, "\u202f"+suffix[1:])
			if _, err := os.Stat(alt); err == nil {
				return alt
			}
		}
	}
	return abs
}

// errCode names an OS error the way the original's messages do (ENOENT,
// EACCES, ...).
func errCode(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ENOENT:
			return "ENOENT"
		case syscall.EACCES:
			return "EACCES"
		case syscall.EPERM:
			return "EPERM"
		case syscall.EISDIR:
			return "EISDIR"
		case syscall.ENOTDIR:
			return "ENOTDIR"
		case syscall.EROFS:
			return "EROFS"
		case syscall.ENOSPC:
			return "ENOSPC"
		}
		return errno.Error()
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "ENOENT"
	case errors.Is(err, fs.ErrPermission):
		return "EACCES"
	}
	return err.Error()
}

// fileLocks serializes writes and edits per file across all tool
// instances: path -> chan struct{} (capacity 1).
var fileLocks sync.Map

func lockKey(abs string) string {
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// lockFile waits for the per-file lock of abs or for ctx.
func lockFile(ctx context.Context, abs string) (func(), error) {
	v, _ := fileLocks.LoadOrStore(lockKey(abs), make(chan struct{}, 1))
	ch := v.(chan struct{})
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
