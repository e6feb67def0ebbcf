package export

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/relay-agent/relay/internal/session"
)

// BenchmarkWriteHTML renders a 10 MB / 4,000-entry session (the shape of
// bench/export.sh's 50 MB one) to a discarded page.
func BenchmarkWriteHTML(b *testing.B) {
	t := &testing.T{}
	in := filepath.Join(b.TempDir(), "s.jsonl")
	writeBigSession(t, in, 10, 4000)
	s, err := session.Load(in)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(10 << 20)
	b.ResetTimer()
	for range b.N {
		if err := WriteHTML(io.Discard, s, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
