// Package bedrocktest is a fake Amazon Bedrock runtime for tests: it checks
// each request's SigV4 signature (computed here independently of the AWS
// SDK) or bearer token, records the request, and answers a scripted
// ConverseStream in the AWS event-stream binary framing, with faults.
package bedrocktest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Header is one event-stream string header.
type Header struct{ Name, Value string }

// Frame encodes one event-stream message with string headers.
func Frame(headers []Header, payload []byte) []byte {
	var hb bytes.Buffer
	for _, h := range headers {
		hb.WriteByte(byte(len(h.Name)))
		hb.WriteString(h.Name)
		hb.WriteByte(7) // string
		var l [2]byte
		binary.BigEndian.PutUint16(l[:], uint16(len(h.Value)))
		hb.Write(l[:])
		hb.WriteString(h.Value)
	}
	total := 12 + hb.Len() + len(payload) + 4
	out := make([]byte, 0, total)
	out = binary.BigEndian.AppendUint32(out, uint32(total))
	out = binary.BigEndian.AppendUint32(out, uint32(hb.Len()))
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[:8]))
	out = append(out, hb.Bytes()...)
	out = append(out, payload...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
}

// Event encodes an event frame of type typ whose payload is v as JSON
// (v may be a string of raw JSON).
func Event(typ string, v any) []byte {
	var payload []byte
	if s, ok := v.(string); ok {
		payload = []byte(s)
	} else {
		payload, _ = json.Marshal(v)
	}
	return Frame([]Header{{":event-type", typ}, {":content-type", "application/json"}, {":message-type", "event"}}, payload)
}

// Exception encodes a modeled exception inside the stream
// (throttlingException, validationException, ...).
func Exception(typ, message string) []byte {
	payload, _ := json.Marshal(map[string]string{"message": message})
	return Frame([]Header{{":exception-type", typ}, {":content-type", "application/json"}, {":message-type", "exception"}}, payload)
}

// pad is the "p" member real streams carry to hide lengths.
const pad = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"

// TextDelta is a contentBlockDelta frame with text.
func TextDelta(idx int, text string) []byte {
	return Event("contentBlockDelta", map[string]any{"contentBlockIndex": idx, "delta": map[string]any{"text": text}, "p": pad[:idx%len(pad)+1]})
}

// ThinkingDelta is a reasoning-text delta.
func ThinkingDelta(idx int, text string) []byte {
	return Event("contentBlockDelta", map[string]any{"contentBlockIndex": idx, "delta": map[string]any{"reasoningContent": map[string]any{"text": text}}, "p": "abc"})
}

// SignatureDelta is a reasoning signature delta.
func SignatureDelta(idx int, sig string) []byte {
	return Event("contentBlockDelta", map[string]any{"contentBlockIndex": idx, "delta": map[string]any{"reasoningContent": map[string]any{"signature": sig}}})
}

// RedactedDelta is encrypted reasoning (bytes, base64 in JSON).
func RedactedDelta(idx int, data []byte) []byte {
	return Event("contentBlockDelta", map[string]any{"contentBlockIndex": idx, "delta": map[string]any{"reasoningContent": map[string]any{"redactedContent": data}}})
}

// ToolStart opens a tool-use block.
func ToolStart(idx int, id, name string) []byte {
	return Event("contentBlockStart", map[string]any{"contentBlockIndex": idx, "start": map[string]any{"toolUse": map[string]any{"toolUseId": id, "name": name}}, "p": "ab"})
}

// ToolDelta streams a piece of a tool's JSON input.
func ToolDelta(idx int, input string) []byte {
	return Event("contentBlockDelta", map[string]any{"contentBlockIndex": idx, "delta": map[string]any{"toolUse": map[string]any{"input": input}}, "p": "abcd"})
}

// BlockStop closes a content block.
func BlockStop(idx int) []byte {
	return Event("contentBlockStop", map[string]any{"contentBlockIndex": idx, "p": "a"})
}

// MessageStart opens the assistant message.
func MessageStart() []byte {
	return Event("messageStart", map[string]any{"role": "assistant", "p": "abcdef"})
}

// MessageStop ends it with a Bedrock stop reason.
func MessageStop(reason string) []byte {
	return Event("messageStop", map[string]any{"stopReason": reason, "p": "abcdefgh"})
}

// Metadata carries usage and metrics.
func Metadata(in, out, cacheRead, cacheWrite int) []byte {
	return Event("metadata", map[string]any{
		"usage":   map[string]any{"inputTokens": in, "outputTokens": out, "totalTokens": in + out + cacheRead + cacheWrite, "cacheReadInputTokens": cacheRead, "cacheWriteInputTokens": cacheWrite},
		"metrics": map[string]any{"latencyMs": 412},
		"p":       "abcdefghijk",
	})
}

// TextAnswer is a whole answer: text in pieces of chunk bytes.
func TextAnswer(text string, chunk int) [][]byte {
	out := [][]byte{MessageStart()}
	for len(text) > 0 {
		n := min(chunk, len(text))
		out = append(out, TextDelta(0, text[:n]))
		text = text[n:]
	}
	return append(out, BlockStop(0), MessageStop("end_turn"), Metadata(10, 20, 0, 0))
}

// Response is one scripted answer.
type Response struct {
	// Status and ErrorType answer with an HTTP error (x-amzn-ErrorType)
	// whose body is {"message": Message} when Status is not 0.
	Status    int
	ErrorType string
	Message   string
	// Frames are written in order; CutAfter > 0 closes the connection
	// after that many frames (mid-stream), Garbage is written after them.
	Frames   [][]byte
	CutAfter int
	Garbage  []byte
}

// Request is what the fake received.
type Request struct {
	Path          string // escaped path
	Header        http.Header
	Body          []byte
	SignatureOK   bool
	SignatureNote string // why the signature did not verify
}

// Server is the fake.
type Server struct {
	*httptest.Server
	// Credentials the signature must verify against; Region is the
	// signing region expected. Bearer, when set, is the token expected
	// instead.
	AccessKey, SecretKey, SessionToken, Region string
	Bearer                                     string

	mu        sync.Mutex
	responses []Response
	requests  []Request
}

// NewServer starts a fake answering responses in order (the last one
// repeats).
func NewServer(responses ...Response) *Server {
	s := &Server{AccessKey: "AKIDEXAMPLE", SecretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", Region: "us-east-1", responses: responses}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// Requests returns what was received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	rec := Request{Path: r.URL.EscapedPath(), Header: r.Header.Clone(), Body: body}
	ok := true
	if s.Bearer != "" {
		ok = r.Header.Get("Authorization") == "Bearer "+s.Bearer
		if !ok {
			rec.SignatureNote = "bearer token mismatch: " + r.Header.Get("Authorization")
		}
	} else if err := s.verify(r, body); err != nil {
		ok, rec.SignatureNote = false, err.Error()
	}
	rec.SignatureOK = ok
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	n := len(s.requests)
	resp := s.responses[min(n, len(s.responses))-1]
	s.mu.Unlock()

	if !ok {
		w.Header().Set("X-Amzn-Errortype", "InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.coral.service/")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(403)
		fmt.Fprintf(w, `{"message":%q}`, "The request signature we calculated does not match the signature you provided. "+rec.SignatureNote)
		return
	}
	if resp.Status != 0 {
		if resp.ErrorType != "" {
			w.Header().Set("X-Amzn-Errortype", resp.ErrorType+":http://internal.amazon.com/coral/com.amazon.bedrock/")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.Status)
		fmt.Fprintf(w, `{"message":%q}`, resp.Message)
		return
	}
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	w.Header().Set("X-Amzn-Requestid", "5f6e0f2c-0000-4000-8000-000000000000")
	w.WriteHeader(200)
	fl, _ := w.(http.Flusher)
	for i, f := range resp.Frames {
		if resp.CutAfter > 0 && i == resp.CutAfter {
			cut(w)
			return
		}
		w.Write(f)
		if fl != nil && i%64 == 0 {
			fl.Flush()
		}
	}
	if resp.Garbage != nil {
		w.Write(resp.Garbage)
	}
}

// cut drops the connection without ending the chunked body.
func cut(w http.ResponseWriter) {
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
		}
	}
}

// verify checks the AWS Signature Version 4 of r for service "bedrock".
func (s *Server) verify(r *http.Request, body []byte) error {
	auth := r.Header.Get("Authorization")
	const algo = "AWS4-HMAC-SHA256 "
	if !strings.HasPrefix(auth, algo) {
		return fmt.Errorf("no SigV4 authorization header: %q", auth)
	}
	parts := map[string]string{}
	for _, p := range strings.Split(strings.TrimPrefix(auth, algo), ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		parts[k] = v
	}
	scope := strings.Split(parts["Credential"], "/")
	if len(scope) != 5 || scope[4] != "aws4_request" {
		return fmt.Errorf("bad credential scope %q", parts["Credential"])
	}
	if scope[0] != s.AccessKey {
		return fmt.Errorf("access key %q, want %q", scope[0], s.AccessKey)
	}
	if scope[2] != s.Region || scope[3] != "bedrock" {
		return fmt.Errorf("scope region/service %s/%s, want %s/bedrock", scope[2], scope[3], s.Region)
	}
	amzDate := r.Header.Get("X-Amz-Date")
	if len(amzDate) != 16 || amzDate[:8] != scope[1] {
		return fmt.Errorf("x-amz-date %q does not match scope date %q", amzDate, scope[1])
	}
	if s.SessionToken != "" && r.Header.Get("X-Amz-Security-Token") != s.SessionToken {
		return fmt.Errorf("session token missing or wrong")
	}
	signed := strings.Split(parts["SignedHeaders"], ";")
	if !sort.StringsAreSorted(signed) {
		return fmt.Errorf("signed headers not sorted: %v", signed)
	}
	need := map[string]bool{"host": false, "x-amz-date": false}
	var ch strings.Builder
	for _, h := range signed {
		var v string
		switch h {
		case "host":
			v = r.Host
		case "content-length":
			v = strconv.FormatInt(r.ContentLength, 10)
		default:
			vals := r.Header.Values(h)
			for i := range vals {
				vals[i] = strings.Join(strings.Fields(vals[i]), " ")
			}
			v = strings.Join(vals, ",")
		}
		if _, ok := need[h]; ok {
			need[h] = true
		}
		ch.WriteString(h + ":" + v + "\n")
	}
	for h, seen := range need {
		if !seen {
			return fmt.Errorf("header %s not signed", h)
		}
	}
	if s.SessionToken != "" && !strings.Contains(parts["SignedHeaders"], "x-amz-security-token") {
		return fmt.Errorf("x-amz-security-token not signed")
	}
	sum := sha256.Sum256(body)
	canon := strings.Join([]string{
		r.Method,
		uriEncode(r.URL.EscapedPath()), // non-S3 services sign the path encoded twice
		canonicalQuery(r),
		ch.String(),
		parts["SignedHeaders"],
		hex.EncodeToString(sum[:]),
	}, "\n")
	cs := sha256.Sum256([]byte(canon))
	sts := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + strings.Join(scope[1:], "/") + "\n" + hex.EncodeToString(cs[:])
	key := hmacSHA([]byte("AWS4"+s.SecretKey), scope[1])
	key = hmacSHA(key, scope[2])
	key = hmacSHA(key, scope[3])
	key = hmacSHA(key, "aws4_request")
	want := hex.EncodeToString(hmacSHA(key, sts))
	if parts["Signature"] != want {
		return fmt.Errorf("signature %s, want %s (canonical request %q)", parts["Signature"], want, canon)
	}
	return nil
}

func hmacSHA(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

// uriEncode percent-encodes everything but unreserved characters and '/'.
func uriEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' || c == '/' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func canonicalQuery(r *http.Request) string {
	q := r.URL.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		vs := q[k]
		sort.Strings(vs)
		for _, v := range vs {
			parts = append(parts, uriEncode(k)+"="+uriEncode(v))
		}
	}
	return strings.Join(parts, "&")
}
