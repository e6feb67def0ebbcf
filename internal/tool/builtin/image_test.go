package builtin

import (
	"bytes"
	"image"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
)

func TestPrepareImage(t *testing.T) {
	small, big := pngBytes(t, 40, 20), pngBytes(t, 3000, 1500)
	var bmpBuf bytes.Buffer
	if err := bmp.Encode(&bmpBuf, image.NewNRGBA(image.Rect(0, 0, 10, 10))); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		data       []byte
		mime       string
		autoResize bool
		maxW, maxH int
		wantMime   string
		wantW      int
		wantHint   string
		wantErr    string
	}{
		{"small as is", small, "image/png", true, 0, 0, "image/png", 40, "", ""},
		{"big scaled", big, "image/png", true, 0, 0, "image/png", 2000,
			"[Image: original 3000x1500, displayed at 2000x1000. Multiply coordinates by 1.50 to map to original image.]", ""},
		{"big kept without autoResize", big, "image/png", false, 0, 0, "image/png", 3000, "", ""},
		{"custom limits", small, "image/png", true, 20, 20, "image/png", 20,
			"[Image: original 40x20, displayed at 20x10. Multiply coordinates by 2.00 to map to original image.]", ""},
		{"bmp to png", bmpBuf.Bytes(), "image/bmp", false, 0, 0, "image/png", 10, "", ""},
		{"broken", []byte("GIF89a-broken"), "image/gif", true, 0, 0, "", 0, "", "could not decode image/gif"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := PrepareImage(tt.data, tt.mime, tt.autoResize, tt.maxW, tt.maxH)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.MimeType != tt.wantMime || p.Hint != tt.wantHint {
				t.Fatalf("got %s %q, want %s %q", p.MimeType, p.Hint, tt.wantMime, tt.wantHint)
			}
			cfg, _, err := image.DecodeConfig(bytes.NewReader(p.Data))
			if err != nil || cfg.Width != tt.wantW {
				t.Fatalf("width %d (%v), want %d", cfg.Width, err, tt.wantW)
			}
		})
	}
}
