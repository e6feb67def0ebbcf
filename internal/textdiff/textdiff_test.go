package textdiff

import (
	"strings"
	"testing"
)

func TestDisplay(t *testing.T) {
	var a, b []string
	for i := 1; i <= 20; i++ {
		a = append(a, "line "+strings.Repeat("x", i%3))
	}
	b = append(b, a...)
	b[9] = "changed"
	old := strings.Join(a, "\n") + "\n"
	nw := strings.Join(b, "\n") + "\n"
	d, first := Display(old, nw, 4)
	if first != 10 {
		t.Errorf("firstChanged = %d, want 10", first)
	}
	want := strings.Join([]string{
		"    ...",
		"  6 " + a[5], "  7 " + a[6], "  8 " + a[7], "  9 " + a[8],
		"-10 " + a[9], "+10 changed",
		" 11 " + a[10], " 12 " + a[11], " 13 " + a[12], " 14 " + a[13],
		"    ...",
	}, "\n")
	if d != want {
		t.Errorf("display diff:\n%s\nwant:\n%s", d, want)
	}
	if u := Unified("f.txt", old, nw, 4); !strings.HasPrefix(u, "--- f.txt\n+++ f.txt\n@@ -6,9 +6,9 @@\n") {
		t.Errorf("unified:\n%s", u)
	}
	if d, f := Display("same\n", "same\n", 4); d != "" || f != 0 {
		t.Errorf("equal texts: %q %d", d, f)
	}
}
