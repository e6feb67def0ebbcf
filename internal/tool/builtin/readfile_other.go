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
