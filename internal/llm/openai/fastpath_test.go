package openai

import "testing"

func TestFastDecoderTakesCommonChunks(t *testing.T) {
	var d fastDecoder
	var f fastChunk
	for _, c := range []struct {
		data string
		ok   bool
	}{
		{`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`, true},
		{`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi\n"},"logprobs":null,"finish_reason":null}],"usage":null}`, true},
		{`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"hm"},"logprobs":null,"finish_reason":null}]}`, true},
		{`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}`, true},
		{`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{"}}]},"finish_reason":null}]}`, false},
		{`{"id":"c1","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}`, false},
		{`{"error":{"message":"x"}}`, false},
		{`{"id":"c1","choices":[{"delta":{"content":"x"}}]`, false},
	} {
		if got := d.decode([]byte(c.data), &f); got != c.ok {
			t.Errorf("%s: fast=%v, want %v", c.data, got, c.ok)
		}
	}
	d.decode([]byte(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"again"},"logprobs":null,"finish_reason":null}],"usage":null}`), &f)
	if f.content != "again" || len(d.prefix) == 0 {
		t.Errorf("prefix path: %+v", f)
	}
}

// TestTemplateAgreesWithFullDecode decodes a run of chunks with one decoder
// (so most go through its template) and each with a fresh one: the results
// must be the same.
func TestTemplateAgreesWithFullDecode(t *testing.T) {
	const head = `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":`
	chunks := []string{
		head + `{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`,
		head + `{"content":"Hi\n"},"logprobs":null,"finish_reason":null}],"usage":null}`,
		head + `{"content":"again \"q\" \u00e9"},"logprobs":null,"finish_reason":null}],"usage":null}`,
		head + `{"content":""},"logprobs":null,"finish_reason":null}],"usage":null}`,
		head + `{"content":"bad \x"},"logprobs":null,"finish_reason":null}],"usage":null}`,
		head + `{"content":"ctl ` + "\x01" + `"},"logprobs":null,"finish_reason":null}],"usage":null}`,
		head + `{"content":"ok"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"abc"}`,
		head + `{"content":"ok2"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"a\"bcdef"}`,
		head + `{"content":"ok3"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":7}`,
		head + `{"reasoning_content":"think"},"logprobs":null,"finish_reason":null}]}`,
		head + `{"reasoning_content":""},"logprobs":null,"finish_reason":null}]}`,
		head + `{"reasoning_content":"more"},"logprobs":null,"finish_reason":null}]}`,
		head + `{"content":null,"reasoning":"both","reasoning_text":"x"},"logprobs":null,"finish_reason":null}]}`,
		head + `{"content":null,"reasoning":"both2","reasoning_text":"y"},"logprobs":null,"finish_reason":null}]}`,
		head + `{"content":"end"},"logprobs":null,"finish_reason":"stop"}],"usage":null}`,
		head + `{"content":"end2"},"logprobs":null,"finish_reason":"stop"}],"usage":null}`,
		`{"id":"c2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"end2"},"logprobs":null,"finish_reason":"stop"}],"usage":null}`,
	}
	var d fastDecoder
	for _, c := range chunks {
		var got, want fastChunk
		ok := d.decode([]byte(c), &got)
		var fresh fastDecoder
		wantOK := fresh.decode([]byte(c), &want)
		if ok != wantOK || (ok && got != want) {
			t.Errorf("%s:\n got %v %+v\nwant %v %+v", c, ok, got, wantOK, want)
		}
	}
}
