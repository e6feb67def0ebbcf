package session

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	// Listing caches go to a temp dir, never the user's cache.
	dir, err := os.MkdirTemp("", "relay-session-index-*")
	if err != nil {
		panic(err)
	}
	indexDir = func() string { return dir }
	minCachedBytes = 0 // exercise the cache on small test stores
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
