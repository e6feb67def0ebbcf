package llmtest

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

func TestGeminiChunks(t *testing.T) {
	resp := &Response{Content: []Block{
		{Type: "thinking", Text: "hm"},
		{Type: "toolCall", Name: "getWeather", Args: json.RawMessage(`{"location":"Tokyo"}`), Signature: "CikB"}},
		Usage: &Usage{Input: 83, Output: 118, Reasoning: 104}}
	enc := EncoderFor("google-generative-ai")
	r := httptest.NewRequest("POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", nil)
	if !enc.Match(r) {
		t.Fatal("path not matched")
	}
	req := &Request{Path: r.URL.Path}
	if enc.RequestModel(req) != "gemini-2.5-flash" {
		t.Fatalf("model %q", enc.RequestModel(req))
	}
	content, final := enc.Encode(resp, req)
	for _, f := range append(content, final...) {
		if !strings.HasSuffix(f.Raw, "\r\n\r\n") || !strings.HasPrefix(f.Raw, "data: ") {
			t.Errorf("frame %q not CRLF framed", f.Raw)
		}
	}
	_, data := parseWireFrames(t, append(content, final...))
	// The shape of a recorded gemini-2.5-flash function-call chunk.
	call := data[1]
	if !reflect.DeepEqual(wireKeys(call), []string{"candidates", "modelVersion", "responseId", "usageMetadata"}) {
		t.Errorf("chunk keys %v", wireKeys(call))
	}
	part := call["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)
	if part["thoughtSignature"] != "CikB" || part["functionCall"].(map[string]any)["name"] != "getWeather" {
		t.Errorf("part %v", part)
	}
	u := call["usageMetadata"].(map[string]any)
	if u["promptTokenCount"] != 83.0 || u["candidatesTokenCount"] != 14.0 || u["thoughtsTokenCount"] != 104.0 || u["totalTokenCount"] != 201.0 {
		t.Errorf("usage %v", u)
	}
	thought := data[0]["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)
	if thought["thought"] != true {
		t.Errorf("thought part %v", thought)
	}
	last := data[len(data)-1]["candidates"].([]any)[0].(map[string]any)
	if last["finishReason"] != "STOP" {
		t.Errorf("finish %v", last)
	}
	if !enc.LastIsToolResult(&Request{Body: map[string]any{"contents": []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "f"}}}}}}}) {
		t.Error("function response not seen as a tool result")
	}
}
