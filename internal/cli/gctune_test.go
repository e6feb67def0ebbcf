package cli

import "testing"

func TestGCPercent(t *testing.T) {
	for _, tt := range []struct {
		size int64
		want int
	}{
		{0, 100}, {gcTuneMin - 1, 100}, {gcTuneMin, 85}, {56 << 20, 46}, {144 << 20, 25}, {1 << 40, 25},
	} {
		if got := gcPercent(tt.size); got != tt.want {
			t.Errorf("gcPercent(%d) = %d, want %d", tt.size, got, tt.want)
		}
	}
}
