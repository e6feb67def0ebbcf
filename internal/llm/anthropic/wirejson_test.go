package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// appendMessage writes what llm.Marshal writes for every block shape, and
// declines (for encoding/json to report) what it cannot write the same.
func TestAppendMessageMatchesMarshal(t *testing.T) {
	odd := "q\"b\\s\n\t\x01 <&> \u2028 é \xff 😀 " + strings.Repeat("plain text ", 5)
	cc := &cacheControl{Type: "ephemeral"}
	cc1h := &cacheControl{Type: "ephemeral", TTL: "1h"}
	msgs := []message{
		{Role: "user", Content: odd},
		{Role: "user", Content: ""},
		{Role: "user", Content: []any{}},
		{Role: "user", Content: []any(nil)},
		{Role: "user", Content: []any{&textBlock{Type: "text", Text: odd}, &textBlock{Type: "text", Text: "x", CacheControl: cc},
			&textBlock{Type: "text", Text: "v", volatile: true, CacheControl: cc1h},
			&imageBlock{Type: "image", Source: imageSource{Type: "base64", MediaType: "image/png", Data: "AAAA"}},
			&imageBlock{Type: "image", Source: imageSource{Type: "base64", MediaType: "image/png", Data: "B"}, CacheControl: cc}}},
		{Role: "assistant", Content: []any{&thinkingBlock{Type: "thinking", Thinking: odd, Signature: "sig"},
			&thinkingBlock{Type: "thinking", Thinking: "t"}, &redactedThinkingBlock{Type: "redacted_thinking", Data: "d"},
			&toolUseBlock{Type: "tool_use", ID: "c1", Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)},
			&toolUseBlock{Type: "tool_use", ID: "c2", Name: "read", Input: json.RawMessage(" {\n \"path\" : \"a b.go\" ,\"n\":[1, 2]}\t")},
			&toolUseBlock{Type: "tool_use", ID: "c3", Name: "x"}}},
		{Role: "user", Content: []any{&toolResultBlock{Type: "tool_result", ToolUseID: "c1", Content: odd},
			&toolResultBlock{Type: "tool_result", ToolUseID: "c2", Content: "", IsError: true, CacheControl: cc},
			&toolResultBlock{Type: "tool_result", ToolUseID: "c3"},
			&toolResultBlock{Type: "tool_result", ToolUseID: "c4", Content: []any{&textBlock{Type: "text", Text: "see"},
				&imageBlock{Type: "image", Source: imageSource{Type: "base64", MediaType: "image/jpeg", Data: "C"}}}}}},
	}
	var scratch bytes.Buffer
	for i := range msgs {
		want, err := llm.Marshal(&msgs[i])
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendMessage([]byte("["), &msgs[i], &scratch)
		if !ok || !bytes.Equal(got, append([]byte("["), want...)) {
			t.Errorf("message %d: ok=%v\n got %s\nwant [%s", i, ok, got, want)
		}
	}
	// encoding/json fails on these or writes them in ways appendMessage
	// does not: it declines.
	for i, m := range []message{
		{Role: "assistant", Content: []any{&toolUseBlock{Type: "tool_use", ID: "c", Name: "n", Input: json.RawMessage(`{"bad":`)}}},
		{Role: "user", Content: []any{map[string]any{"type": "text", "text": "x"}}},
		{Role: "user", Content: []any{(*textBlock)(nil)}},
		{Role: "user", Content: 42},
	} {
		if got, ok := appendMessage(nil, &m, &scratch); ok {
			t.Errorf("odd message %d written: %s", i, got)
		}
	}
}
