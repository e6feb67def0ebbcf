package responses

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func wsRequest(srv *llmtest.Server, transport, session string) *llm.Request {
	return &llm.Request{Model: testModel(srv.URL), APIKey: "sk-test", Transport: transport, SessionID: session,
		Messages: []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}}, WebsocketConnectTimeout: 5 * time.Second}
}

func countMethods(srv *llmtest.Server) (ws, post int) {
	for _, r := range srv.Requests() {
		switch r.Method {
		case "WEBSOCKET":
			ws++
		case "POST":
			post++
		}
	}
	return
}

func TestWebsocketTurn(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{
		{Thinking: "plan", Text: "Hello over the socket.", ChunkSize: 4},
		{Thinking: "plan", Text: "Hello over SSE.", ChunkSize: 4},
	}})
	defer srv.Close()
	srv.EnableWebsocket(nil)
	var events []string
	msg := New().Stream(context.Background(), wsRequest(srv, "websocket", "sess-1"), func(e llm.AssistantEvent) { events = append(events, string(e.Type)) })
	if msg.StopReason != llm.StopStop || msg.Text() != "Hello over the socket." {
		t.Fatalf("websocket answer: %s %q %s", msg.StopReason, msg.Text(), msg.ErrorMessage)
	}
	if events[0] != "start" || events[len(events)-1] != "done" {
		t.Errorf("events %v", events)
	}
	r := srv.Requests()[0]
	if r.Method != "WEBSOCKET" || r.Header.Get("OpenAI-Beta") != websocketBeta || r.Header.Get("Authorization") != "Bearer sk-test" ||
		r.Header.Get("session-id") != "sess-1" || r.Body["model"] != "gpt-5" || r.Body["stream"] != true {
		t.Errorf("request on the socket: %s %v %v", r.Method, r.Header, r.Body)
	}
	// The same answer over SSE decodes identically.
	sse := New().Stream(context.Background(), wsRequest(srv, "sse", "sess-1"), nil)
	if sse.Text() != "Hello over SSE." || len(sse.Content) != len(msg.Content) || sse.Usage.Output != msg.Usage.Output {
		t.Errorf("sse %q %d blocks vs ws %d", sse.Text(), len(sse.Content), len(msg.Content))
	}
	if ws, post := countMethods(srv); ws != 1 || post != 1 {
		t.Errorf("websocket %d, post %d", ws, post)
	}
}

func TestWebsocketFallsBackToSSE(t *testing.T) {
	for _, tt := range []struct {
		name   string
		enable bool
		fault  *llmtest.WebsocketFault
		wantWS int // sockets that carried a request
	}{
		{"server without the mode (426)", false, nil, 0},
		{"connection limit before the answer", true, &llmtest.WebsocketFault{ConnectionLimit: true}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "via SSE"}}, Repeat: true})
			defer srv.Close()
			if tt.enable {
				srv.EnableWebsocket(tt.fault)
			}
			session := "fallback-" + tt.name
			for i := range 2 {
				msg := New().Stream(context.Background(), wsRequest(srv, "websocket", session), nil)
				if msg.StopReason != llm.StopStop || msg.Text() != "via SSE" {
					t.Fatalf("turn %d: %s %q %s", i, msg.StopReason, msg.Text(), msg.ErrorMessage)
				}
			}
			// The second turn goes straight to SSE: the session is sticky.
			if ws, post := countMethods(srv); ws != tt.wantWS || post != 2 {
				t.Errorf("websocket %d (want %d), post %d (want 2)", ws, tt.wantWS, post)
			}
		})
	}
}

// After the first event a broken socket ends the answer with an error: the
// output was shown, a silent retry over SSE would duplicate it.
func TestWebsocketCutAfterOutputDoesNotFallBack(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "partial answer here", ChunkSize: 3}}, Repeat: true})
	defer srv.Close()
	srv.EnableWebsocket(&llmtest.WebsocketFault{CloseAfter: 4})
	msg := New().Stream(context.Background(), wsRequest(srv, "websocket", "cut"), nil)
	if msg.StopReason != llm.StopError || !strings.Contains(msg.ErrorMessage, "websocket closed before the response completed") {
		t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
	}
	if _, post := countMethods(srv); post != 0 {
		t.Errorf("fell back to SSE after output (%d posts)", post)
	}
}

// A handshake that never completes is bounded by the connect timeout, then
// SSE carries the request.
func TestWebsocketConnectTimeout(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "via SSE"}}})
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accepts and never answers the upgrade
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	req := wsRequest(srv, "websocket", "")
	req.WebsocketConnectTimeout = 200 * time.Millisecond
	b := llm.NewMessageBuilder(req.Model, nil)
	_, err = streamWebsocket(context.Background(), req, "http://"+ln.Addr().String()+"/responses", buildBody(req), func(http.Header) {}, b)
	if err == nil {
		t.Fatal("a handshake that never completes did not fail")
	}
	if _, ok := err.(errFallback); !ok {
		t.Errorf("error %v is not a fallback", err)
	}
}

func TestAutoUsesSSEOnPlainResponses(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "sse"}}})
	defer srv.Close()
	srv.EnableWebsocket(nil)
	msg := New().Stream(context.Background(), wsRequest(srv, "auto", "auto"), nil)
	if msg.Text() != "sse" {
		t.Fatalf("%q %s", msg.Text(), msg.ErrorMessage)
	}
	if ws, post := countMethods(srv); ws != 0 || post != 1 {
		t.Errorf("auto on openai-responses: websocket %d, post %d", ws, post)
	}
}

// websocket-cached keeps the session's socket for its next request; the
// plain websocket transport opens one per request.
func TestWebsocketCachedReusesTheSocket(t *testing.T) {
	for _, tt := range []struct {
		transport string
		conns     int
	}{{"websocket-cached", 1}, {"websocket", 3}} {
		srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "again"}}, Repeat: true})
		srv.EnableWebsocket(nil)
		for i := range 3 {
			if msg := New().Stream(context.Background(), wsRequest(srv, tt.transport, "cached-"+tt.transport), nil); msg.Text() != "again" {
				t.Fatalf("%s turn %d: %q %s", tt.transport, i, msg.Text(), msg.ErrorMessage)
			}
		}
		if ws, post := countMethods(srv); ws != 3 || post != 0 || srv.WebsocketConnections() != tt.conns {
			t.Errorf("%s: %d requests on %d sockets (want %d), %d posts", tt.transport, ws, srv.WebsocketConnections(), tt.conns, post)
		}
		srv.Close()
	}
}

// BenchmarkTurn compares one short answer over SSE and over the socket
// against the same fake (issue 14: a websocket turn is no slower): at once
// (the fake writes every SSE event in one go, but one syscall per websocket
// frame) and paced like a model producing tokens (200 µs per event).
func BenchmarkTurn(b *testing.B) {
	for _, paced := range []bool{false, true} {
		for _, transport := range []string{"sse", "websocket", "websocket-cached"} {
			name := transport
			if paced {
				name += "/paced"
			}
			b.Run(name, func(b *testing.B) { benchTurn(b, transport, paced) })
		}
	}
}

func benchTurn(b *testing.B, transport string, paced bool) {
	resp := llmtest.Response{Text: strings.Repeat("word ", 200), ChunkSize: 16}
	if paced {
		resp.Delay = llmtest.Duration(200 * time.Microsecond)
	}
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{resp}, Repeat: true})
	defer srv.Close()
	srv.EnableWebsocket(nil)
	c := New()
	for b.Loop() {
		msg := c.Stream(context.Background(), wsRequest(srv, transport, "bench"), nil)
		if msg.StopReason != llm.StopStop {
			b.Fatal(msg.ErrorMessage)
		}
	}
}

// The Codex backend is reached over the socket under transport auto (the
// default), with its own headers and the websocket beta.
func TestCodexWebsocketUnderAuto(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}})
	defer srv.Close()
	srv.EnableWebsocket(nil)
	req := &llm.Request{Model: codexModel(srv.URL), APIKey: codexJWT("acct-7"), SystemPrompt: "Be brief.", SessionID: "sess-ws",
		Transport: "auto", Messages: []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}}}
	msg := NewCodex().Stream(context.Background(), req, nil)
	if msg.StopReason != llm.StopStop || msg.Text() != "ok" {
		t.Fatalf("%s %q %s", msg.StopReason, msg.Text(), msg.ErrorMessage)
	}
	rq := srv.Requests()[0]
	if rq.Method != "WEBSOCKET" || rq.Path != "/codex/responses" || rq.Header.Get("Chatgpt-Account-Id") != "acct-7" ||
		rq.Header.Get("Openai-Beta") != websocketBeta || rq.Header.Get("Session-Id") != "sess-ws" ||
		rq.Body["instructions"] != "Be brief." || rq.Body["store"] != false {
		t.Fatalf("%s %s %v %v", rq.Method, rq.Path, rq.Header, rq.Body)
	}
}
