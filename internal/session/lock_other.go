//go:build !unix

package session

import "os"

// lockFile is a no-op where flock is unavailable. Windows already refuses
// some concurrent opens; a LockFileEx version is future work.
func lockFile(f *os.File) error { return nil }
