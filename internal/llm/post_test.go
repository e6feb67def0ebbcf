package llm

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCheckRequest(t *testing.T) {
	if pe := CheckRequest(&Request{APIKey: "k"}); pe == nil || pe.Kind != ErrInvalidRequest || pe.Message != "no model" {
		t.Errorf("no model: %v", pe)
	}
	if pe := CheckRequest(&Request{Model: &Model{Provider: "p"}}, "authorization"); pe == nil || pe.Kind != ErrAuth {
		t.Errorf("no key: %v", pe)
	}
	if pe := CheckRequest(&Request{Model: &Model{Provider: "p"}, APIKey: "k"}); pe != nil {
		t.Errorf("key: %v", pe)
	}
}

func TestPostSSE(t *testing.T) {
	var got *http.Request
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {}\n\n")
	}))
	defer srv.Close()
	req := &Request{Model: &Model{Headers: map[string]string{"X-Model": "m", "X-Both": "model"}}, APIKey: "sk",
		Headers: map[string]string{"X-Both": "request", "Authorization": "Bearer override"}}
	resp, pe := PostSSE(context.Background(), req, srv.URL+"/x", map[string]any{"a": "<b>"}, func(h http.Header) {
		BearerAuth(h, req.APIKey)
		h.Set("X-Api", "1")
	})
	if pe != nil {
		t.Fatal(pe)
	}
	resp.Body.Close()
	h := got.Header
	if got.Method != http.MethodPost || got.URL.Path != "/x" || body != `{"a":"<b>"}` {
		t.Errorf("%s %s %s", got.Method, got.URL.Path, body)
	}
	if h.Get("Content-Type") != "application/json" || h.Get("Accept") != "text/event-stream" || h.Get("X-Api") != "1" ||
		h.Get("X-Model") != "m" || h.Get("X-Both") != "request" || h.Get("Authorization") != "Bearer override" {
		t.Errorf("headers %v", h)
	}

	_, pe = PostSSE(context.Background(), req, srv.URL, map[string]any{"f": func() {}}, func(http.Header) {})
	if pe == nil || pe.Kind != ErrInvalidRequest || !strings.HasPrefix(pe.Message, "encode request: ") {
		t.Errorf("encode error: %v", pe)
	}
}

func TestBearerAuth(t *testing.T) {
	h := http.Header{}
	BearerAuth(h, "")
	if len(h) != 0 {
		t.Errorf("empty key set %v", h)
	}
	BearerAuth(h, "sk")
	if h.Get("Authorization") != "Bearer sk" {
		t.Errorf("got %v", h)
	}
}
