package session

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// The envelope scanner must accept every valid JSON object and find the
// same members the standard decoder does; on anything else it must not
// panic.
func FuzzScanObject(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1}`, `{"type":"message","id":"x","parentId":null,"message":{"role":"user","content":"a\"b\\","timestamp":1}}`,
		`{"a":[1,{"b":"}"}],"c":"\u2028","d":true,"e":false,"f":-1.5e3}`, ` { "k" : "v" } `, `{"a":"\\\\"}`,
		`{"a":`, `{"a":"`, `[1]`, `{"a" 1}`, `{"a":tru}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := scanObject(b)
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
			seen[mem.key] = true
			if _, ok := m[mem.key]; !ok {
				t.Fatalf("member %q not in object %q", mem.key, b)
			}
			if !json.Valid(b[mem.valStart:mem.valEnd]) {
				t.Fatalf("member %q value span %q invalid", mem.key, b[mem.valStart:mem.valEnd])
			}
		}
		if len(seen) != len(m) {
			t.Fatalf("members %v vs %v in %q", seen, m, b)
		}
	})
}

// Reading never panics, whatever the bytes (migration included), and the
// context can always be built from what was read.
func FuzzParseSession(f *testing.F) {
	f.Add([]byte(hdr + "\n" + line("a", "", "x") + "\n"))
	f.Add([]byte(`{"type":"session","id":"v1"}` + "\n" + `{"type":"message","message":{"role":"hookMessage"}}` + "\n" + `{"type":"compaction","firstKeptEntryIndex":1,"summary":"s"}`))
	f.Add([]byte(hdr + "\n" + `{"type":"context_edit","id":"e","parentId":null,"targetId":"a","replacement":{"content":5}}` + "\n\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fd, err := parseSession("fuzz.jsonl", b)
		if err != nil || fd.header == nil {
			return
		}
		m := newManager("/p", "", false)
		m.header = fd.header
		for _, e := range fd.entries {
			m.index(e)
		}
		if n := len(m.entries); n > 0 {
			m.leaf = m.entries[n-1].ID
		}
		m.BuildSessionContext()
		m.Tree()
	})
}
