package llmtest

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"
)

func TestCloudCodeEnvelope(t *testing.T) {
	enc := EncoderFor("cloud-code-assist")
	r := httptest.NewRequest("POST", "/v1internal:streamGenerateContent?alt=sse", nil)
	if !enc.Match(r) {
		t.Fatal("path not matched")
	}
	if name, _ := encoderForRequest(r); name != "cloud-code-assist" {
		t.Fatalf("request served as %s", name)
	}
	if name, _ := encoderForRequest(httptest.NewRequest("POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", nil)); name != "google-generative-ai" {
		t.Fatalf("Gemini API request served as %s", name)
	}
	req := &Request{Path: r.URL.Path, Body: map[string]any{"model": "gemini-2.5-pro", "project": "p",
		"request": map[string]any{"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "f"}}}}}}}}
	if enc.RequestModel(req) != "gemini-2.5-pro" || !enc.LastIsToolResult(req) {
		t.Fatalf("model %q, tool result %v", enc.RequestModel(req), enc.LastIsToolResult(req))
	}
	content, final := enc.Encode(&Response{Text: "hi", ToolCalls: []Block{{Name: "read", Args: json.RawMessage(`{}`)}}}, req)
	_, data := parseWireFrames(t, append(content, final...))
	for _, ev := range data {
		if !reflect.DeepEqual(wireKeys(ev), []string{"response", "traceId"}) {
			t.Fatalf("event keys %v", wireKeys(ev))
		}
		inner := ev["response"].(map[string]any)
		if inner["modelVersion"] != "gemini-2.5-pro" {
			t.Errorf("modelVersion %v", inner["modelVersion"])
		}
	}
	last := data[len(data)-1]["response"].(map[string]any)["candidates"].([]any)[0].(map[string]any)
	if last["finishReason"] != "STOP" {
		t.Errorf("last chunk %v", last)
	}
}
