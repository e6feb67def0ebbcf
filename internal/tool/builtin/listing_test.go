package builtin

import (
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/tool"
)

func TestListResult(t *testing.T) {
	big := strings.Repeat("x", 1000)
	many := make([]string, 100)
	for i := range many {
		many[i] = big
	}
	type det struct {
		Truncated bool `json:"truncated"`
	}
	mk := func(tr *tool.Truncation) any { return det{Truncated: tr != nil} }
	tests := []struct {
		name       string
		lines      []string
		limit, ln  string
		wantSuffix string
		wantDet    string
	}{
		{"plain", []string{"a", "b"}, "", "", "a\nb", ""},
		{"limit", []string{"a"}, "L", "", "a\n\n[L]", `{"truncated":false}`},
		{"line", []string{"a"}, "", "N", "a\n\n[N]", `{"truncated":false}`},
		{"all in order", many, "L", "N", "\n\n[L. 50.0KB limit reached. N]", `{"truncated":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := listResult(tt.lines, tt.limit, tt.ln, mk)
			if !strings.HasSuffix(text(r), tt.wantSuffix) {
				t.Errorf("text ends %q, want %q", text(r)[max(0, len(text(r))-60):], tt.wantSuffix)
			}
			if tt.wantDet == "" {
				if r.Details != nil {
					t.Errorf("details %v, want none", r.Details)
				}
				return
			}
			if d := detailsJSON(t, r); d != tt.wantDet {
				t.Errorf("details %s, want %s", d, tt.wantDet)
			}
		})
	}
}

func TestCodecFor(t *testing.T) {
	for _, m := range []string{"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"} {
		if c, err := codecFor(m); err != nil || c.decode == nil || c.config == nil {
			t.Errorf("%s: codec %v, err %v", m, c, err)
		}
	}
	if _, err := decodeConfig(nil, "image/tiff"); err == nil || err.Error() != "unsupported image type image/tiff" {
		t.Errorf("tiff config err %v", err)
	}
	if _, err := decodeImage(nil, "image/tiff"); err == nil || err.Error() != "unsupported image type image/tiff" {
		t.Errorf("tiff decode err %v", err)
	}
}
