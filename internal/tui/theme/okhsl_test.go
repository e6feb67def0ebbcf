package theme

import "testing"

func TestOKHSL(t *testing.T) {
	// Reference points: greys map to equal channels, and known sRGB
	// primaries round-trip through their OKHSL coordinates.
	r, g, b := okhslToRGB(0, 0, 0.5)
	if r != g || g != b || r < 110 || r > 125 {
		t.Errorf("grey 50%% = %d %d %d", r, g, b)
	}
	if r, g, b := okhslToRGB(0, 0, 1); r != 255 || g != 255 || b != 255 {
		t.Error("white")
	}
	// Fully saturated red in OKHSL: h≈29.23, s=1, l≈0.568 is #ff0000.
	r, g, b = okhslToRGB(29.2339, 1, 0.5681)
	if r < 250 || g > 8 || b > 8 {
		t.Errorf("red = %d %d %d", r, g, b)
	}
	// oklch(62.8% 0.2577 29.23) is #ff0000.
	r, g, b = oklchToRGB(0.628, 0.2577, 29.23)
	if r < 250 || g > 8 || b > 8 {
		t.Errorf("oklch red = %d %d %d", r, g, b)
	}
}
