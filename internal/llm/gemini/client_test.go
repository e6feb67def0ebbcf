package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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
	return &llm.Model{ID: "gemini-2.5-flash", Name: "Gemini 2.5 Flash", API: llm.APIGoogleGenerativeAI, Provider: "google",
		BaseURL: baseURL, Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 1048576, MaxTokens: 65536,
		Cost: llm.ModelCost{Input: 0.3, Output: 2.5, CacheRead: 0.075}}
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

// generatedID matches the ids the client makes up for function calls.
var generatedID = regexp.MustCompile(`"(\w+)_\d+_\d+"`)

func TestEventSequences(t *testing.T) {
	tests := []struct {
		name string
		resp llmtest.Response
	}{
		{"text", llmtest.Response{ID: "resp-text", Text: "Hello, world! How can I help?", ChunkSize: 8,
			Usage: &llmtest.Usage{Input: 12, Output: 9}}},
		{"thinking", llmtest.Response{ID: "resp-think", ChunkSize: 10, Content: []llmtest.Block{
			{Type: "thinking", Text: "**Greeting**\n\nThe user greets me.", Signature: "CikBcsjafFK168Ib"},
			{Type: "text", Text: "Hi there."}},
			Usage: &llmtest.Usage{Input: 20, Output: 40, Reasoning: 25, CacheRead: 8}}},
		{"parallel_tools", llmtest.Response{ID: "resp-tools", ChunkSize: 7, Content: []llmtest.Block{
			{Type: "text", Text: "Let me look."},
			{Type: "toolCall", Name: "read", Args: json.RawMessage(`{"path": "main.go", "limit": 20}`)},
			{Type: "toolCall", Name: "bash", Args: json.RawMessage(`{"command":"ls -la \"dir\""}`)}},
			Usage: &llmtest.Usage{Input: 100, Output: 50, CacheRead: 1000}}},
		{"max_tokens", llmtest.Response{ID: "resp-len", Text: "cut", StopReason: "length", Usage: &llmtest.Usage{Input: 1, Output: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{tt.resp}})
			defer srv.Close()
			msg, c := run(t, srv, &llm.Request{})
			log := generatedID.ReplaceAll(eventLog(t, msg, c), []byte(`"${1}_ID"`))
			goldenBytes(t, "events/"+tt.name+".jsonl", log)
		})
	}
}

// TestSignaturesRoundTrip streams thought parts and a signed function
// call, then sends them back: thought parts and signatures must return on
// the same parts.
func TestSignaturesRoundTrip(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{
		{Content: []llmtest.Block{
			{Type: "thinking", Text: "plan"},
			{Type: "toolCall", Name: "read", Args: json.RawMessage(`{"path":"x"}`), Signature: "CikBcsjafFK168Ib"}}},
		{Text: "done"},
	}})
	defer srv.Close()
	first, _ := run(t, srv, &llm.Request{ThinkingLevel: llm.ThinkingMedium})
	if first.StopReason != llm.StopToolUse {
		t.Fatalf("stop %s %s", first.StopReason, first.ErrorMessage)
	}
	tc := first.ToolCalls()[0]
	if !strings.HasPrefix(tc.ID, "read_") || tc.ThoughtSignature != "CikBcsjafFK168Ib" {
		t.Errorf("tool call %+v", tc)
	}
	msgs := []llm.Message{
		&llm.UserMessage{Content: llm.StringContent("hi")},
		first,
		&llm.ToolResultMessage{ToolCallID: tc.ID, ToolName: "read", Content: llm.Blocks{&llm.TextContent{Text: "content"}}},
	}
	second, _ := run(t, srv, &llm.Request{Messages: msgs, ThinkingLevel: llm.ThinkingMedium})
	if second.Text() != "done" {
		t.Fatalf("second %q %s", second.Text(), second.ErrorMessage)
	}
	r := srv.Requests()[1]
	got, _ := json.Marshal(r.Body["contents"].([]any)[1:])
	want := `[{"parts":[{"text":"plan","thought":true},{"functionCall":{"args":{"path":"x"},"name":"read"},"thoughtSignature":"CikBcsjafFK168Ib"}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"name":"read","response":{"output":"content"}}}],"role":"user"}]`
	if string(got) != want {
		t.Errorf("replayed contents\n got %s\nwant %s", got, want)
	}
	if r.Path != "/models/gemini-2.5-flash:streamGenerateContent" || r.RawQuery != "alt=sse" || r.Header.Get("X-Goog-Api-Key") != "sk-test" {
		t.Errorf("path %s?%s key %q", r.Path, r.RawQuery, r.Header.Get("X-Goog-Api-Key"))
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
	want := 1000*0.3/1e6 + 2000*2.5/1e6 + 10000*0.075/1e6
	if d := u.Cost.Total - want; d > 1e-12 || d < -1e-12 {
		t.Fatalf("cost %+v, want total %v", u.Cost, want)
	}
}

func TestMissingKey(t *testing.T) {
	msg := New().Stream(context.Background(), &llm.Request{Model: testModel("http://127.0.0.1:1")}, nil)
	if msg.StopReason != llm.StopError || msg.ErrorMessage != "No API key for provider: google" {
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

func TestFinishReasons(t *testing.T) {
	tests := []struct {
		raw     string
		tools   bool
		want    llm.StopReason
		wantErr string
	}{
		{"STOP", false, llm.StopStop, ""},
		{"STOP", true, llm.StopToolUse, ""},
		{"MAX_TOKENS", false, llm.StopLength, ""},
		{"SAFETY", false, llm.StopError, "Provider finishReason: SAFETY"},
		{"MALFORMED_FUNCTION_CALL", false, llm.StopError, "Provider finishReason: MALFORMED_FUNCTION_CALL"},
	}
	for _, tt := range tests {
		resp := llmtest.Response{Text: "partial", RawStopReason: tt.raw}
		if tt.tools {
			resp.ToolCalls = []llmtest.Block{{Name: "ls"}}
		}
		srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{resp}})
		msg, c := run(t, srv, &llm.Request{})
		srv.Close()
		if msg.StopReason != tt.want || msg.ErrorMessage != tt.wantErr {
			t.Errorf("%s: got %s %q", tt.raw, msg.StopReason, msg.ErrorMessage)
		}
		if tt.want == llm.StopError && (msg.Text() != "partial" || c.events[len(c.events)-1].Type != llm.EventError) {
			t.Errorf("%s: partial %q", tt.raw, msg.Text())
		}
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

func generatedIDs(b []byte) []byte { return generatedID.ReplaceAll(b, []byte(`"${1}_ID"`)) }
