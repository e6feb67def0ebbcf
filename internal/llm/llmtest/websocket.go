package llmtest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// The Responses websocket mode: the client opens wss://.../responses, sends
// one text frame {"type":"response.create", ...body} and reads one text
// frame per event, the same JSON as the SSE data lines. The fake serves it
// for the openai-responses encoder when Websocket is on; otherwise an
// upgrade is refused with 426, as a server without the mode does.

// WebsocketFault is what a scripted websocket answer does wrong.
type WebsocketFault struct {
	// ConnectionLimit answers the request frame with the connection-limit
	// error before any event (the client falls back to SSE).
	ConnectionLimit bool
	// CloseAfter closes the socket abnormally after this many event frames.
	CloseAfter int
	// ForgetResponses answers every previous_response_id with
	// previous_response_not_found (a backend that lost the socket's state).
	ForgetResponses bool
}

// wsState is what one socket remembers: the id of its last response, the
// only one a previous_response_id on that socket may name (the backend
// keeps responses per connection, store:false or not).
type wsState struct{ lastResponse string }

func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// EnableWebsocket makes the server accept the websocket mode; fault, when
// set, applies to every socket.
func (s *Server) EnableWebsocket(fault *WebsocketFault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ws, s.wsFault = true, fault
}

// WebsocketRequests is how many sockets carried a request.
func (s *Server) WebsocketRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if r.Method == "WEBSOCKET" {
			n++
		}
	}
	return n
}

// WebsocketConnections is how many sockets were accepted.
func (s *Server) WebsocketConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wsConns
}

func (s *Server) serveWebsocket(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	on, fault := s.ws, s.wsFault
	s.mu.Unlock()
	enc := EncoderFor("openai-responses")
	if !on || !enc.Match(r) {
		http.Error(w, "websocket mode not served", http.StatusUpgradeRequired)
		return
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.wsConns++
	s.mu.Unlock()
	defer c.CloseNow()
	c.SetReadLimit(256 << 20)
	// One socket carries one request after another, as the cached
	// connections of the websocket-cached transport do.
	var st wsState
	for s.serveFrame(r, c, fault, &st) {
	}
}

// serveFrame answers one request frame; false when the socket is done.
func (s *Server) serveFrame(r *http.Request, c *websocket.Conn, fault *WebsocketFault, st *wsState) bool {
	enc := EncoderFor("openai-responses")
	ctx, cancel := context.WithTimeout(r.Context(), time.Minute)
	defer cancel()
	_, raw, err := c.Read(ctx)
	if err != nil {
		return false
	}
	var body map[string]any
	if json.Unmarshal(raw, &body) != nil || body["type"] != "response.create" {
		c.Write(ctx, websocket.MessageText, []byte(`{"type":"error","code":"invalid_request_error","message":"expected response.create"}`))
		c.Close(websocket.StatusPolicyViolation, "bad request frame")
		return false
	}
	delete(body, "type")
	rawBody, _ := json.Marshal(body)
	req := Request{API: "openai-responses", Method: "WEBSOCKET", Path: r.URL.Path, RawQuery: r.URL.RawQuery,
		Header: r.Header.Clone(), Raw: rawBody, Body: body}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	if s.onRequest != nil {
		s.onRequest(req)
	}
	s.mu.Unlock()
	if fault != nil && fault.ConnectionLimit {
		c.Write(ctx, websocket.MessageText, []byte(`{"type":"error","code":"websocket_connection_limit_reached","message":"Too many websocket connections"}`))
		c.Close(websocket.StatusNormalClosure, "")
		return false
	}
	if prev, _ := body["previous_response_id"].(string); body["previous_response_id"] != nil &&
		(prev == "" || prev != st.lastResponse || (fault != nil && fault.ForgetResponses)) {
		st.lastResponse = ""
		msg, _ := json.Marshal("Previous response with id '" + prev + "' not found.")
		c.Write(ctx, websocket.MessageText, []byte(`{"type":"error","status":400,"error":{"type":"invalid_request_error","code":"previous_response_not_found","message":`+string(msg)+`,"param":"previous_response_id"}}`))
		return true
	}
	resp, ok := s.pick("openai-responses", enc, &req)
	if !ok {
		c.Write(ctx, websocket.MessageText, []byte(`{"type":"error","code":"server_error","message":"fakellm: script exhausted"}`))
		return true
	}
	st.lastResponse = resp.ID
	if st.lastResponse == "" {
		st.lastResponse = defaultResponseID
	}
	content, final := enc.Encode(resp, &req)
	frames := append(content[:len(content):len(content)], final...)
	if f := resp.Fault; f != nil && (f.ErrorType != "" || f.ErrorMessage != "") {
		frames = append(content[:len(content):len(content)], enc.ErrorFrames(f.ErrorType, f.ErrorMessage)...)
		st.lastResponse = "" // a failed response cannot be continued
	}
	for i, fr := range frames {
		if fault != nil && fault.CloseAfter > 0 && i == fault.CloseAfter {
			c.Close(websocket.StatusInternalError, "fakellm: cut")
			return false
		}
		if resp.Delay > 0 {
			select {
			case <-time.After(time.Duration(resp.Delay)):
			case <-ctx.Done():
				return false
			}
		}
		if err := c.Write(ctx, websocket.MessageText, []byte(fr.Data)); err != nil {
			return false
		}
	}
	return true
}
