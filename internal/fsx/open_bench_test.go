package fsx_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relay-agent/relay/internal/fsx"
)

func BenchmarkOpen(b *testing.B) {
	p := filepath.Join(b.TempDir(), "f")
	os.WriteFile(p, []byte("x"), 0o644)
	b.Run("os.Open", func(b *testing.B) {
		for b.Loop() {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
	b.Run("OpenRegular", func(b *testing.B) {
		for b.Loop() {
			f, err := fsx.OpenRegular(p)
			if err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
}
