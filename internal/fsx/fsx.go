// Package fsx opens and reads files that a user, a repository or a peer named,
// refusing what is not a regular file (directories, FIFOs, devices, sockets)
// before a read can block or run forever, and bounding every read.
//
// A path like /dev/zero or a named pipe looks like a file to os.ReadFile, which
// then reads until memory runs out or blocks forever; callers that read
// configuration, sessions, @file arguments or tool inputs go through here.
package fsx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError reports a path that names something other than a regular
// file. Kind says what it is ("directory", "named pipe (FIFO)", ...).
type NotRegularError struct {
	Path string
	Kind string
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is a %s, not a regular file", e.Path, e.Kind)
}

// TooLargeError reports a file or stream larger than the caller's limit.
// Size is the file's size when it was stat'ed, or -1 when only the data read
// past the limit showed it (a stream, or a file that grew while read).
type TooLargeError struct {
	Path  string
	Size  int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size >= 0 {
		return fmt.Sprintf("%s is too large (%d bytes, limit %d)", e.Path, e.Size, e.Limit)
	}
	return fmt.Sprintf("%s is too large (more than %d bytes, limit %d)", e.Path, e.Limit, e.Limit)
}

// ErrTooLarge matches every *TooLargeError with errors.Is.
var ErrTooLarge = errors.New("too large")

func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// ErrNotRegular matches every *NotRegularError with errors.Is.
var ErrNotRegular = errors.New("not a regular file")

func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// Kind names the type of file a mode describes, in words for error messages.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	default:
		return "special file"
	}
}

// CheckRegular stats path (following symbolic links) and returns a
// *NotRegularError when it is not a regular file. It opens nothing.
func CheckRegular(path string) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return st, &NotRegularError{Path: path, Kind: Kind(st.Mode())}
	}
	return st, nil
}

// OpenRegular opens path for reading when it is a regular file (after
// following symbolic links) and refuses anything else with a
// *NotRegularError. It never blocks on a FIFO: the open is non-blocking and
// the opened file is checked before anything is read.
func OpenRegular(path string) (*os.File, error) {
	return openVerified(path)
}

// ReadFile reads the regular file at path when it holds at most limit bytes.
// A larger file is refused with a *TooLargeError before anything is read; a
// file that grows past limit while being read is refused too.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, &TooLargeError{Path: path, Size: st.Size(), Limit: limit}
	}
	// Size the buffer from the stat so a large file is read without
	// regrowing; one spare byte detects growth past the limit.
	data := make([]byte, 0, st.Size()+1)
	data, err = readInto(data, io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, Size: -1, Limit: limit}
	}
	return data, nil
}

// readInto appends r's data to buf until EOF, like io.ReadAll with a
// caller-sized buffer.
func readInto(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// ReadAtMost reads r to its end or to limit bytes, whichever comes first. It
// reports truncated when more data followed the limit; it reads at most one
// byte past the limit, so an endless stream costs limit bytes of memory.
func ReadAtMost(r io.Reader, limit int64) (data []byte, truncated bool, err error) {
	if limit < 0 {
		limit = 0
	}
	data, err = io.ReadAll(io.LimitReader(r, limit+1))
	if int64(len(data)) > limit {
		return data[:limit], true, err
	}
	return data, false, err
}
