package responses

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

func goldenBytes(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from golden:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func testModel(baseURL string) *llm.Model {
	return &llm.Model{ID: "gpt-5", Name: "GPT-5", API: llm.APIOpenAIResponses, Provider: "openai",
		BaseURL: baseURL, Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 400000, MaxTokens: 128000,
		Cost: llm.ModelCost{Input: 1.25, Output: 10, CacheRead: 0.125}}
}

type capture struct{ events []llm.AssistantEvent }

func (c *capture) emit(e llm.AssistantEvent) { c.events = append(c.events, e) }

func run(t *testing.T, srv *llmtest.Server, req *llm.Request) (*llm.AssistantMessage, *capture) {
	t.Helper()
	if req.Model == nil {
		req.Model = testModel(srv.URL)
	}
	if req.APIKey == "" {
		req.APIKey = "sk-test"
	}
	if req.Messages == nil {
		req.Messages = []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}}
	}
	var c capture
	msg := New().Stream(context.Background(), req, c.emit)
	return msg, &c
}

func eventLog(t *testing.T, msg *llm.AssistantMessage, c *capture) []byte {
	var out bytes.Buffer
	msg.Timestamp = 0
	for _, e := range c.events {
		w, err := llm.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(w)
		out.WriteByte('\n')
		if e.Partial != msg {
			t.Fatal("Partial is not the final message")
		}
	}
	final, _ := llm.Marshal(msg)
	out.Write(final)
	out.WriteByte('\n')
	return out.Bytes()
}

func TestEventSequences(t *testing.T) {
	tests := []struct {
		name string
		resp llmtest.Response
	}{
		{"text", llmtest.Response{ID: "resp_text", Text: "Hello, world! How can I help?", ChunkSize: 8,
			Usage: &llmtest.Usage{Input: 12, Output: 9}}},
		{"thinking", llmtest.Response{ID: "resp_think", ChunkSize: 10, Content: []llmtest.Block{
			{Type: "thinking", Text: "**Greeting**\n\nThe user greets me.", Signature: "gAAAAABoQ8xEncrypted=="},
			{Type: "text", Text: "Hi there."}},
			Usage: &llmtest.Usage{Input: 20, Output: 40, Reasoning: 25, CacheRead: 8}}},
		{"parallel_tools", llmtest.Response{ID: "resp_tools", ChunkSize: 7, Content: []llmtest.Block{
			{Type: "text", Text: "Let me look."},
			{Type: "toolCall", ID: "call_01", Name: "read", Args: json.RawMessage(`{"path": "main.go", "limit": 20}`)},
			{Type: "toolCall", ID: "call_02", Name: "bash", Args: json.RawMessage(`{"command":"ls -la \"dir\""}`)}},
			Usage: &llmtest.Usage{Input: 100, Output: 50, CacheRead: 1000}}},
		{"max_tokens", llmtest.Response{ID: "resp_len", Text: "cut", StopReason: "length", Usage: &llmtest.Usage{Input: 1, Output: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{tt.resp}})
			defer srv.Close()
			msg, c := run(t, srv, &llm.Request{})
			goldenBytes(t, "events/"+tt.name+".jsonl", eventLog(t, msg, c))
		})
	}
}

// TestReplayRoundTrip streams a reasoning + tool-call answer, then sends it
// back: the reasoning item must return verbatim (encrypted content
// included) and the function call with its item id.
func TestReplayRoundTrip(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{
		{Content: []llmtest.Block{
			{Type: "thinking", Text: "plan", Signature: "gAAAAABenc"},
			{Type: "text", Text: "Reading."},
			{Type: "toolCall", ID: "call_7", Name: "read", Args: json.RawMessage(`{"path":"x"}`)}}},
		{Text: "done"},
	}})
	defer srv.Close()
	first, _ := run(t, srv, &llm.Request{ThinkingLevel: llm.ThinkingMedium, SessionID: "sess-1"})
	if first.StopReason != llm.StopToolUse {
		t.Fatalf("stop %s %s", first.StopReason, first.ErrorMessage)
	}
	tc := first.ToolCalls()[0]
	if tc.ID != "call_7|fc_fake2" {
		t.Errorf("tool call id %q", tc.ID)
	}
	msgs := []llm.Message{
		&llm.UserMessage{Content: llm.StringContent("hi")},
		first,
		&llm.ToolResultMessage{ToolCallID: tc.ID, ToolName: "read", Content: llm.Blocks{&llm.TextContent{Text: "content"}}},
	}
	second, _ := run(t, srv, &llm.Request{Messages: msgs, ThinkingLevel: llm.ThinkingMedium, SessionID: "sess-1"})
	if second.Text() != "done" {
		t.Fatalf("second %q %s", second.Text(), second.ErrorMessage)
	}
	in := srv.Requests()[1].Body["input"].([]any)
	got, _ := json.Marshal(in[1:])
	want := `[{"encrypted_content":"gAAAAABenc","id":"rs_fake0","summary":[{"text":"plan","type":"summary_text"}],"type":"reasoning"},` +
		`{"content":[{"annotations":[],"text":"Reading.","type":"output_text"}],"id":"msg_fake1","role":"assistant","status":"completed","type":"message"},` +
		`{"arguments":"{\"path\":\"x\"}","call_id":"call_7","id":"fc_fake2","name":"read","type":"function_call"},` +
		`{"call_id":"call_7","output":"content","type":"function_call_output"}]`
	if string(got) != want {
		t.Errorf("replayed input\n got %s\nwant %s", got, want)
	}
	body := srv.Requests()[1].Body
	if body["prompt_cache_key"] != "sess-1" || body["store"] != false {
		t.Errorf("cache key / store: %v %v", body["prompt_cache_key"], body["store"])
	}
}

func TestUsageAndCost(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok",
		Usage: &llmtest.Usage{Input: 1000, Output: 2000, CacheRead: 10000, Reasoning: 500}}}})
	defer srv.Close()
	msg, _ := run(t, srv, &llm.Request{})
	u := msg.Usage
	if u.Input != 1000 || u.Output != 2000 || u.CacheRead != 10000 || u.Reasoning != 500 || u.TotalTokens != 13000 {
		t.Fatalf("usage %+v", u)
	}
	want := 1000*1.25/1e6 + 2000*10/1e6 + 10000*0.125/1e6
	if d := u.Cost.Total - want; d > 1e-12 || d < -1e-12 {
		t.Fatalf("cost %+v, want total %v", u.Cost, want)
	}
}

func TestRequestOnTheWire(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}})
	defer srv.Close()
	msg, _ := run(t, srv, &llm.Request{APIKey: "sk-abc", ThinkingLevel: llm.ThinkingLow})
	if msg.StopReason != llm.StopStop || msg.ResponseID != "resp_fake01" {
		t.Fatalf("stop %s %s id %s", msg.StopReason, msg.ErrorMessage, msg.ResponseID)
	}
	r := srv.Requests()[0]
	if r.Path != "/responses" || r.Header.Get("Authorization") != "Bearer sk-abc" {
		t.Errorf("path %s headers %v", r.Path, r.Header)
	}
	if got, _ := json.Marshal(r.Body["reasoning"]); string(got) != `{"effort":"low","summary":"auto"}` {
		t.Errorf("reasoning %s", got)
	}
}

func TestMissingKey(t *testing.T) {
	msg := New().Stream(context.Background(), &llm.Request{Model: testModel("http://127.0.0.1:1")}, nil)
	if msg.StopReason != llm.StopError || msg.ErrorMessage != "No API key for provider: openai" {
		t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
	}
}

func TestAbortMidStream(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{
		Text: strings.Repeat("word ", 200), ChunkSize: 5, Delay: llmtest.Duration(5 * time.Millisecond)}}})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := &llm.Request{Model: testModel(srv.URL), APIKey: "k", Messages: []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}}}
	deltas := 0
	start := time.Now()
	msg := New().Stream(ctx, req, func(e llm.AssistantEvent) {
		if e.Type == llm.EventTextDelta {
			deltas++
			if deltas == 3 {
				cancel()
			}
		}
	})
	if msg.StopReason != llm.StopAborted || msg.ErrorMessage != llm.AbortedMessage {
		t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
	}
	if msg.Text() != "word word word " {
		t.Fatalf("partial %q", msg.Text())
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("abort was not prompt")
	}
}

func rawStream(events ...string) string {
	var sb strings.Builder
	for _, e := range events {
		var probe struct {
			Type string `json:"type"`
		}
		json.Unmarshal([]byte(e), &probe)
		sb.WriteString("event: " + probe.Type + "\ndata: " + e + "\n\n")
	}
	return sb.String()
}

func TestSummaryPartsAndFailure(t *testing.T) {
	body := rawStream(
		`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","model":"gpt-5-2025-08-07"}}`,
		`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`,
		`{"type":"response.reasoning_summary_part.added","sequence_number":2,"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}}`,
		`{"type":"response.reasoning_summary_text.delta","sequence_number":3,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"one"}`,
		`{"type":"response.reasoning_summary_part.done","sequence_number":4,"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":"one"}}`,
		`{"type":"response.reasoning_summary_part.added","sequence_number":5,"item_id":"rs_1","output_index":0,"summary_index":1,"part":{"type":"summary_text","text":""}}`,
		`{"type":"response.reasoning_summary_text.delta","sequence_number":6,"item_id":"rs_1","output_index":0,"summary_index":1,"delta":"two"}`,
		`{"type":"response.output_item.done","sequence_number":7,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"one"},{"type":"summary_text","text":"two"}]}}`,
		`{"type":"response.failed","sequence_number":8,"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"The model failed"}}}`,
	)
	b := llm.NewMessageBuilder(testModel(""), nil)
	msg := readStream(context.Background(), strings.NewReader(body), b)
	th := msg.Content[0].(*llm.ThinkingContent)
	if th.Thinking != "one\n\ntwo" {
		t.Errorf("thinking %q", th.Thinking)
	}
	if msg.StopReason != llm.StopError || msg.ErrorMessage != "server_error: The model failed" || !msg.Err.Retryable() {
		t.Errorf("got %s %q %+v", msg.StopReason, msg.ErrorMessage, msg.Err)
	}
	if msg.ResponseID != "resp_1" || msg.ResponseModel != "gpt-5-2025-08-07" {
		t.Errorf("id %q model %q", msg.ResponseID, msg.ResponseModel)
	}
}

// TestFastPathAgrees streams every scripted answer with and without the
// hand-written decoder: events and final messages must be identical.
func TestFastPathAgrees(t *testing.T) {
	resps := []llmtest.Response{
		{ID: "r1", Thinking: "why \"so\" \u00e9\n\ttabs", Text: "Hello \\ world\n\u2028 \U0001F600 done", ChunkSize: 5,
			Usage: &llmtest.Usage{Input: 3, Output: 7, CacheRead: 2, Reasoning: 1}},
		{ID: "r2", Text: "tools", ToolCalls: []llmtest.Block{{ID: "c1", Name: "a", Args: json.RawMessage(`{"x":"y\n"}`)}, {ID: "c2", Name: "b"}}, ChunkSize: 3},
		{ID: "r3", Text: "cut here", StopReason: "length"},
	}
	run1 := func(fast bool) []byte {
		fastPath = fast
		defer func() { fastPath = true }()
		srv := llmtest.NewServer(&llmtest.Script{Responses: resps})
		defer srv.Close()
		var out []byte
		for range resps {
			msg, c := run(t, srv, &llm.Request{})
			out = append(out, eventLog(t, msg, c)...)
		}
		return out
	}
	fast, slow := run1(true), run1(false)
	if !bytes.Equal(generatedIDs(fast), generatedIDs(slow)) {
		t.Errorf("fast and slow decoders disagree:\n--- fast\n%s\n--- slow\n%s", fast, slow)
	}
}

func generatedIDs(b []byte) []byte { return b }
