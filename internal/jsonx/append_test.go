package jsonx

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestAppendStringMatchesEncoder(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "ctl\x01\x1f\n\r\t\b\f", "<html>&", "bad\xffutf8", "sep\u2028\u2029", "emoji 😀 ü"} {
		want, _ := marshal(s)
		if got := string(AppendString(nil, s)); got != string(want) {
			t.Errorf("%q: got %s want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a\"b\\c\x00\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := marshal(s)
		if got := string(AppendString(nil, s)); got != string(want) {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	})
}

// marshal is json.Marshal without HTML escaping, as relay writes JSON.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
