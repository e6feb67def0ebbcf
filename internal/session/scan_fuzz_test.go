package session

import (
	"testing"
)

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
