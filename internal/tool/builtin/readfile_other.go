//go:build !unix

package builtin

import (
	"io"
	"os"
)

// rawFile reads a file for grep.
type rawFile struct{ f *os.File }

// openRaw opens path for reading when it is a regular file.
func openRaw(path string) (rawFile, int64, error) {
	f, st, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return rawFile{}, 0, err
	}
	return rawFile{f}, st.Size(), nil
}

// Read reads into p; 0 bytes means the end of the file.
func (f rawFile) Read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

func (f rawFile) Close() { f.f.Close() }

const oNonblock = 0

func linkCount(os.FileInfo) uint64 { return 1 }

func keepOwner(*os.File, os.FileInfo) {}

func changeTime(os.FileInfo) int64 { return 0 }
