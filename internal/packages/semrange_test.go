package packages

import "testing"

func TestSatisfies(t *testing.T) {
	for _, tc := range []struct {
		v, r      string
		ok, known bool
	}{
		{"1.2.0", "^1.2", true, true},
		{"1.9.9", "^1.2", true, true},
		{"2.0.0", "^1.2", false, true},
		{"1.1.9", "^1.2", false, true},
		{"0.2.5", "^0.2.3", true, true},
		{"0.3.0", "^0.2.3", false, true},
		{"0.0.3", "^0.0.3", true, true},
		{"0.0.4", "^0.0.3", false, true},
		{"0.9.0", "^0", true, true},
		{"1.0.0", "^0", false, true},
		{"1.2.9", "~1.2.3", true, true},
		{"1.3.0", "~1.2.3", false, true},
		{"1.9.0", "~1", true, true},
		{"1.2.3", "1.2.3", true, true},
		{"1.2.4", "1.2.3", false, true},
		{"1.2.4", "1.2.x", true, true},
		{"1.3.0", "1.2.*", false, true},
		{"7.0.0", "*", true, true},
		{"7.0.0", "", true, true},
		{"1.5.0", ">=1.2.0 <2", true, true},
		{"2.0.0", ">=1.2.0 <2", false, true},
		{"1.5.0", ">= 1.2.0 < 2", true, true},
		{"3.1.0", "^1.0.0 || ^3.0.0", true, true},
		{"2.1.0", "^1.0.0 || ^3.0.0", false, true},
		{"1.5.0", "1.2 - 1.6", true, true},
		{"1.6.9", "1.2 - 1.6", true, true},
		{"1.7.0", "1.2 - 1.6", false, true},
		{"1.2.1", ">1.2", false, true},
		{"1.3.0", ">1.2", true, true},
		{"1.2.9", "<=1.2", true, true},
		{"1.3.0", "<=1.2", false, true},
		// Prereleases match only a range naming one of the same version.
		{"2.0.0-beta.1", "^1.0.0", false, true},
		{"1.3.0-beta.1", "^1.2.0", false, true},
		{"1.3.0-beta.2", "^1.3.0-beta.1", true, true},
		{"1.3.0-beta.10", ">=1.3.0-beta.2", true, true},
		{"1.3.0-alpha", ">=1.3.0-beta.2", false, true},
		// Dist-tags are not ranges: only the registry can tell.
		{"1.0.0", "latest", false, false},
		{"1.0.0", "next", false, false},
	} {
		ok, known := satisfies(tc.v, tc.r)
		if ok != tc.ok || known != tc.known {
			t.Errorf("satisfies(%q, %q) = %v %v, want %v %v", tc.v, tc.r, ok, known, tc.ok, tc.known)
		}
	}
}
