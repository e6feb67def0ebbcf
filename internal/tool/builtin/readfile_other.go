//go:build !unix

package builtin

import "os"

// readInto reads the whole file at path into the pooled buffer.
func readInto(path string, bp *[]byte) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	*bp = data
	return data, nil
}

const oNonblock = 0

func linkCount(os.FileInfo) uint64 { return 1 }

func keepOwner(*os.File, os.FileInfo) {}

func changeTime(os.FileInfo) int64 { return 0 }
