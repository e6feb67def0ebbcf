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

func TestStartup(t *testing.T) {
	entries := parse("# Changelog\n\n## Unreleased\n\n- next\n\n## [0.3.0] - 2026-02-01\n\n- three\n\n## 0.2.1\n\n- two one\n\n## v0.2.0\n\n- two\n")
	if len(entries) != 3 || entries[0].Version != "0.3.0" || entries[2].Version != "0.2.0" {
		t.Fatalf("entries %+v", entries)
	}
	tests := []struct {
		last, show, record string
	}{
		{"", "", "0.3.0"},        // fresh install: record only
		{"garbage", "", "0.3.0"}, // unreadable: as fresh
		{"0.3.0", "", ""},        // up to date
		{"0.4.0-dev", "", ""},    // newer than the changelog
		{"0.2.0", "## [0.3.0] - 2026-02-01\n\n- three\n\n## 0.2.1\n\n- two one", "0.3.0"},
		{"0.2.1", "## [0.3.0] - 2026-02-01\n\n- three", "0.3.0"},
	}
	for _, tt := range tests {
		show, record := startup(entries, tt.last)
		if show != tt.show || record != tt.record {
			t.Errorf("startup(%q) = %q, %q; want %q, %q", tt.last, show, record, tt.show, tt.record)
		}
	}
	if show, record := startup(nil, "0.1.0"); show != "" || record != "" {
		t.Errorf("no entries: %q %q", show, record)
	}
}
