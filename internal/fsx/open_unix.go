//go:build unix

package fsx

import (
	"os"
	"syscall"
)

// openVerified opens path without blocking and refuses it unless the opened
// file is regular. O_NONBLOCK keeps a FIFO from waiting for a writer and
// O_NOCTTY keeps a terminal device from becoming the controlling terminal;
// the flag is cleared again on a regular file so the *os.File is an
// ordinary blocking one (no poller registration: it costs a syscall per open
// and buys nothing for disk files).
func openVerified(path string) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		// A socket cannot be opened at all (ENXIO): say what it is.
		if st, serr := os.Stat(path); serr == nil && !st.Mode().IsRegular() {
			return nil, &NotRegularError{Path: path, Kind: Kind(st.Mode())}
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, &NotRegularError{Path: path, Kind: kindOfUnixMode(uint32(st.Mode))}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

func kindOfUnixMode(m uint32) string {
	switch m & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return "directory"
	case syscall.S_IFIFO:
		return "named pipe (FIFO)"
	case syscall.S_IFSOCK:
		return "socket"
	case syscall.S_IFCHR:
		return "character device"
	case syscall.S_IFBLK:
		return "block device"
	case syscall.S_IFLNK:
		return "symbolic link"
	}
	return "special file"
}
