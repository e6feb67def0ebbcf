package anthropic

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func payloadBytes(t *testing.T, p *payload) []byte {
	t.Helper()
	got, err := io.ReadAll(p.body())
	if err != nil {
		t.Fatal(err)
	}
	if p.size >= 0 && int64(len(got)) != p.size {
		t.Fatalf("size %d, read %d bytes", p.size, len(got))
	}
	return got
}

// The streamed payload is byte for byte llm.Marshal of the body.
func TestPayloadMatchesMarshal(t *testing.T) {
	temp := 0.5
	bodies := []body{
		{Model: "m", MaxTokens: 10, Stream: true},
		{Model: "m", Messages: []message{}, MaxTokens: 10},
		{Model: `we"ird,"messages":[]`, Messages: []message{{Role: "user", Content: "hi <b>&</b> \u2028 é"}}, MaxTokens: 1},
		{Model: "m", MaxTokens: 5, Stream: true, Temperature: &temp,
			System: []textBlock{{Type: "text", Text: `"messages":[]`}},
			Messages: []message{
				{Role: "user", Content: "one"},
				{Role: "assistant", Content: []any{map[string]any{"type": "text", "text": "two\n\"quoted\""}}},
				{Role: "user", Content: []any{map[string]any{"type": "tool_result", "tool_use_id": "x", "content": "<html>"}}},
			},
			Tools: []tool{{Name: "bash"}}},
	}
	long := body{Model: "m", MaxTokens: 1}
	for i := range 700 { // counted on several goroutines
		long.Messages = append(long.Messages, message{Role: "user", Content: strings.Repeat("é\"<", i%13)})
	}
	bodies = append(bodies, long)
	for i := range bodies {
		want, err := llm.Marshal(&bodies[i])
		if err != nil {
			t.Fatal(err)
		}
		// Whole, streamed after a prefix, and streamed from the start.
		for _, limit := range []int{maxBuffered, 64, 0} {
			p, err := newPayloadLimit(&bodies[i], limit)
			if err != nil {
				t.Fatal(err)
			}
			if p.size < 0 && (len(want) <= limit || limit == maxBuffered) {
				t.Errorf("body %d limit %d: %d bytes streamed", i, limit, len(want))
			}
			got := payloadBytes(t, p)
			if !bytes.Equal(got, want) {
				t.Fatalf("body %d limit %d:\n got %s\nwant %s", i, limit, got, want)
			}
			// A retry reads it again from the start.
			if again := payloadBytes(t, p); !bytes.Equal(again, want) {
				t.Fatalf("body %d limit %d: second read differs", i, limit)
			}
			// Small reads see the same bytes.
			var small bytes.Buffer
			var r io.Reader = p.body()
			buf := make([]byte, 7)
			for {
				n, err := r.Read(buf)
				small.Write(buf[:n])
				if err == io.EOF {
					break
				}
			}
			if !bytes.Equal(small.Bytes(), want) {
				t.Fatalf("body %d limit %d: 7-byte reads differ", i, limit)
			}
			// Reads fill the caller's buffer (each read is one system
			// call of the transport).
			r, buf = p.body(), make([]byte, 100)
			for total := 0; ; {
				n, err := r.Read(buf)
				total += n
				if err == io.EOF {
					break
				}
				if n < len(buf) && total < len(want) {
					t.Fatalf("body %d limit %d: short read of %d bytes at %d of %d", i, limit, n, total, len(want))
				}
			}
			// WriteTo after a first small read, as io.Copy uses it.
			var out bytes.Buffer
			r = p.body()
			n, _ := r.Read(buf)
			out.Write(buf[:n])
			if _, err := io.Copy(writerOnly{&out}, r); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Fatalf("body %d limit %d: WriteTo differs:\n got %s\nwant %s", i, limit, out.Bytes(), want)
			}
		}
	}
}

// writerOnly hides bytes.Buffer's ReadFrom so io.Copy uses the reader's
// WriteTo.
type writerOnly struct{ io.Writer }

// Sending a large body allocates its buffered prefix and then about one
// message at a time, not the body (a resumed 50 MB session used to cost
// ~2.5 times its size here).
func TestPayloadStreamsMessages(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's allocations are counted too")
	}
	text := strings.Repeat("lorem ipsum dolor sit amet\n", 2000) // ~54 KB
	b := body{Model: "m", MaxTokens: 1, Stream: true}
	for range 200 {
		b.Messages = append(b.Messages, message{Role: "user", Content: text})
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := newPayload(&b)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, p.body())
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if p.size >= 0 || n < 2*maxBuffered {
		t.Fatalf("body of %d bytes (size %d), want over %d streamed", n, p.size, 2*maxBuffered)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxBuffered+2<<20 {
		t.Fatalf("encoding a %d MB body allocated %d MB", n>>20, alloc>>20)
	}
}

// Over HTTP a body up to maxBuffered bytes goes with its Content-Length and
// a longer one streams without (chunked over HTTP/1.1); both arrive as
// llm.Marshal of the body, also when a payload hook reads and replaces it.
func TestPayloadOverHTTP(t *testing.T) {
	answer := llmtest.Render(llm.APIAnthropicMessages, &llmtest.Response{Text: "ok"})
	type arrival struct {
		length   int64
		encoding []string
		body     []byte
	}
	got := make(chan arrival, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
		}
		got <- arrival{r.ContentLength, r.TransferEncoding, b}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(answer)
	}))
	defer srv.Close()
	big := strings.Repeat("lorem ipsum \"dolor\" sit amet\n", 1000) // ~30 KB
	for _, tt := range []struct {
		name     string
		messages int
		hook     bool
		chunked  bool
	}{
		{"small", 3, false, false},
		{"large", 2 * maxBuffered / len(big), false, true},
		{"large with payload hook", 2 * maxBuffered / len(big), true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := &llm.Request{Model: sonnet(srv.URL), APIKey: "k"}
			for range tt.messages {
				req.Messages = append(req.Messages, userText(big))
			}
			hooked := 0
			if tt.hook {
				req.OnPayload = func(b []byte) ([]byte, error) { hooked = len(b); return b, nil }
			}
			p := buildPlan(req)
			want, err := llm.Marshal(&p.body)
			if err != nil {
				t.Fatal(err)
			}
			msg := New().Stream(context.Background(), req, func(llm.AssistantEvent) {})
			if msg.StopReason == llm.StopError {
				t.Fatalf("stream failed: %s", msg.ErrorMessage)
			}
			a := <-got
			if !bytes.Equal(a.body, want) {
				t.Fatalf("body of %d bytes differs from the %d of llm.Marshal", len(a.body), len(want))
			}
			if chunked := len(a.encoding) > 0; chunked != tt.chunked || !chunked && a.length != int64(len(want)) {
				t.Errorf("Content-Length %d, Transfer-Encoding %v for %d bytes", a.length, a.encoding, len(want))
			}
			if tt.hook && hooked != len(want) {
				t.Errorf("payload hook saw %d bytes, want %d", hooked, len(want))
			}
		})
	}
}
