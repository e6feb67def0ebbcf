package changelog

import (
	"os"
	"testing"
)

func TestMatchesRoot(t *testing.T) {
	root, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(root) != Text() {
		t.Fatal("internal/changelog/CHANGELOG.md differs from the root CHANGELOG.md: run go generate ./internal/changelog")
	}
}

func TestLatest(t *testing.T) {
	if got := Latest(); got != "0.1.0" {
		t.Fatalf("Latest() = %q", got)
	}
}
