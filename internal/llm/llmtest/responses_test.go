package llmtest

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestResponsesEvents(t *testing.T) {
	resp := &Response{Content: []Block{
		{Type: "thinking", Text: "hm", Signature: "enc"},
		{Type: "text", Text: "Hi"},
		{Type: "toolCall", ID: "call_1", Name: "ls", Args: json.RawMessage(`{}`)}},
		Usage: &Usage{Input: 10, Output: 5, CacheRead: 4, Reasoning: 2}}
	content, final := EncoderFor("openai-responses").Encode(resp, &Request{Body: map[string]any{"model": "gpt-5"}})
	names, data := parseWireFrames(t, append(content, final...))
	want := []string{"response.created", "response.in_progress",
		"response.output_item.added", "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.done",
		"response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done",
		"response.output_item.done", "response.completed"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("events\n got %v\nwant %v", names, want)
	}
	for i, d := range data {
		if d["type"] != names[i] || d["sequence_number"] != float64(i) {
			t.Errorf("event %d: type %v seq %v", i, d["type"], d["sequence_number"])
		}
	}
	item := data[7]["item"].(map[string]any)
	if item["type"] != "reasoning" || item["encrypted_content"] != "enc" {
		t.Errorf("reasoning item %v", item)
	}
	r := data[len(data)-1]["response"].(map[string]any)
	u := r["usage"].(map[string]any)
	if r["status"] != "completed" || u["input_tokens"] != 14.0 || len(r["output"].([]any)) != 3 {
		t.Errorf("completed %v", r)
	}
	_, final = EncoderFor("openai-responses").Encode(&Response{Text: "x", StopReason: "length"}, &Request{})
	if n, _ := parseWireFrames(t, final); n[0] != "response.incomplete" {
		t.Errorf("length stop sent %v", n)
	}
}
