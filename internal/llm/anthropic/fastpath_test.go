package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/relay-agent/relay/internal/jsonx"
)

func TestFastDeltaMatchesEncodingJSON(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`, true},
		{`{ "type" : "content_block_delta" , "index" : 12 , "delta" : { "type" : "thinking_delta" , "thinking" : "a\nb\t\"c\" \\ \/ \u00e9 \ud83d\ude00 \ud800x" } }`, true},
		{`{"delta":{"partial_json":"{\"path\": \"a","type":"input_json_delta"},"index":3,"type":"content_block_delta"}`, true},
		{`{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"EqQB=="}}`, true},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}`, true},
		// Invalid UTF-8 becomes U+FFFD, as encoding/json makes it.
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"bad ` + "\xff\xfe" + ` bytes"}}`, true},
		// Shapes left to encoding/json:
		{`{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"x":1}}}`, false},
		{`{"type":"content_block_delta","index":0,"extra":1,"delta":{"type":"text_delta","text":"x"}}`, false},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}} trailing`, false},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x`, false},
		{`{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}`, false},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"bad \q"}}`, false},
	}
	var p jsonx.Scanner
	for _, tt := range tests {
		idx, typ, val, ok := fastDelta(&p, []byte(tt.in))
		if ok != tt.ok {
			t.Errorf("%s: ok = %v", tt.in, ok)
			continue
		}
		if !ok {
			continue
		}
		var w wireEvent
		if err := json.Unmarshal([]byte(tt.in), &w); err != nil {
			t.Fatal(err)
		}
		want := w.Delta.Text + w.Delta.Thinking + w.Delta.PartialJSON + w.Delta.Signature
		if idx != w.Index || typ != w.Delta.Type || string(val) != want {
			t.Errorf("%s: got %d %q %q, want %d %q %q", tt.in, idx, typ, val, w.Index, w.Delta.Type, want)
		}
	}
}
