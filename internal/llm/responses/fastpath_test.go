package responses

import (
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

func TestFastDecoderTakesEvents(t *testing.T) {
	var p llm.Scanner
	var e event
	var idx int
	for _, c := range []struct {
		data string
		ok   bool
	}{
		{`{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi\n","logprobs":[],"obfuscation":"x"}`, true},
		{`{"type":"response.output_item.added","sequence_number":2,"output_index":1,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"ls"}}`, true},
		{`{"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","status":"completed","error":null,"incomplete_details":null,"output":[{"type":"message","content":[{"type":"output_text","text":"long\n"}]}],"usage":{"input_tokens":5,"input_tokens_details":{"cached_tokens":1},"output_tokens":2,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":7}}}`, true},
		{`{"type":"error","sequence_number":1,"code":"server_error","message":"boom","param":null}`, true},
		{`{"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"x","message":"y"}}}`, false},
	} {
		if got := decodeEvent(&p, []byte(c.data), &e, &idx); got != c.ok {
			t.Errorf("%s: fast=%v, want %v", c.data, got, c.ok)
		}
	}
	decodeEvent(&p, []byte(`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","arguments":"","call_id":"call_1","name":"ls"}}`), &e, &idx)
	if e.parsed == nil || e.parsed.CallID != "call_1" || *e.OutputIndex != 1 || string(e.Item) == "" {
		t.Errorf("item %+v %s", e.parsed, e.Item)
	}
}
