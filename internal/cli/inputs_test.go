package cli

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFileArg(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("small.png", pngBytes(t, 4, 3))
	write("big.png", pngBytes(t, 3000, 1500))
	write("bad.gif", []byte("GIF89a not really"))
	write("bom.txt", []byte("\ufeffhello"))
	write("empty.txt", nil)
	on := imageOptions{autoResize: true}
	tests := []struct {
		name     string
		opt      imageOptions
		text     string // expected text, with ABS for the file's path
		image    bool
		wantW    int
		contains string
	}{
		{"small.png", on, "<file name=\"ABS\"></file>\n", true, 4, ""},
		{"big.png", on, "", true, 2000, "[Image: original 3000x1500, displayed at 2000x1000."},
		{"big.png", imageOptions{}, "<file name=\"ABS\"></file>\n", true, 3000, ""},
		{"big.png", imageOptions{autoResize: true, block: true}, "", false, 0, "images.blockImages"},
		{"bad.gif", on, "", false, 0, "[Image could not be processed: could not decode image/gif"},
		{"bom.txt", on, "<file name=\"ABS\">\nhello\n</file>\n", false, 0, ""},
		{"empty.txt", on, "", false, 0, ""},
	}
	for _, tt := range tests {
		abs := filepath.Join(dir, tt.name)
		text, img, err := fileArg(tt.name, dir, tt.opt)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if tt.text != "" && text != strings.ReplaceAll(tt.text, "ABS", abs) {
			t.Errorf("%s: text %q", tt.name, text)
		}
		if tt.contains != "" && (!strings.Contains(text, tt.contains) || !strings.HasPrefix(text, "<file name=\""+abs+"\">")) {
			t.Errorf("%s: text %q, want it to contain %q", tt.name, text, tt.contains)
		}
		if (img != nil) != tt.image {
			t.Fatalf("%s: image %v, want %v", tt.name, img != nil, tt.image)
		}
		if img != nil {
			raw, _ := base64.StdEncoding.DecodeString(img.Data)
			cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
			if err != nil || cfg.Width != tt.wantW {
				t.Errorf("%s: sent width %d (%v), want %d", tt.name, cfg.Width, err, tt.wantW)
			}
		}
	}
	if _, _, err := fileArg("missing.txt", dir, on); err == nil {
		t.Error("missing file: no error")
	}
}
