package llm

import (
	"reflect"
	"testing"
	"unsafe"
)

// DecodeMessageShared yields the values DecodeMessage yields for every
// fixture, and its strings without escapes are views of the input (no
// second copy of a resumed session's text) while DecodeMessage copies.
func TestDecodeMessageShared(t *testing.T) {
	lines := roundtripLines(t)
	for _, l := range benchLines() {
		lines = append(lines, l)
	}
	for _, line := range lines {
		want, werr := DecodeMessage(line)
		got, gerr := DecodeMessageShared(append([]byte(nil), line...))
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(want, got) {
			t.Errorf("%s\nDecodeMessage %#v, %v\nDecodeMessageShared %#v, %v", line, want, werr, got, gerr)
		}
	}

	in := []byte(`{"role":"user","content":[{"type":"text","text":"plain text"},{"type":"text","text":"with\nescape"}],"timestamp":1}`)
	inside := func(s string) bool {
		p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(&in[0]))
		return p >= lo && p < lo+uintptr(len(in))
	}
	texts := func(m Message) []string {
		var out []string
		for _, b := range m.(*UserMessage).Content.Blocks {
			out = append(out, b.(*TextContent).Text)
		}
		return out
	}
	m, err := DecodeMessageShared(in)
	if err != nil {
		t.Fatal(err)
	}
	ts := texts(m)
	if ts[0] != "plain text" || !inside(ts[0]) {
		t.Errorf("shared decode copied a string without escapes (%q)", ts[0])
	}
	if ts[1] != "with\nescape" || inside(ts[1]) {
		t.Errorf("an escaped string must be unescaped into its own memory (%q)", ts[1])
	}
	m, _ = DecodeMessage(in)
	if ts := texts(m); inside(ts[0]) {
		t.Error("DecodeMessage returned a view of its input; callers may reuse their buffers")
	}
}
