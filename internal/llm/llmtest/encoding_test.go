package llmtest

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// The fake decodes zstd request bodies and records what they held; a body
// that is not what its Content-Encoding says is refused with 400.
func TestServerDecodesZstdBodies(t *testing.T) {
	srv := NewServer(&Script{Responses: []Response{{Text: "ok"}}, Repeat: true})
	defer srv.Close()
	body := `{"model":"gpt-5","stream":true,"input":[{"role":"user","content":"` + strings.Repeat("hi ", 500) + `"}]}`
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	packed := enc.EncodeAll([]byte(body), nil)
	send := func(encoding string, b []byte) int {
		req, _ := http.NewRequest("POST", srv.URL+"/responses", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", encoding)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := send("zstd", packed); st != http.StatusOK {
		t.Fatalf("zstd body: status %d", st)
	}
	r := srv.Requests()[0]
	if string(r.Raw) != body || r.Body["model"] != "gpt-5" || r.WireBytes != len(packed) {
		t.Errorf("recorded %d raw bytes (model %v), %d on the wire; want %d and %d", len(r.Raw), r.Body["model"], r.WireBytes, len(body), len(packed))
	}
	for _, tt := range []struct {
		encoding string
		body     []byte
	}{{"zstd", []byte(body)}, {"br", packed}} {
		if st := send(tt.encoding, tt.body); st != http.StatusBadRequest {
			t.Errorf("%s body that is not one: status %d, want 400", tt.encoding, st)
		}
	}
}
