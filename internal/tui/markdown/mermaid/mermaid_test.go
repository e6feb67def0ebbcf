package mermaid

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden draws every testdata/*.mmd and compares the art (and the
// warnings) with its .golden file.
func TestGolden(t *testing.T) {
	srcs, _ := filepath.Glob(filepath.Join("testdata", "*.mmd"))
	if len(srcs) == 0 {
		t.Fatal("no testdata")
	}
	for _, path := range srcs {
		name := strings.TrimSuffix(filepath.Base(path), ".mmd")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Render(string(src))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(a.Plain(), "\n") + "\n"
			for _, w := range a.Warnings {
				got += "warning: " + w + "\n"
			}
			gp := strings.TrimSuffix(path, ".mmd") + ".golden"
			if *update {
				os.WriteFile(gp, []byte(got), 0o644)
				return
			}
			want, err := os.ReadFile(gp)
			if err != nil {
				t.Fatalf("missing golden (run with -update): %v", err)
			}
			if got != string(want) {
				t.Errorf("differs:\n--- got\n%s--- want\n%s", got, want)
			}
			checkArt(t, a)
		})
	}
}

// checkArt: spans join to the plain rows, Width is the widest row, and no
// row ends in blanks.
func checkArt(t *testing.T, a *Art) {
	t.Helper()
	w := 0
	for i, row := range a.Plain() {
		w = max(w, ansi.StringWidth(row))
		if strings.TrimRight(row, " ") != row {
			t.Errorf("row %d ends in blanks: %q", i, row)
		}
		for _, s := range a.Lines[i] {
			if s.Class == None && strings.TrimSpace(s.Text) != "" {
				t.Errorf("row %d: ink classed None: %q", i, s.Text)
			}
		}
	}
	if w != a.Width {
		t.Errorf("Width %d, widest row %d", a.Width, w)
	}
}

func TestKindAndUnsupported(t *testing.T) {
	tests := []struct{ src, kind string }{
		{"graph TD\nA-->B", "flowchart"},
		{"%% comment\n\nflowchart LR\nA", "flowchart"},
		{"sequenceDiagram\nA->>B: x", "sequence"},
		{"classDiagram\nclass A", "classDiagram"},
		{"  \n", ""},
	}
	for _, tt := range tests {
		if got := Kind(tt.src); got != tt.kind {
			t.Errorf("Kind(%q) = %q, want %q", tt.src, got, tt.kind)
		}
	}
	if _, err := Render("pie title Pets\n\"Dogs\" : 386"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("pie: err = %v, want ErrUnsupported", err)
	}
	for _, src := range []string{"", "graph TD", "graph TD\n-->", "sequenceDiagram\n"} {
		if _, err := Render(src); err == nil {
			t.Errorf("Render(%q) drew something", src)
		}
	}
}

// Sources that stream in draw whatever prefix is readable, never panic.
func TestEveryPrefix(t *testing.T) {
	srcs, _ := filepath.Glob(filepath.Join("testdata", "*.mmd"))
	for _, path := range srcs {
		src, _ := os.ReadFile(path)
		for i := range len(src) {
			a, err := Render(string(src[:i]))
			if err == nil {
				checkArt(t, a)
			}
		}
	}
}

// Hostile sizes are refused instead of drawn.
func TestLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("graph TD\n")
	for i := range 300 {
		b.WriteString("n" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i) + " --> m" + itoa(i) + "\n")
	}
	if _, err := Render(b.String()); err == nil {
		t.Error("300 edges with 600 nodes drawn")
	}
	long := "graph LR\nA[" + strings.Repeat("w", 5000) + "] --> B"
	a, err := Render(long)
	if err != nil {
		t.Fatal(err)
	}
	if a.Width > 2*maxLabel {
		t.Errorf("a 5000-cell label drew %d cells wide", a.Width)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

// BenchmarkFlowchart lays out a 120-node diagram, as a streaming answer
// does once per frame while the block grows.
func BenchmarkFlowchart(b *testing.B) {
	var s strings.Builder
	s.WriteString("graph TD\n")
	for i := range 120 {
		s.WriteString("  n" + itoa(i) + "[node " + itoa(i) + "] --> n" + itoa((i*7+3)%120) + "\n")
	}
	src := s.String()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(src); err != nil {
			b.Fatal(err)
		}
	}
}
