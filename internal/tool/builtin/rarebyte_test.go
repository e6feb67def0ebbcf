package builtin

import (
	"bytes"
	"math/rand"
	"testing"
)

func TestRareFinder(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	alpha := []byte("ab k\nZ")
	for i := 0; i < 5000; i++ {
		h := make([]byte, rng.Intn(40))
		for j := range h {
			h[j] = alpha[rng.Intn(len(alpha))]
		}
		n := make([]byte, 1+rng.Intn(4))
		for j := range n {
			n[j] = alpha[rng.Intn(len(alpha))]
		}
		if got, want := newRareFinder(n).index(h), bytes.Index(h, n); got != want {
			t.Fatalf("index(%q, %q) = %d, want %d", h, n, got, want)
		}
	}
}
