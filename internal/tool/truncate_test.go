package tool

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

func TestFormatSize(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{
		{0, "0B"}, {1023, "1023B"}, {1024, "1.0KB"}, {1280, "1.3KB"}, {51200, "50.0KB"},
		{1024*1024 - 1, "1024.0KB"}, {1024 * 1024, "1.0MB"}, {5 * 1024 * 1024 / 2, "2.5MB"},
	} {
		if got := FormatSize(c.n); got != c.want {
			t.Errorf("FormatSize(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// refHead and refTail restate the §10 rules over split lines; the fast
// implementations must agree with them on random inputs.
func refHead(content string, l Limits) Truncation {
	l = l.norm()
	lines := strings.Split(content, "\n")
	tr := Truncation{TotalLines: len(lines), TotalBytes: len(content), MaxLines: l.MaxLines, MaxBytes: l.MaxBytes}
	if len(lines) <= l.MaxLines && len(content) <= l.MaxBytes {
		tr.Content, tr.OutputLines, tr.OutputBytes = content, len(lines), len(content)
		return tr
	}
	tr.Truncated = true
	if len(lines[0]) > l.MaxBytes {
		tr.TruncatedBy, tr.FirstLineExceedsLimit = "bytes", true
		return tr
	}
	var out []string
	n, by := 0, "lines"
	for i := 0; i < len(lines) && i < l.MaxLines; i++ {
		b := len(lines[i])
		if i > 0 {
			b++
		}
		if n+b > l.MaxBytes {
			by = "bytes"
			break
		}
		out = append(out, lines[i])
		n += b
	}
	if len(out) >= l.MaxLines && n <= l.MaxBytes {
		by = "lines"
	}
	tr.Content = strings.Join(out, "\n")
	tr.TruncatedBy, tr.OutputLines, tr.OutputBytes = by, len(out), len(tr.Content)
	return tr
}

func refTail(content string, l Limits) Truncation {
	l = l.norm()
	lines := strings.Split(content, "\n")
	tr := Truncation{TotalLines: len(lines), TotalBytes: len(content), MaxLines: l.MaxLines, MaxBytes: l.MaxBytes}
	if len(lines) <= l.MaxLines && len(content) <= l.MaxBytes {
		tr.Content, tr.OutputLines, tr.OutputBytes = content, len(lines), len(content)
		return tr
	}
	tr.Truncated = true
	var out []string
	n, by := 0, "lines"
	for i := len(lines) - 1; i >= 0 && len(out) < l.MaxLines; i-- {
		b := len(lines[i])
		if len(out) > 0 {
			b++
		}
		if n+b > l.MaxBytes {
			by = "bytes"
			any := false
			for _, o := range out {
				any = any || o != ""
			}
			if !any {
				sep := 0
				if len(out) > 0 {
					sep = 1
				}
				budget := max(0, l.MaxBytes-n-sep)
				line := lines[i]
				start := len(line) - budget
				for start < len(line) && line[start]&0xc0 == 0x80 {
					start++
				}
				out = append([]string{line[start:]}, out...)
				n += len(line[start:]) + sep
				tr.LastLinePartial = true
			}
			break
		}
		out = append([]string{lines[i]}, out...)
		n += b
	}
	if len(out) >= l.MaxLines && n <= l.MaxBytes {
		by = "lines"
	}
	tr.Content = strings.Join(out, "\n")
	tr.TruncatedBy, tr.OutputLines, tr.OutputBytes = by, len(out), len(tr.Content)
	return tr
}

func TestTruncateMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "bb", "é", "\n", "\n", "xyz", "€"}
	for iter := 0; iter < 3000; iter++ {
		var b strings.Builder
		for n := rng.Intn(60); n > 0; n-- {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		s := b.String()
		l := Limits{MaxLines: 1 + rng.Intn(8), MaxBytes: 1 + rng.Intn(30)}
		if got, want := TruncateHead(s, l), refHead(s, l); got != want {
			t.Fatalf("head %q %+v:\n got %+v\nwant %+v", s, l, got, want)
		}
		if got, want := TruncateTail(s, l), refTail(s, l); got != want {
			t.Fatalf("tail %q %+v:\n got %+v\nwant %+v", s, l, got, want)
		}
	}
}

func TestTruncationJSON(t *testing.T) {
	b, _ := json.Marshal(TruncateHead("a\nb", Limits{}))
	want := `{"content":"a\nb","truncated":false,"truncatedBy":null,"totalLines":2,"totalBytes":3,"outputLines":2,"outputBytes":3,"lastLinePartial":false,"firstLineExceedsLimit":false,"maxLines":2000,"maxBytes":51200}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	tr := TruncateTail(strings.Repeat("x\n", 3000), Limits{})
	b, _ = json.Marshal(tr)
	var back Truncation
	if err := json.Unmarshal(b, &back); err != nil || back != tr || back.TruncatedBy != "lines" {
		t.Errorf("round trip: %v %+v", err, back)
	}
}

func TestTruncateLine(t *testing.T) {
	if s, cut := TruncateLine(strings.Repeat("é", 600), 500); !cut || s != strings.Repeat("é", 500)+"... [truncated]" {
		t.Errorf("got %q %v", s, cut)
	}
	if s, cut := TruncateLine("short", 500); cut || s != "short" {
		t.Errorf("got %q %v", s, cut)
	}
}
