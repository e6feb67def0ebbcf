//go:build unix

package builtin

import (
	"os"
	"syscall"
)

// readInto reads the whole file at path into the pooled buffer with raw
// system calls: os.Open would also register every file with the network
// poller, an extra system call per file that a grep over 100,000 files
// feels.
func readInto(path string, bp *[]byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	size := -1
	if syscall.Fstat(fd, &st) == nil {
		size = int(st.Size)
	}
	buf := (*bp)[:0]
	if cap(buf) < size+1 {
		buf = make([]byte, 0, size+4096)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		buf = buf[:len(buf)+n]
		if n == 0 || len(buf) == size {
			break // EOF, or the size fstat reported was read
		}
	}
	*bp = buf
	return buf, nil
}

// oNonblock keeps an open of a FIFO from waiting for a writer; it changes
// nothing for regular files.
const oNonblock = syscall.O_NONBLOCK

func statT(st os.FileInfo) *syscall.Stat_t {
	s, _ := st.Sys().(*syscall.Stat_t)
	return s
}

// linkCount is the number of hard links of a file (1 when unknown).
func linkCount(st os.FileInfo) uint64 {
	if s := statT(st); s != nil {
		return uint64(s.Nlink)
	}
	return 1
}

// keepOwner gives f the owner and group of st where the system allows it
// (root can; a member of st's group can keep the group).
func keepOwner(f *os.File, st os.FileInfo) {
	s := statT(st)
	if s == nil {
		return
	}
	if f.Chown(int(s.Uid), int(s.Gid)) != nil {
		_ = f.Chown(-1, int(s.Gid))
	}
}
