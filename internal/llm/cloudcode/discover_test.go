package cloudcode

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestAntigravityModels: the account's model list becomes catalog
// entries the original's way, asked with the sign-in's project and token.
func TestAntigravityModels(t *testing.T) {
	var got map[string]any
	var hdr http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1internal:fetchAvailableModels" || r.Method != http.MethodPost {
			w.WriteHeader(404)
			return
		}
		hdr = r.Header.Clone()
		json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&got)
		io.WriteString(w, `{"models":{
			"gemini-3-flash":{"displayName":"Gemini 3 Flash","supportsImages":true,"supportsThinking":true,"maxInputTokens":1048576,"maxOutputTokens":65536},
			"claude-opus-4-6-thinking":{"displayName":"Claude Opus 4.6 (Thinking)","maxOutputTokens":64000},
			"gpt-oss-120b-medium":{"displayName":"GPT-OSS 120B (Medium)","supportsImages":true,"supportsThinking":false},
			"gemini-2.5-flash-lite":{"displayName":"Gemini 2.5 Flash Lite","supportsImages":false},
			"chat_20706":{"displayName":"internal","isInternal":true},
			"tab_flash_lite_preview":{},
			"nothing":null}}`)
	}))
	defer srv.Close()
	body, err := AntigravityModels(context.Background(), nil, Account{Access: "ya29.a", Project: "proj-3", BaseURL: srv.URL + "/", Version: "1.30.0"})
	if err != nil {
		t.Fatal(err)
	}
	if got["project"] != "proj-3" || hdr.Get("Authorization") != "Bearer ya29.a" || hdr.Get("User-Agent") != "antigravity/1.30.0" {
		t.Fatalf("request %v %v", got, hdr)
	}
	want := `[` +
		`{"api":"google-generative-ai","baseUrl":"","contextWindow":200000,"cost":{"cacheRead":0,"cacheWrite":0,"input":0,"output":0},"id":"claude-opus-4-6-thinking","input":["text","image"],"maxTokens":64000,"name":"Claude Opus 4.6 (Thinking)","provider":"google-antigravity","reasoning":true},` +
		`{"api":"google-generative-ai","baseUrl":"","contextWindow":1048576,"cost":{"cacheRead":0,"cacheWrite":0,"input":0,"output":0},"id":"gemini-2.5-flash-lite","input":["text"],"maxTokens":32768,"name":"Gemini 2.5 Flash Lite","provider":"google-antigravity","reasoning":true},` +
		`{"api":"google-generative-ai","baseUrl":"","contextWindow":1048576,"cost":{"cacheRead":0,"cacheWrite":0,"input":0,"output":0},"id":"gemini-3-flash","input":["text","image"],"maxTokens":65536,"name":"Gemini 3 Flash","provider":"google-antigravity","reasoning":true},` +
		`{"api":"google-generative-ai","baseUrl":"","contextWindow":200000,"cost":{"cacheRead":0,"cacheWrite":0,"input":0,"output":0},"id":"gpt-oss-120b-medium","input":["text"],"maxTokens":32768,"name":"GPT-OSS 120B (Medium)","provider":"google-antigravity","reasoning":false}]`
	if string(body) != want {
		t.Errorf("models\n got %s\nwant %s", body, want)
	}
}

func TestAntigravityModelsFailures(t *testing.T) {
	var daily atomic.Int32
	denied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { daily.Add(1); w.WriteHeader(403) }))
	defer denied.Close()
	answer := `{"models":{}}`
	prod := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, answer) }))
	defer prod.Close()
	saved := AntigravityEndpoints
	AntigravityEndpoints = []string{denied.URL, prod.URL}
	defer func() { AntigravityEndpoints = saved }()
	ctx := context.Background()
	acct := Account{Access: "a", Project: "p"}

	if body, err := AntigravityModels(ctx, nil, acct); err != nil || string(body) != "[]" || daily.Load() != 1 {
		t.Fatalf("fallback: %s %v (daily asked %d times)", body, err, daily.Load())
	}
	for _, bad := range []string{`{"models":[]}`, `{}`, `<html>`, `{"models":"x"}`} {
		answer = bad
		if _, err := AntigravityModels(ctx, nil, acct); err == nil || !strings.Contains(err.Error(), "invalid model catalog") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := AntigravityModels(ctx, nil, Account{Access: "a"}); err == nil || !strings.Contains(err.Error(), "/login google-antigravity") {
		t.Errorf("no project: %v", err)
	}
	if _, err := AntigravityModels(ctx, nil, Account{Access: "a", Project: "p", BaseURL: denied.URL + "/x"}); err == nil || !strings.Contains(err.Error(), "HTTP 403") {
		t.Errorf("foreign origin refusing: %v", err)
	}
	answer = `{"models":{"a":{"displayName":"` + strings.Repeat("x", maxCatalogBody) + `"}}}`
	if _, err := AntigravityModels(ctx, nil, acct); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("huge answer: %v", err)
	}
}
