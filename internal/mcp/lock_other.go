//go:build !unix

package mcp

import "os"

// tryLock is a no-op where flock is unavailable: refreshes are then only
// serialized within one process.
func tryLock(*os.File) (bool, error) { return false, nil }
