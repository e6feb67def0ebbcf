package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"
)

// Frame is one SSE event to send: "event: Event" (omitted when empty) and
// "data: Data", or Raw written verbatim when set.
type Frame struct {
	Event string
	Data  string
	Raw   string
}

// Bytes renders the frame.
func (f Frame) Bytes() []byte {
	if f.Raw != "" {
		return []byte(f.Raw)
	}
	var b strings.Builder
	b.Grow(len(f.Data) + len(f.Event) + 16)
	if f.Event != "" {
		b.WriteString("event: ")
		b.WriteString(f.Event)
		b.WriteString("\n")
	}
	b.WriteString("data: ")
	b.WriteString(f.Data)
	b.WriteString("\n\n")
	return []byte(b.String())
}

// Encoder renders scripted answers in one API's wire shapes.
type Encoder interface {
	// Match reports whether an HTTP request is for this API (by path).
	Match(r *http.Request) bool
	// Encode returns the stream of resp for req: the content frames (start
	// and blocks) and the final frames (stop reason, usage, end markers),
	// so faults can be injected between the two.
	Encode(resp *Response, req *Request) (content, final []Frame)
	// ErrorFrames returns the API's in-stream error event.
	ErrorFrames(typ, message string) []Frame
	// LastIsToolResult reports whether the last message of the request body
	// is a tool result.
	LastIsToolResult(req *Request) bool
	// RequestModel returns the model id the request asks for.
	RequestModel(req *Request) string
}

var (
	regMu    sync.Mutex
	registry = map[string]Encoder{}
)

// Register makes an encoder available under its API name (called from the
// init of each encoder file; cheap, and llmtest is never linked into relay).
func Register(api string, e Encoder) {
	regMu.Lock()
	defer regMu.Unlock()
	registry[api] = e
}

// EncoderFor returns the encoder of api, or nil.
func EncoderFor(api string) Encoder {
	regMu.Lock()
	defer regMu.Unlock()
	return registry[api]
}

func encoderForRequest(r *http.Request) (string, Encoder) {
	regMu.Lock()
	defer regMu.Unlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if registry[n].Match(r) {
			return n, registry[n]
		}
	}
	return "", nil
}

// Request is one recorded request.
type Request struct {
	API      string
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	// Body is the decoded JSON body (nil when it was not JSON).
	Body map[string]any
	// Raw is the body as sent, decompressed when it came with a
	// Content-Encoding (zstd); WireBytes is its size on the wire.
	Raw       []byte
	WireBytes int
}

// Server is a running fake provider. Its URL is the base URL for every API
// (Anthropic: URL + "/v1/messages"; OpenAI: URL + "/chat/completions" or
// "/responses"; Gemini: URL + "/models/ID:streamGenerateContent").
type Server struct {
	URL string
	srv *httptest.Server

	mu        sync.Mutex
	script    Script
	next      int
	ruleUsed  []int
	requests  []Request
	onRequest func(Request)
	ws        bool
	wsFault   *WebsocketFault
	wsConns   int
}

// NewServer starts a fake provider on a loopback port.
func NewServer(script *Script) *Server {
	s := newServer(script)
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL
	return s
}

// NewServerAt starts a fake provider listening on addr (e.g.
// "127.0.0.1:0" or "127.0.0.1:8089").
func NewServerAt(addr string, script *Script) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	s := newServer(script)
	s.srv = httptest.NewUnstartedServer(s)
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	s.URL = s.srv.URL
	return s, nil
}

func newServer(script *Script) *Server {
	s := &Server{}
	if script != nil {
		s.script = *script
	}
	s.ruleUsed = make([]int, len(s.script.Rules))
	return s
}

// Close shuts the server down, cutting open streams.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Push appends responses to the in-order queue.
func (s *Server) Push(r ...Response) {
	s.mu.Lock()
	s.script.Responses = append(s.script.Responses, r...)
	s.mu.Unlock()
}

// Requests returns a copy of the recorded requests, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// OnRequest registers fn to be called (serially) with every request as it
// is recorded.
func (s *Server) OnRequest(fn func(Request)) {
	s.mu.Lock()
	s.onRequest = fn
	s.mu.Unlock()
}

// Remaining returns how many in-order responses are still unused.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script.Responses) - s.next
}

func (s *Server) pick(api string, enc Encoder, req *Request) (*Response, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.script.Rules {
		r := &s.script.Rules[i]
		if r.Times > 0 && s.ruleUsed[i] >= r.Times {
			continue
		}
		if s.matches(&r.When, api, enc, req) {
			s.ruleUsed[i]++
			resp := r.Response
			return &resp, true
		}
	}
	if s.next < len(s.script.Responses) {
		resp := s.script.Responses[s.next]
		s.next++
		return &resp, true
	}
	if s.script.Repeat && len(s.script.Responses) > 0 {
		resp := s.script.Responses[len(s.script.Responses)-1]
		return &resp, true
	}
	return nil, false
}

func (s *Server) matches(m *Match, api string, enc Encoder, req *Request) bool {
	if m.API != "" && m.API != api {
		return false
	}
	if m.Contains != "" && !bytes.Contains(req.Raw, []byte(m.Contains)) {
		return false
	}
	if m.Model != "" && enc.RequestModel(req) != m.Model {
		return false
	}
	if m.ToolResult != nil && enc.LastIsToolResult(req) != *m.ToolResult {
		return false
	}
	return true
}

// ServeHTTP answers one request from the script.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isUpgrade(r) {
		s.serveWebsocket(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	wire := len(raw)
	raw, decodeErr := decodeBody(r.Header.Get("Content-Encoding"), raw)
	api, enc := encoderForRequest(r)
	req := Request{API: api, Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Raw: raw, WireBytes: wire}
	var body map[string]any
	if json.Unmarshal(raw, &body) == nil {
		req.Body = body
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	if s.onRequest != nil {
		s.onRequest(req)
	}
	s.mu.Unlock()

	if decodeErr != nil {
		http.Error(w, `{"error":{"type":"invalid_request_error","message":"fakellm: `+decodeErr.Error()+`"}}`, http.StatusBadRequest)
		return
	}
	if enc == nil {
		http.Error(w, `{"error":{"type":"not_found_error","message":"fakellm: no API serves `+r.URL.Path+`"}}`, http.StatusNotFound)
		return
	}
	resp, ok := s.pick(api, enc, &req)
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":{"type":"api_error","message":"fakellm: script exhausted"}}`)
		return
	}
	s.serve(w, r, enc, resp, &req)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, enc Encoder, resp *Response, req *Request) {
	f := resp.Fault
	if f == nil {
		f = &Fault{}
	}
	if f.Status != 0 {
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.Status)
		io.WriteString(w, f.Body)
		return
	}
	content, final := enc.Encode(resp, req)
	if f.HeadersOnly {
		content = nil
	}
	frames := content
	switch {
	case f.Pings > 0 || f.Trickle > 0 || f.Endless || f.HeadersOnly:
		// The tail is written after the content, below.
	case f.Garbage != "":
		frames = append(append(frames[:len(frames):len(frames)], Frame{Event: f.GarbageEvent, Data: f.Garbage}), final...)
	case f.ErrorType != "" || f.ErrorMessage != "":
		frames = append(frames[:len(frames):len(frames)], enc.ErrorFrames(f.ErrorType, f.ErrorMessage)...)
	case f.Stall > 0:
	default:
		frames = append(frames[:len(frames):len(frames)], final...)
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	flush := func() {
		if fl != nil {
			fl.Flush()
		}
	}
	if f.HeadersOnly {
		flush() // the headers go out now, the content never
	}
	written := 0
	var buf bytes.Buffer
	for _, fr := range frames {
		if resp.Delay > 0 {
			select {
			case <-time.After(time.Duration(resp.Delay)):
			case <-r.Context().Done():
				return
			}
		}
		b := fr.Bytes()
		if f.CutAfter > 0 && written+len(b) >= f.CutAfter {
			buf.Write(b[:f.CutAfter-written])
			w.Write(buf.Bytes())
			flush()
			// Abort the connection without finishing the chunked body: the
			// client sees an unexpected EOF.
			panic(http.ErrAbortHandler)
		}
		written += len(b)
		buf.Write(b)
		if !s.script.ZeroLatency || resp.Delay > 0 {
			w.Write(buf.Bytes())
			buf.Reset()
			flush()
		}
	}
	if buf.Len() > 0 {
		w.Write(buf.Bytes())
		flush()
	}
	if !s.stallTail(w, r, enc, f, content, final, flush) {
		return
	}
	if f.Stall > 0 {
		select {
		case <-time.After(time.Duration(f.Stall)):
		case <-r.Context().Done():
		}
	}
}

// stallTail writes what a stalling fault sends after the content (see
// Fault.Pings, Trickle, Endless); false when the client went away.
func (s *Server) stallTail(w http.ResponseWriter, r *http.Request, enc Encoder, f *Fault, content, final []Frame, flush func()) bool {
	wait := func(d time.Duration) bool {
		select {
		case <-time.After(d):
			return true
		case <-r.Context().Done():
			return false
		}
	}
	write := func(b []byte) bool {
		if _, err := w.Write(b); err != nil {
			return false
		}
		flush()
		return r.Context().Err() == nil
	}
	switch {
	case f.Endless:
		for sent := 0; sent < EndlessBytes; {
			for _, fr := range content {
				b := fr.Bytes()
				if !write(b) {
					return false
				}
				sent += len(b)
			}
			if len(content) == 0 {
				break
			}
		}
		for _, fr := range final {
			if !write(fr.Bytes()) {
				return false
			}
		}
	case f.Trickle > 0:
		deadline := time.Now().Add(StallBound)
		for _, fr := range final {
			for _, c := range fr.Bytes() {
				if time.Now().After(deadline) || !wait(time.Duration(f.Trickle)) || !write([]byte{c}) {
					return false
				}
			}
		}
	case f.Pings > 0:
		ping := Frame{Raw: ": keep-alive\n\n"}
		if ka, ok := enc.(KeepAliver); ok {
			ping = ka.KeepAlive()
		}
		for deadline := time.Now().Add(StallBound); time.Now().Before(deadline); {
			if !wait(time.Duration(f.Pings)) || !write(ping.Bytes()) {
				return false
			}
		}
	}
	return true
}
