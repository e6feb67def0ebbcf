//go:build unix

package builtin

import (
	"os"
	"syscall"

	"github.com/relay-agent/relay/internal/fsx"
)

// rawFile reads a file with raw system calls: os.Open would also register
// every file with the network poller, an extra system call per file that a
// grep over 100,000 files feels.
type rawFile struct{ fd int }

// openRaw opens path for reading; a path that is not a regular file
// (after following links) is refused without blocking (a FIFO) or reading.
func openRaw(path string) (rawFile, int64, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return rawFile{}, 0, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return rawFile{}, 0, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return rawFile{}, 0, &fsx.NotRegularError{Path: path, Kind: "special file"}
	}
	return rawFile{fd}, st.Size, nil
}

// Read reads into p; 0 bytes means the end of the file.
func (f rawFile) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(f.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if n < 0 {
			n = 0
		}
		return n, err
	}
}

func (f rawFile) Close() { syscall.Close(f.fd) }

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
