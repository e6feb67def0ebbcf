package responses

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func user(text string) llm.Message { return &llm.UserMessage{Content: llm.StringContent(text)} }

// inputTexts lists the text of each input item of a recorded request (the
// role or type when it has none), to compare what went over the socket.
func inputTexts(t *testing.T, r llmtest.Request) []string {
	t.Helper()
	items, _ := r.Body["input"].([]any)
	out := make([]string, 0, len(items))
	for _, it := range items {
		m, _ := it.(map[string]any)
		switch c := m["content"].(type) {
		case string:
			out = append(out, c)
		case []any:
			part, _ := c[0].(map[string]any)
			out = append(out, part["text"].(string))
		default:
			out = append(out, m["type"].(string))
		}
	}
	return out
}

type turn struct {
	name      string
	messages  func(prev []llm.Message) []llm.Message
	tools     []llm.ToolSpec
	wantPrev  string   // previous_response_id sent ("" = a full request)
	wantInput []string // the input items sent
}

func runTurns(t *testing.T, srv *llmtest.Server, transport string, fresh func() *llm.Request, c llm.Client, turns []turn) {
	t.Helper()
	var history []llm.Message
	for i, tt := range turns {
		req := fresh()
		req.Transport = transport
		req.Messages = tt.messages(history)
		req.Tools = tt.tools
		before := len(srv.Requests())
		var events []string
		msg := c.Stream(context.Background(), req, func(e llm.AssistantEvent) { events = append(events, string(e.Type)) })
		if msg.StopReason != llm.StopStop {
			t.Fatalf("turn %d (%s): %s %s", i, tt.name, msg.StopReason, msg.ErrorMessage)
		}
		for _, e := range events {
			if e == llm.EventError {
				t.Fatalf("turn %d (%s): an error event reached the caller: %v", i, tt.name, events)
			}
		}
		reqs := srv.Requests()[before:]
		last := reqs[len(reqs)-1]
		prev, _ := last.Body["previous_response_id"].(string)
		if prev != tt.wantPrev {
			t.Errorf("turn %d (%s): previous_response_id %q, want %q", i, tt.name, prev, tt.wantPrev)
		}
		got, _ := json.Marshal(inputTexts(t, last))
		want, _ := json.Marshal(tt.wantInput)
		if string(got) != string(want) {
			t.Errorf("turn %d (%s): input %s, want %s", i, tt.name, got, want)
		}
		history = append(req.Messages, msg)
	}
}

// On a cached socket a request that only appends to the previous request
// and its answer goes out as the new items with previous_response_id; an
// edited history or other tools send the full request.
func TestWebsocketCachedContinuation(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{
		{ID: "resp_1", Thinking: "plan", Text: "first"},
		{ID: "resp_2", Text: "second"},
		{ID: "resp_3", Text: "third"},
		{ID: "resp_4", Text: "fourth"},
		{ID: "resp_5", Text: "fifth"},
	}})
	defer srv.Close()
	srv.EnableWebsocket(nil)
	fresh := func() *llm.Request { return wsRequest(srv, "", "cont-1") }
	tool := []llm.ToolSpec{{Name: "read", Description: "read a file", Parameters: json.RawMessage(`{"type":"object"}`)}}
	runTurns(t, srv, "websocket-cached", fresh, New(), []turn{
		{name: "first", messages: func([]llm.Message) []llm.Message { return []llm.Message{user("one")} },
			wantInput: []string{"one"}},
		{name: "appended", messages: func(h []llm.Message) []llm.Message { return append(h, user("two")) },
			wantPrev: "resp_1", wantInput: []string{"two"}},
		{name: "appended again", messages: func(h []llm.Message) []llm.Message { return append(h, user("three")) },
			wantPrev: "resp_2", wantInput: []string{"three"}},
		{name: "tools changed", messages: func(h []llm.Message) []llm.Message { return append(h, user("four")) }, tools: tool,
			wantInput: []string{"one", "reasoning", "first", "two", "second", "three", "third", "four"}},
		{name: "history edited", messages: func(h []llm.Message) []llm.Message { return []llm.Message{user("five")} }, tools: tool,
			wantInput: []string{"five"}},
	})
	if n := srv.WebsocketConnections(); n != 1 {
		t.Errorf("%d sockets, want 1", n)
	}
}

// A server that lost the response answers previous_response_not_found: the
// full request goes out on the same socket and the caller sees one answer.
func TestWebsocketContinuationMissSendsFullRequest(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{ID: "resp_a", Text: "a"}, {ID: "resp_b", Text: "b"}}})
	defer srv.Close()
	srv.EnableWebsocket(&llmtest.WebsocketFault{ForgetResponses: true})
	fresh := func() *llm.Request { return wsRequest(srv, "", "cont-miss") }
	runTurns(t, srv, "websocket-cached", fresh, New(), []turn{
		{name: "first", messages: func([]llm.Message) []llm.Message { return []llm.Message{user("one")} }, wantInput: []string{"one"}},
		{name: "miss", messages: func(h []llm.Message) []llm.Message { return append(h, user("two")) },
			wantInput: []string{"one", "a", "two"}},
	})
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[1].Body["previous_response_id"] != "resp_a" || reqs[2].Body["previous_response_id"] != nil {
		t.Fatalf("requests: %d, want the first, the continued one and the full retry", len(reqs))
	}
	if n := srv.WebsocketConnections(); n != 1 {
		t.Errorf("%d sockets, want the same socket for the retry", n)
	}
}

// The plain websocket transport opens a socket per request: nothing to
// continue, every request is full.
func TestWebsocketUncachedSendsFullRequests(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{ID: "r1", Text: "x"}, {ID: "r2", Text: "y"}}})
	defer srv.Close()
	srv.EnableWebsocket(nil)
	fresh := func() *llm.Request { return wsRequest(srv, "", "uncached") }
	runTurns(t, srv, "websocket", fresh, New(), []turn{
		{name: "first", messages: func([]llm.Message) []llm.Message { return []llm.Message{user("one")} }, wantInput: []string{"one"}},
		{name: "second", messages: func(h []llm.Message) []llm.Message { return append(h, user("two")) }, wantInput: []string{"one", "x", "two"}},
	})
}

// The Codex backend (transport auto) continues too; its system prompt is
// the instructions, which stay in every request.
func TestCodexWebsocketContinuation(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{ID: "c1", Text: "x"}, {ID: "c2", Text: "y"}}})
	defer srv.Close()
	srv.EnableWebsocket(nil)
	fresh := func() *llm.Request {
		return &llm.Request{Model: codexModel(srv.URL), APIKey: codexJWT("acct"), SystemPrompt: "Be brief.", SessionID: "codex-cont"}
	}
	runTurns(t, srv, "auto", fresh, NewCodex(), []turn{
		{name: "first", messages: func([]llm.Message) []llm.Message { return []llm.Message{user("one")} }, wantInput: []string{"one"}},
		{name: "second", messages: func(h []llm.Message) []llm.Message { return append(h, user("two")) }, wantPrev: "c1", wantInput: []string{"two"}},
	})
	if last := srv.Requests()[1]; last.Body["instructions"] != "Be brief." {
		t.Errorf("instructions %v", last.Body["instructions"])
	}
}

func TestContinuationDeltaPayload(t *testing.T) {
	c := &continuation{rest: []byte(`{"model":"m"}`), baseline: [][]byte{[]byte(`{"a":1}`)}, responseID: "r"}
	for _, tt := range []struct {
		payload string
		want    string // "" = no continuation
	}{
		{`{"model":"m","input":[{"a": 1},{"b":2}]}`, `{"input":[{"b":2}],"model":"m","previous_response_id":"r"}`},
		{`{"model":"m","input":[{"a":1}]}`, `{"input":[],"model":"m","previous_response_id":"r"}`},
		{`{"model":"other","input":[{"a":1},{"b":2}]}`, ""},
		{`{"model":"m","input":[{"a":2},{"b":2}]}`, ""},
		{`{"model":"m","input":[]}`, ""},
		{`not json`, ""},
	} {
		got, ok := c.deltaPayload([]byte(tt.payload))
		if (tt.want == "") == ok || (ok && string(got) != tt.want) {
			t.Errorf("%s: got %s %v, want %s", tt.payload, got, ok, tt.want)
		}
	}
	if _, ok := (*continuation)(nil).deltaPayload([]byte(`{}`)); ok {
		t.Error("a socket without a last answer continued")
	}
}
