package llm

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The runtime's provider hooks see the real request: the payload can be
// replaced, headers mutated, and the response status observed.
func TestWireHooks(t *testing.T) {
	var gotBody, gotHeader string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotBody, gotHeader = string(b), r.Header.Get("X-Hooked")
		w.Header().Set("X-Served", "yes")
		w.WriteHeader(200)
	}))
	defer srv.Close()
	var status int
	var served string
	req := &Request{
		OnPayload: func(b []byte) ([]byte, error) { return []byte(strings.Replace(string(b), "old", "new", 1)), nil },
		OnHeaders: func(h http.Header) { h.Set("X-Hooked", "1") },
		OnResponse: func(s int, h http.Header) {
			status, served = s, h.Get("X-Served")
		},
	}
	resp, perr := PostSSE(context.Background(), req, srv.URL, map[string]string{"v": "old"}, func(http.Header) {})
	if perr != nil {
		t.Fatal(perr)
	}
	resp.Body.Close()
	if gotBody != `{"v":"new"}` || gotHeader != "1" || status != 200 || served != "yes" {
		t.Fatalf("body %q header %q status %d served %q", gotBody, gotHeader, status, served)
	}
}
