package responses

import (
	"fmt"
	"reflect"
	"testing"
)

func TestFastDecoderTakesEvents(t *testing.T) {
	var d fastDecoder
	var e event
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
		if got := d.decode([]byte(c.data), &e); got != c.ok {
			t.Errorf("%s: fast=%v, want %v", c.data, got, c.ok)
		}
	}
	d.decode([]byte(`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","arguments":"","call_id":"call_1","name":"ls"}}`), &e)
	if e.parsed == nil || e.parsed.CallID != "call_1" || *e.OutputIndex != 1 || string(e.Item) == "" {
		t.Errorf("item %+v %s", e.parsed, e.Item)
	}
}

// TestTemplateAgreesWithFullDecode decodes a run of events with one decoder
// (delta events mostly through its template) and each with a fresh one:
// the results must be the same.
func TestTemplateAgreesWithFullDecode(t *testing.T) {
	delta := func(typ string, seq float64, index int, text, tail string) string {
		return fmt.Sprintf(`{"type":%q,"sequence_number":%v,"item_id":"msg_1","output_index":%d,"content_index":0,"delta":%s,"logprobs":[]%s}`,
			typ, seq, index, text, tail)
	}
	events := []string{
		delta("response.output_text.delta", 4, 0, `"Hi\n"`, ""),
		delta("response.output_text.delta", 5, 0, `"again \"q\" \u00e9"`, ""),
		delta("response.output_text.delta", 1234, 0, `""`, ""),
		delta("response.output_text.delta", 6, 0, `"bad \x"`, ""),
		delta("response.output_text.delta", 7, 0, `"x"`, `,"obfuscation":"ab"`),
		delta("response.output_text.delta", 8, 0, `"y"`, `,"obfuscation":"a\"bcd"`),
		delta("response.output_text.delta", 9, 1, `"other item"`, `,"obfuscation":"ab"`),
		delta("response.output_text.delta", 10, 1, `"z"`, `,"obfuscation":5`),
		delta("response.output_text.delta", 1.5, 1, `"float seq"`, ""),
		delta("response.reasoning_summary_text.delta", 11, 0, `"think"`, ""),
		delta("response.function_call_arguments.delta", 12, 2, `"{\"a\":"`, ""),
		delta("response.function_call_arguments.delta", 13, 2, `"1}"`, ""),
		`{"type":"response.function_call_arguments.delta","sequence_number":14,"delta":"no index"}`,
		`{"type":"response.function_call_arguments.delta","sequence_number":15,"delta":"no index 2"}`,
		`{"type":"response.output_text.delta","sequence_number":16,"delta":"a","delta":"b"}`,
		`{"type":"error","sequence_number":17,"code":"server_error","message":"boom","param":null}`,
	}
	var d fastDecoder
	for _, c := range events {
		var got, want event
		ok := d.decode([]byte(c), &got)
		var fresh fastDecoder
		wantOK := fresh.decode([]byte(c), &want)
		if ok != wantOK || (ok && !reflect.DeepEqual(got, want)) {
			t.Errorf("%s:\n got %v %+v\nwant %v %+v", c, ok, got, wantOK, want)
		}
	}
}
