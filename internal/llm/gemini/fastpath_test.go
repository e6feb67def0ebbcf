package gemini

import "testing"

func TestFastDecoderTakesCommonChunks(t *testing.T) {
	var d fastDecoder
	var ch chunk
	ok := d.decode([]byte(`{"candidates": [{"content": {"parts": [{"text": "Hi","thought": true,"thoughtSignature":"c2ln"},{"text":"there\n"}],"role": "model"},"finishReason":"STOP","index": 0}],"usageMetadata": {"promptTokenCount": 4,"candidatesTokenCount": 49,"totalTokenCount": 2095,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 4}],"thoughtsTokenCount": 2042},"modelVersion": "gemini-2.5-flash","responseId": "IZI2"}`), &ch)
	if !ok {
		t.Fatal("common chunk not taken")
	}
	p := ch.Candidates[0].Content.Parts
	if len(p) != 2 || *p[0].Text != "Hi" || !p[0].Thought || p[0].ThoughtSignature != "c2ln" || *p[1].Text != "there\n" {
		t.Errorf("parts %+v", p)
	}
	if ch.UsageMetadata.ThoughtsTokenCount != 2042 || ch.Candidates[0].FinishReason != "STOP" || ch.ResponseID != "IZI2" {
		t.Errorf("chunk %+v", ch)
	}
	for _, other := range []string{
		`{"candidates": [{"content": {"parts": [{"functionCall": {"name": "f","args": {}}}],"role": "model"}}]}`,
		`{"error": {"code": 503,"message": "overloaded","status": "UNAVAILABLE"}}`,
		`{"promptFeedback": {"blockReason": "SAFETY"}}`,
	} {
		if d.decode([]byte(other), &ch) {
			t.Errorf("%s taken by the fast path", other)
		}
	}
}
