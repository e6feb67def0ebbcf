package llmtest

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// parseWireFrames parses the data of each frame as JSON ("[DONE]" stays a
// string).
func parseWireFrames(t *testing.T, frames []Frame) (names []string, data []map[string]any) {
	t.Helper()
	for _, f := range frames {
		raw := f.Data
		if f.Raw != "" {
			raw = strings.TrimSpace(strings.TrimPrefix(f.Raw, "data: "))
		}
		names = append(names, f.Event)
		if raw == "[DONE]" {
			data = append(data, map[string]any{"[DONE]": true})
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatalf("frame %q is not JSON: %v", raw, err)
		}
		data = append(data, m)
	}
	return names, data
}

func wireKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestOpenAIChunks(t *testing.T) {
	resp := &Response{Thinking: "hm", Text: "Hi", ToolCalls: []Block{{ID: "call_1", Name: "ls", Args: json.RawMessage(`{"p":1}`)}},
		Usage: &Usage{Input: 10, Output: 5, CacheRead: 4, Reasoning: 2}}
	req := &Request{Body: map[string]any{"model": "gpt-4.1", "stream_options": map[string]any{"include_usage": true}}}
	content, final := EncoderFor("openai-completions").Encode(resp, req)
	_, data := parseWireFrames(t, append(content, final...))
	chunkKeys := []string{"choices", "created", "id", "model", "object", "service_tier", "system_fingerprint", "usage"}
	for i, d := range data[:len(data)-1] {
		if !reflect.DeepEqual(wireKeys(d), chunkKeys) || d["object"] != "chat.completion.chunk" {
			t.Errorf("chunk %d keys %v", i, wireKeys(d))
		}
	}
	first := data[0]["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)
	if first["role"] != "assistant" {
		t.Errorf("first delta %v", first)
	}
	call := data[3]["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
	if call["id"] != "call_1" || call["type"] != "function" || call["index"] != 0.0 {
		t.Errorf("tool call start %v", call)
	}
	finish := data[len(data)-3]["choices"].([]any)[0].(map[string]any)
	if finish["finish_reason"] != "tool_calls" {
		t.Errorf("finish %v", finish)
	}
	usage := data[len(data)-2]
	if len(usage["choices"].([]any)) != 0 {
		t.Errorf("usage chunk has choices")
	}
	u := usage["usage"].(map[string]any)
	if u["prompt_tokens"] != 14.0 || u["prompt_tokens_details"].(map[string]any)["cached_tokens"] != 4.0 ||
		u["completion_tokens_details"].(map[string]any)["reasoning_tokens"] != 2.0 {
		t.Errorf("usage %v", u)
	}
	if data[len(data)-1]["[DONE]"] != true {
		t.Errorf("no [DONE]")
	}
	// Without include_usage there is no usage chunk.
	_, final = EncoderFor("openai-completions").Encode(resp, &Request{Body: map[string]any{"model": "m"}})
	if len(final) != 2 {
		t.Errorf("final frames without usage: %d", len(final))
	}
}
