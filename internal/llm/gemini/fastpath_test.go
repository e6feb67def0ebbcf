package gemini

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

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

// TestTemplateAgreesWithFullDecode decodes a run of chunks with one decoder
// (most through its template) and each with a fresh one: the results must
// be the same.
func TestTemplateAgreesWithFullDecode(t *testing.T) {
	c := func(parts, finish string, cand, total int, tail string) string {
		return fmt.Sprintf(`{"candidates":[{"content":{"parts":[%s],"role":"model"}%s,"index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":%d,"totalTokenCount":%d,"promptTokensDetails":[{"modality":"TEXT","tokenCount":4}]},"modelVersion":"gemini-2.5-flash","responseId":"IZI2"%s}`,
			parts, finish, cand, total, tail)
	}
	chunks := []string{
		c(`{"text":"Hi"}`, "", 1, 5, ""),
		c(`{"text":"there\n"}`, "", 2, 6, ""),
		c(`{"text":"say \"q\" \u00e9"}`, "", 30, 1234, ""),
		c(`{"text":""}`, "", 31, -1, ""),
		c(`{"text":"bad \x"}`, "", 32, 7, ""),
		c(`{"text":"lead zero"}`, "", 33, 7, ""),
		c(`{"text":"float"}`, "", 3, 7, ""),
		c(`{"text":"ok"}`, "", 3, 7, ""),
		c(`{"text":"think","thought":true,"thoughtSignature":"c2ln"}`, "", 4, 8, ""),
		c(`{"text":"more","thought":true,"thoughtSignature":"c2ln"}`, "", 5, 9, ""),
		c(`{"text":"two"},{"text":"parts"}`, "", 6, 10, ""),
		c(`{"text":"two2"},{"text":"parts2"}`, "", 6, 10, ""),
		c(`{"text":"end"}`, `,"finishReason":"STOP"`, 7, 11, ""),
		c(`{"text":""}`, `,"finishReason":"STOP"`, 7, 11, ""),
		c(`{"text":"x"}`, `,"finishReason":"MAX_TOKENS","finishMessage":"m"`, 7, 11, `,"createTime":"t"`),
		c(`{"functionCall":{"name":"f","args":{}}}`, "", 8, 12, ""),
	}
	chunks[5] = strings.Replace(chunks[5], `"candidatesTokenCount":33`, `"candidatesTokenCount":033`, 1)
	chunks[6] = strings.Replace(chunks[6], `"totalTokenCount":7`, `"totalTokenCount":7.5`, 1)
	var d fastDecoder
	for _, s := range chunks {
		var got, want chunk
		ok := d.decode([]byte(s), &got)
		var fresh fastDecoder
		wantOK := fresh.decode([]byte(s), &want)
		if ok != wantOK || (ok && !reflect.DeepEqual(got, want)) {
			t.Errorf("%s:\n got %v %s\nwant %v %s", s, ok, dump(got), wantOK, dump(want))
		}
	}
}

func dump(ch chunk) string {
	b, _ := json.Marshal(ch)
	return string(b)
}
