package models

import (
	"bytes"
	"path/filepath"
	"testing"
)

func TestFormatListGolden(t *testing.T) {
	r, _ := registryFor(t, "ok-ollama.json", nil)
	cases := []struct{ name, search string }{
		{"all-anthropic", "anthropic"},
		{"fuzzy-terms", "gem flash"},
		{"subsequence", "opus48"},
		{"ollama", "qwen2.5-coder"},
		{"nomatch", "zzzz-no-model"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := FormatList(&b, r.All(), c.search); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "list", c.name+".golden"), b.String())
		})
	}
	var b bytes.Buffer
	FormatList(&b, nil, "")
	golden(t, filepath.Join("testdata", "list", "empty.golden"), b.String())
}

func TestFormatTokens(t *testing.T) {
	cases := map[int]string{0: "0", 512: "512", 4096: "4.1K", 8192: "8.2K", 16000: "16K", 16384: "16.4K",
		65536: "65.5K", 131072: "131.1K", 200000: "200K", 1000000: "1M", 1048576: "1.0M", 1050000: "1.1M", 2000000: "2M"}
	for n, want := range cases {
		if got := FormatTokens(n); got != want {
			t.Errorf("FormatTokens(%d) = %q, want %q", n, got, want)
		}
	}
}
