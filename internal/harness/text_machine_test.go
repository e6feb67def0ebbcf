package harness

import "testing"

func TestMachineTextIsNotTheDevelopers(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"[harness:evidence] Completion check", true},
		{"  [laya:plan] route to strong", true},
		{"[laya:learn] Do not change any file", true},
		{"[note] do not change any file", false},
		{"Do not change any file", false},
	} {
		if got := isHarnessText(tc.text); got != tc.want {
			t.Errorf("%q: %v", tc.text, got)
		}
	}
}
