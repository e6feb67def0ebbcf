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
