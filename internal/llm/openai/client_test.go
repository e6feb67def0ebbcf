package openai

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
	return &llm.Model{ID: "deepseek-chat", Name: "DeepSeek", API: llm.APIOpenAICompletions, Provider: "custom",
		BaseURL: baseURL, Reasoning: true, Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 8192,
		Cost: llm.ModelCost{Input: 0.27, Output: 1.1, CacheRead: 0.07}}
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

// eventLog renders the wire form of every event, then the final message.
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
		{"text", llmtest.Response{ID: "chatcmpl-text", Text: "Hello, world! How can I help?", ChunkSize: 8,
			Usage: &llmtest.Usage{Input: 12, Output: 9}}},
		{"thinking", llmtest.Response{ID: "chatcmpl-think", ChunkSize: 10,
			Thinking: "The user greets me. I should greet back.", Text: "Hi there.",
			Usage: &llmtest.Usage{Input: 20, Output: 40, Reasoning: 25, CacheRead: 8}}},
		{"parallel_tools", llmtest.Response{ID: "chatcmpl-tools", ChunkSize: 7, Content: []llmtest.Block{
			{Type: "text", Text: "Let me look."},
			{Type: "toolCall", ID: "call_01", Name: "read", Args: json.RawMessage(`{"path": "main.go", "limit": 20}`)},
			{Type: "toolCall", ID: "call_02", Name: "bash", Args: json.RawMessage(`{"command":"ls -la \"dir\""}`)}},
			Usage: &llmtest.Usage{Input: 100, Output: 50, CacheRead: 1000}}},
		{"max_tokens", llmtest.Response{ID: "chatcmpl-len", Text: "cut", StopReason: "length", Usage: &llmtest.Usage{Input: 1, Output: 1}}},
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

// TestInterleavedToolCalls feeds chunks where two tool calls' argument
// pieces alternate by index, as some servers stream parallel calls, plus
// reasoning_details signatures.
func TestInterleavedToolCalls(t *testing.T) {
	head := `{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"x","choices":[{"index":0,"delta":`
	frames := []string{
		head + `{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"ls","arguments":""}}]},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"read","arguments":"{\"pa"}}]},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":\".\"}"}}]},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":1,"function":{"arguments":"th\":\"a\"}"}}],"reasoning_details":[{"type":"reasoning.encrypted","id":"call_b","data":"enc=="}]},"finish_reason":null}]}`,
		head + `{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`,
	}
	var body strings.Builder
	for _, f := range frames {
		body.WriteString("data: " + f + "\n\n")
	}
	b := llm.NewMessageBuilder(testModel(""), nil)
	msg := readStream(context.Background(), strings.NewReader(body.String()), b, testModel(""))
	if msg.StopReason != llm.StopToolUse {
		t.Fatalf("stop %s %s", msg.StopReason, msg.ErrorMessage)
	}
	tc := msg.ToolCalls()
	if len(tc) != 2 || string(tc[0].Arguments) != `{"path":"."}` || string(tc[1].Arguments) != `{"path":"a"}` {
		t.Fatalf("calls %+v", tc)
	}
	if tc[1].ThoughtSignature != `{"type":"reasoning.encrypted","id":"call_b","data":"enc=="}` {
		t.Errorf("signature %q", tc[1].ThoughtSignature)
	}
	if msg.ResponseModel != "x" || msg.ResponseID != "gen-1" {
		t.Errorf("response %q %q", msg.ResponseID, msg.ResponseModel)
	}
}

func TestReasoningFieldsAndSignature(t *testing.T) {
	for _, field := range []string{"reasoning_content", "reasoning", "reasoning_text"} {
		body := "data: " + `{"id":"1","choices":[{"index":0,"delta":{"` + field + `":"hmm"},"finish_reason":null}]}` + "\n\n" +
			"data: " + `{"id":"1","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}` + "\n\n"
		msg := readStream(context.Background(), strings.NewReader(body), llm.NewMessageBuilder(testModel(""), nil), testModel(""))
		th, ok := msg.Content[0].(*llm.ThinkingContent)
		if !ok || th.Thinking != "hmm" || th.ThinkingSignature != field || msg.Text() != "ok" {
			t.Errorf("%s: %+v", field, msg.Content)
		}
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
	want := llm.Cost{Input: 1000 * 0.27 / 1e6, Output: 2000 * 1.1 / 1e6, CacheRead: 10000 * 0.07 / 1e6}
	want.Total = want.Input + want.Output + want.CacheRead
	near := func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
	if !near(u.Cost.Input, want.Input) || !near(u.Cost.Output, want.Output) || !near(u.Cost.CacheRead, want.CacheRead) || !near(u.Cost.Total, want.Total) {
		t.Fatalf("cost %+v, want %+v", u.Cost, want)
	}
}

func TestFinishReasons(t *testing.T) {
	tests := []struct {
		raw     string
		want    llm.StopReason
		wantErr string
	}{
		{"stop", llm.StopStop, ""},
		{"length", llm.StopLength, ""},
		{"tool_calls", llm.StopToolUse, ""},
		{"content_filter", llm.StopError, "Provider finish_reason: content_filter"},
		{"weird", llm.StopError, "Provider finish_reason: weird"},
	}
	for _, tt := range tests {
		srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "partial", RawStopReason: tt.raw}}})
		msg, c := run(t, srv, &llm.Request{})
		srv.Close()
		if msg.StopReason != tt.want || msg.ErrorMessage != tt.wantErr {
			t.Errorf("%s: got %s %q", tt.raw, msg.StopReason, msg.ErrorMessage)
		}
		if tt.want == llm.StopError {
			if msg.Text() != "partial" || msg.Err == nil {
				t.Errorf("%s: partial %q err %+v", tt.raw, msg.Text(), msg.Err)
			}
			if last := c.events[len(c.events)-1]; last.Type != llm.EventError {
				t.Errorf("%s: last event %s", tt.raw, last.Type)
			}
		}
	}
}

func TestRequestOnTheWire(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}})
	defer srv.Close()
	m := testModel(srv.URL)
	m.Headers = map[string]string{"X-Model": "1"}
	msg, _ := run(t, srv, &llm.Request{Model: m, APIKey: "sk-abc", Headers: map[string]string{"X-Req": "2"}, ThinkingLevel: llm.ThinkingHigh})
	if msg.StopReason != llm.StopStop {
		t.Fatalf("stop %s %s", msg.StopReason, msg.ErrorMessage)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests %d", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-abc" ||
		r.Header.Get("X-Model") != "1" || r.Header.Get("X-Req") != "2" {
		t.Errorf("path %s headers %v", r.Path, r.Header)
	}
	if r.Body["reasoning_effort"] != "high" || r.Body["stream"] != true {
		t.Errorf("body %v", r.Body)
	}
}

func TestMissingKey(t *testing.T) {
	msg := New().Stream(context.Background(), &llm.Request{Model: testModel("http://127.0.0.1:1")}, nil)
	if msg.StopReason != llm.StopError || msg.ErrorMessage != "No API key for provider: custom" || msg.Err.Kind != llm.ErrAuth {
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
	if msg.StopReason != llm.StopAborted || msg.ErrorMessage != llm.AbortedMessage || msg.Err.Kind != llm.ErrAborted {
		t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
	}
	if msg.Text() != "word word word " {
		t.Fatalf("partial %q", msg.Text())
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("abort was not prompt")
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
