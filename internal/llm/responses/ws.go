package responses

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/relay-agent/relay/internal/llm"
)

// The websocket transport (settings transport: websocket, websocket-cached,
// auto): the request goes out as one text frame {"type":"response.create",
// ...body} on wss://<base>/responses and every event of the answer comes
// back as one text frame, the same JSON an SSE data line carries. It saves
// the HTTP round trip per turn on providers that keep the socket warm. A
// socket that cannot be opened, or fails before the first event, falls
// back to SSE for the rest of the session; after the first event a failure
// ends the answer (output was already shown).

// websocketBeta is the beta header the websocket mode requires.
const websocketBeta = "responses_websockets=2026-02-06"

// maxFrameBytes bounds one event frame; an answer's events are small, the
// final response.completed repeats the output (a long answer's text).
const maxFrameBytes = 64 << 20

// wantsWebsocket reports whether req asks for the websocket transport on
// this API. "auto" means websocket only where the provider is known to
// serve it (ChatGPT's Codex backend); plain Responses servers, many of them
// imitations, get SSE unless websocket is asked for by name.
func wantsWebsocket(req *llm.Request) bool {
	switch req.Transport {
	case "websocket", "websocket-cached":
		return true
	case "auto":
		return req.Model.API == "openai-codex-responses"
	}
	return false
}

// streamWebsocketFirst runs req over a socket when its transport asks for
// one and the session has not fallen back; ok is false when SSE must carry
// it (nothing was emitted).
func streamWebsocketFirst(ctx context.Context, req *llm.Request, url string, body any, headers func(http.Header), b *llm.MessageBuilder) (*llm.AssistantMessage, bool) {
	if !wantsWebsocket(req) {
		return nil, false
	}
	if _, sticky := sseSessions.Load(req.SessionID); sticky && req.SessionID != "" {
		return nil, false
	}
	msg, err := streamWebsocket(ctx, req, url, body, headers, b)
	if err == nil {
		return msg, true
	}
	if req.SessionID != "" {
		sseSessions.Store(req.SessionID, true)
	}
	return nil, false
}

// sseSessions remembers sessions whose socket failed: they stay on SSE
// (a broken proxy would otherwise cost a failed handshake per turn).
var sseSessions sync.Map

func wsURL(httpURL string) string {
	switch {
	case strings.HasPrefix(httpURL, "https://"):
		return "wss://" + strings.TrimPrefix(httpURL, "https://")
	case strings.HasPrefix(httpURL, "http://"):
		return "ws://" + strings.TrimPrefix(httpURL, "http://")
	}
	return httpURL
}

// errFallback marks a websocket failure before any event: SSE can still
// carry the request.
type errFallback struct{ err error }

func (e errFallback) Error() string { return "websocket: " + e.err.Error() }

// streamWebsocket runs the request over a socket. A non-nil error means
// nothing was emitted and the caller should fall back to SSE.
func streamWebsocket(ctx context.Context, req *llm.Request, url string, body any, headers func(http.Header), b *llm.MessageBuilder) (*llm.AssistantMessage, error) {
	payload, err := llm.Marshal(body)
	if err != nil {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: "encode request: " + err.Error()}), nil
	}
	if req.OnPayload != nil {
		if payload, err = req.OnPayload(payload); err != nil {
			return b.Fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: "before_provider_request: " + err.Error()}), nil
		}
	}
	if len(payload) < 2 || payload[0] != '{' {
		return nil, errFallback{errors.New("request body is not a JSON object")}
	}
	frame := createFrame(payload)

	h := http.Header{}
	headers(h)
	llm.ApplyHeaders(h, req.Model, req)
	h.Set("OpenAI-Beta", websocketBeta)
	id := req.SessionID
	if id == "" {
		if v, err := uuid.NewV7(); err == nil {
			id = v.String()
		}
	}
	if len(id) > 64 {
		id = id[:64]
	}
	h.Set("session-id", id)
	h.Set("x-client-request-id", id)
	if req.OnHeaders != nil {
		req.OnHeaders(h)
	}

	key := poolKey(req, url, h)
	for attempt := 0; ; attempt++ {
		pc, reused := pool.acquire(key)
		if pc == nil {
			conn, err := dial(ctx, req, url, h)
			if err != nil {
				if ctx.Err() != nil {
					return b.Fail(llm.ErrorFromContext(ctx)), nil
				}
				return nil, errFallback{err}
			}
			pc = &pooledConn{conn: conn, created: time.Now()}
		}
		// A cached socket whose last answer this request continues sends
		// only the new input items (ws_continue.go).
		cont := pc.cont
		pc.cont = nil
		var answer *llm.AssistantMessage
		var err error
		if delta, ok := cont.deltaPayload(payload); ok && caches(req) {
			answer, err = exchange(ctx, req, pc.conn, createFrame(delta), b, true)
			if errors.Is(err, errContinuationMiss) {
				answer, err = exchange(ctx, req, pc.conn, frame, b, false)
			}
		} else {
			answer, err = exchange(ctx, req, pc.conn, frame, b, false)
		}
		keep := err == nil && answer != nil && answer.StopReason != llm.StopError && answer.StopReason != llm.StopAborted && caches(req)
		if keep {
			pc.cont = newContinuation(req, payload, answer)
		}
		pool.release(key, pc, keep)
		// A cached socket the server closed while idle fails before any
		// event: one fresh socket, then SSE.
		if err != nil && reused && attempt == 0 {
			continue
		}
		return answer, err
	}
}

// createFrame is the websocket request frame of a JSON object body:
// {"type":"response.create", ...body}.
func createFrame(payload []byte) []byte {
	frame := make([]byte, 0, len(payload)+32)
	frame = append(frame, `{"type":"response.create"`...)
	if !bytes.Equal(bytes.TrimSpace(payload), []byte("{}")) {
		frame = append(frame, ',')
	}
	return append(frame, payload[1:]...)
}

func dial(ctx context.Context, req *llm.Request, url string, h http.Header) (*websocket.Conn, error) {
	dialCtx := ctx
	if req.WebsocketConnectTimeout > 0 {
		var cancel context.CancelFunc
		dialCtx, cancel = context.WithTimeout(ctx, req.WebsocketConnectTimeout)
		defer cancel()
	}
	conn, resp, err := websocket.Dial(dialCtx, wsURL(url), &websocket.DialOptions{HTTPHeader: h, HTTPClient: req.HTTPClient})
	if resp != nil && req.OnResponse != nil {
		req.OnResponse(resp.StatusCode, resp.Header)
	}
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(maxFrameBytes)
	return conn, nil
}

// exchange sends the request frame and reads the answer's events. A
// continued request (delta) that the server cannot continue returns
// errContinuationMiss before anything is emitted.
func exchange(ctx context.Context, req *llm.Request, conn *websocket.Conn, frame []byte, b *llm.MessageBuilder, delta bool) (*llm.AssistantMessage, error) {
	if err := conn.Write(ctx, websocket.MessageText, frame); err != nil {
		if ctx.Err() != nil {
			return b.Fail(llm.ErrorFromContext(ctx)), nil
		}
		return nil, errFallback{err}
	}
	hd := newEventHandler(b)
	var buf bytes.Buffer // one frame at a time, reused: an answer is hundreds of small frames
	for {
		rctx, cancel := ctx, context.CancelFunc(func() {})
		if req.IdleTimeout > 0 {
			rctx, cancel = context.WithTimeout(ctx, req.IdleTimeout)
		}
		buf.Reset()
		typ, r, err := conn.Reader(rctx)
		if err == nil {
			_, err = buf.ReadFrom(r)
		}
		data := buf.Bytes()
		idle := rctx.Err() != nil && ctx.Err() == nil
		cancel()
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return hd.finish(ctx, ctx.Err()), nil
			case hd.seen == 0 && !idle:
				return nil, errFallback{err}
			case idle:
				return b.Fail(&llm.ProviderError{Kind: llm.ErrNetwork,
					Message: fmt.Sprintf("stream idle timeout: no answer content for %s", req.IdleTimeout)}), nil
			case websocket.CloseStatus(err) == websocket.StatusMessageTooBig:
				return hd.finish(ctx, errors.New("websocket: message too big")), nil
			}
			return hd.finish(ctx, fmt.Errorf("websocket closed before the response completed: %w", err)), nil
		}
		if typ != websocket.MessageText {
			continue
		}
		// A connection-limit error before the answer starts is a transport
		// failure: SSE can still serve the request.
		if hd.seen == 0 && bytes.Contains(data, []byte(`"websocket_connection_limit_reached"`)) {
			return nil, errFallback{errors.New("websocket_connection_limit_reached")}
		}
		if delta && hd.seen == 0 && bytes.Contains(data, []byte(`"previous_response_not_found"`)) {
			return nil, errContinuationMiss
		}
		if hd.seen == 0 {
			b.Start() // lazily: a fallback before the first event stays invisible
		}
		if !hd.handle("", data) {
			return hd.finish(ctx, nil), nil
		}
	}
}

// Cached sockets (transport websocket-cached, and auto): one per session,
// account and endpoint, reused by the session's next request while idle
// less than 5 minutes and younger than 55 (the backend closes sockets at
// 60). A busy socket is not shared: the request gets a one-off socket.
const (
	socketIdleTTL = 5 * time.Minute
	socketMaxAge  = 55 * time.Minute
)

func caches(req *llm.Request) bool {
	return req.SessionID != "" && (req.Transport == "websocket-cached" || req.Transport == "auto")
}

func poolKey(req *llm.Request, url string, h http.Header) string {
	if !caches(req) {
		return ""
	}
	sum := sha256.Sum256([]byte(h.Get("Authorization")))
	return req.SessionID + "\x00" + url + "\x00" + hex.EncodeToString(sum[:8])
}

type pooledConn struct {
	conn              *websocket.Conn
	created, lastUsed time.Time
	busy              bool
	// cont is the socket's last answer, for the next request to continue
	// (only while the socket is cached; guarded by busy).
	cont *continuation
}

type socketPool struct {
	mu sync.Mutex
	m  map[string]*pooledConn
}

var pool = &socketPool{m: map[string]*pooledConn{}}

// acquire returns the idle cached socket of key, marked busy, or nil.
func (p *socketPool) acquire(key string) (*pooledConn, bool) {
	if key == "" {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	pc := p.m[key]
	switch {
	case pc == nil || pc.busy:
		return nil, false
	case time.Since(pc.lastUsed) > socketIdleTTL || time.Since(pc.created) > socketMaxAge:
		delete(p.m, key)
		pc.conn.CloseNow()
		return nil, false
	}
	pc.busy = true
	return pc, true
}

// release keeps pc for key's next request when keep, else closes it.
func (p *socketPool) release(key string, pc *pooledConn, keep bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if keep && key != "" {
		if cur := p.m[key]; cur == nil || cur == pc {
			pc.busy, pc.lastUsed = false, time.Now()
			p.m[key] = pc
			return
		}
	}
	if p.m[key] == pc {
		delete(p.m, key)
	}
	go pc.conn.Close(websocket.StatusNormalClosure, "") // the close handshake may wait on the peer
}
