package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A body encoding compresses what goes on the wire after the payload hook
// saw (and may have replaced) the JSON; a failing encoder sends the body
// as it is, without a Content-Encoding.
func TestPostSSEEncoded(t *testing.T) {
	type seen struct {
		encoding string
		body     []byte
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Header.Get("Content-Encoding"), b}
		w.Header().Set("Content-Type", "text/event-stream")
	}))
	defer srv.Close()
	reverse := &BodyEncoding{Name: "reverse", Encode: func(b []byte) ([]byte, error) {
		out := make([]byte, len(b))
		for i := range b {
			out[len(b)-1-i] = b[i]
		}
		return out, nil
	}}
	broken := &BodyEncoding{Name: "broken", Encode: func([]byte) ([]byte, error) { return nil, errors.New("no codec") }}
	for _, tt := range []struct {
		name     string
		enc      *BodyEncoding
		wantEnc  string
		wantBody string
	}{
		{"encoded after the hook", reverse, "reverse", `}"dlrow":"olleh"{`},
		{"encoder failure sends it plain", broken, "", `{"hello":"world"}`},
		{"no encoding", nil, "", `{"hello":"world"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var hookSaw []byte
			req := &Request{Model: &Model{ID: "m"}, OnPayload: func(b []byte) ([]byte, error) {
				hookSaw = append([]byte(nil), b...)
				return bytes.Replace(b, []byte("there"), []byte("world"), 1), nil
			}}
			resp, perr := PostSSEEncoded(context.Background(), req, srv.URL, map[string]string{"hello": "there"}, func(http.Header) {}, tt.enc)
			if perr != nil {
				t.Fatal(perr)
			}
			resp.Body.Close()
			s := <-got
			if string(hookSaw) != `{"hello":"there"}` {
				t.Errorf("the hook saw %q, want the JSON", hookSaw)
			}
			if s.encoding != tt.wantEnc || string(s.body) != tt.wantBody {
				t.Errorf("server got %q %q, want %q %q", s.encoding, s.body, tt.wantEnc, tt.wantBody)
			}
		})
	}
}
