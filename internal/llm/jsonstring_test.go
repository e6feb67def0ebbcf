package llm

import (
	"testing"
)

func TestAppendJSONStringMatchesEncoder(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "ctl\x01\x1f\n\r\t\b\f", "<html>&", "bad\xffutf8", "sep\u2028\u2029", "emoji 😀 ü"} {
		want, _ := Marshal(s)
		if got := string(AppendJSONString(nil, s)); got != string(want) {
			t.Errorf("%q: got %s want %s", s, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	f.Add("a\"b\\c\x00\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := Marshal(s)
		if got := string(AppendJSONString(nil, s)); got != string(want) {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	})
}
