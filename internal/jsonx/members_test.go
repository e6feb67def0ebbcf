package jsonx

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// The envelope scanner must accept every valid JSON object and find the
// same members the standard decoder does; on anything else it must not
// panic.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1}`, `{"type":"message","id":"x","parentId":null,"message":{"role":"user","content":"a\"b\\","timestamp":1}}`,
		`{"a":[1,{"b":"}"}],"c":"\u2028","d":true,"e":false,"f":-1.5e3}`, ` { "k" : "v" } `, `{"a":"\\\\"}`,
		`{"a":`, `{"a":"`, `[1]`, `{"a" 1}`, `{"a":tru}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := Members(b)
		var m map[string]json.RawMessage
		// Invalid UTF-8 in member names is replaced by the decoder; the
		// scanner keeps the bytes. Both are fine for the ASCII names we use.
		if !utf8.Valid(b) || json.Unmarshal(b, &m) != nil || m == nil {
			return
		}
		if err != nil {
			t.Fatalf("valid object rejected: %v: %q", err, b)
		}
		seen := map[string]bool{}
		for _, mem := range ms {
			seen[mem.Key] = true
			if _, ok := m[mem.Key]; !ok {
				t.Fatalf("member %q not in object %q", mem.Key, b)
			}
			if !json.Valid(b[mem.ValStart:mem.ValEnd]) {
				t.Fatalf("member %q value span %q invalid", mem.Key, b[mem.ValStart:mem.ValEnd])
			}
		}
		if len(seen) != len(m) {
			t.Fatalf("members %v vs %v in %q", seen, m, b)
		}
	})
}
