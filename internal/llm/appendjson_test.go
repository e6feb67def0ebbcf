package llm

import (
	"bufio"
	"bytes"
	"os"
	"testing"
)

// AppendJSON writes what encoding/json writes for the same values through
// their MarshalJSON methods (compacting each output): every message of
// testdata/roundtrip.jsonl, as one slice and one by one, block arrays with
// unknown blocks written with spaces, nil elements and typed nil pointers.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	f, err := os.Open("testdata/roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var msgs []Message
	var blocks []Block
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m, err := DecodeMessage(bytes.Clone(sc.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", sc.Bytes(), err)
		}
		msgs = append(msgs, m)
		if a, ok := m.(*AssistantMessage); ok {
			blocks = append(blocks, a.Content...)
		}
	}
	spaced, err := DecodeBlock([]byte(`{ "type" : "future", "x" : [ 1, 2 ] }`))
	if err != nil {
		t.Fatal(err)
	}
	blocks = append(blocks, spaced, nil, (*TextContent)(nil), &TextContent{Text: "<&> \u2028"})
	msgs = append(msgs, nil, (*UserMessage)(nil))
	values := []any{Blocks(blocks), []Block(blocks), Blocks(nil), []Block(nil), Blocks{}, Messages(msgs), []Message(msgs),
		Messages(nil), []Message(nil), "plain <string>", 42}
	for _, m := range msgs {
		values = append(values, m)
	}
	for _, b := range blocks {
		values = append(values, b)
	}
	for i, v := range values {
		// The pre-AppendJSON encodings: encoding/json over the slice types
		// without methods, MarshalJSON of Blocks and Messages as it was.
		var want []byte
		switch v := v.(type) {
		case Blocks:
			want = []byte("[]")
			if v != nil {
				want, err = Marshal([]Block(v))
			}
		case Messages:
			want = []byte("[]")
			if v != nil {
				want, err = Marshal([]Message(v))
			}
		default:
			want, err = Marshal(v)
		}
		if err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		got, err := AppendJSON([]byte("prefix"), v)
		if err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		if !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Errorf("value %d (%T):\n got %s\nwant prefix%s", i, v, got, want)
		}
	}
}
