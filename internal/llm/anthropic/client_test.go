package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
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
		t.Errorf("%s differs from golden (run with -update to accept):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func pretty(t *testing.T, raw []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		t.Fatalf("indent: %v: %s", err, raw)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

func sonnet(baseURL string) *llm.Model {
	return &llm.Model{
		ID: "claude-sonnet-4-5", Name: "Claude Sonnet 4.5", API: llm.APIAnthropicMessages, Provider: "anthropic",
		BaseURL: baseURL, Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 200000, MaxTokens: 64000,
		Cost: llm.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	}
}

type capture struct {
	events []llm.AssistantEvent
}

func (c *capture) emit(e llm.AssistantEvent) { c.events = append(c.events, e) }

func run(t *testing.T, srv *llmtest.Server, req *llm.Request) (*llm.AssistantMessage, *capture) {
	t.Helper()
	if req.Model == nil {
		req.Model = sonnet(srv.URL)
	}
	if req.APIKey == "" {
		req.APIKey = "sk-ant-test"
	}
	var c capture
	msg := New().Stream(context.Background(), req, c.emit)
	return msg, &c
}

func userText(s string) *llm.UserMessage {
	return &llm.UserMessage{Content: llm.StringContent(s), Timestamp: 1}
}

func TestEventSequences(t *testing.T) {
	tests := []struct {
		name string
		resp llmtest.Response
	}{
		{"text", llmtest.Response{ID: "msg_text", Text: "Hello, world! How can I help?", ChunkSize: 8,
			Usage: &llmtest.Usage{Input: 12, Output: 9}}},
		{"thinking", llmtest.Response{ID: "msg_think", ChunkSize: 10, Content: []llmtest.Block{
			{Type: "thinking", Text: "The user greets me. I should greet back.", Signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
			{Type: "redactedThinking", Signature: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"},
			{Type: "text", Text: "Hi there."}},
			Usage: &llmtest.Usage{Input: 20, Output: 40, Reasoning: 25}}},
		{"parallel_tools", llmtest.Response{ID: "msg_tools", ChunkSize: 7, Content: []llmtest.Block{
			{Type: "text", Text: "Let me look."},
			{Type: "toolCall", ID: "toolu_01", Name: "read", Args: json.RawMessage(`{"path": "main.go", "limit": 20}`)},
			{Type: "toolCall", ID: "toolu_02", Name: "bash", Args: json.RawMessage(`{"command":"ls -la \"dir\""}`)}},
			Usage: &llmtest.Usage{Input: 100, Output: 50, CacheRead: 1000, CacheWrite: 200, CacheWrite1h: 200}}},
		{"max_tokens", llmtest.Response{ID: "msg_len", Text: "cut", StopReason: "length", Usage: &llmtest.Usage{Input: 1, Output: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{tt.resp}})
			defer srv.Close()
			msg, c := run(t, srv, &llm.Request{Messages: []llm.Message{userText("hi")}})
			var out bytes.Buffer
			msg.Timestamp = 0
			for _, e := range c.events {
				w, err := llm.Marshal(e)
				if err != nil {
					t.Fatal(err)
				}
				out.Write(w)
				out.WriteByte('\n')
			}
			final, _ := llm.Marshal(msg)
			out.Write(final)
			out.WriteByte('\n')
			golden(t, "events/"+tt.name+".jsonl", out.Bytes())
			for _, e := range c.events {
				if e.Partial != msg {
					t.Fatal("Partial is not the final message")
				}
			}
		})
	}
}

func TestUsageAndCost(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok",
		Usage: &llmtest.Usage{Input: 1000, Output: 2000, CacheRead: 10000, CacheWrite: 3000, CacheWrite1h: 1000}}}})
	defer srv.Close()
	msg, _ := run(t, srv, &llm.Request{Messages: []llm.Message{userText("hi")}})
	u := msg.Usage
	if u.Input != 1000 || u.Output != 2000 || u.CacheRead != 10000 || u.CacheWrite != 3000 || u.CacheWrite1h != 1000 || u.TotalTokens != 16000 {
		t.Fatalf("usage %+v", u)
	}
	// input 1000*3, output 2000*15, read 10000*0.3, write 2000*3.75 + 1000*6 (1h = 2x input rate)
	want := llm.Cost{Input: 0.003, Output: 0.03, CacheRead: 0.003, CacheWrite: 0.0075 + 0.006}
	want.Total = want.Input + want.Output + want.CacheRead + want.CacheWrite
	near := func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
	if !near(u.Cost.Input, want.Input) || !near(u.Cost.Output, want.Output) || !near(u.Cost.CacheRead, want.CacheRead) ||
		!near(u.Cost.CacheWrite, want.CacheWrite) || !near(u.Cost.Total, want.Total) {
		t.Fatalf("cost %+v, want %+v", u.Cost, want)
	}
}

func TestStopReasons(t *testing.T) {
	tests := []struct {
		raw     string
		want    llm.StopReason
		wantErr string
	}{
		{"end_turn", llm.StopStop, ""},
		{"pause_turn", llm.StopStop, ""},
		{"stop_sequence", llm.StopStop, ""},
		{"max_tokens", llm.StopLength, ""},
		{"tool_use", llm.StopToolUse, ""},
		{"refusal", llm.StopError, "The model refused to complete the request"},
		{"sensitive", llm.StopError, "Provider stopped with: sensitive"},
		{"brand_new", llm.StopError, "Unhandled stop reason: brand_new"},
	}
	for _, tt := range tests {
		srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "partial", RawStopReason: tt.raw}}})
		msg, c := run(t, srv, &llm.Request{Messages: []llm.Message{userText("hi")}})
		srv.Close()
		if msg.StopReason != tt.want || msg.ErrorMessage != tt.wantErr || msg.RawStopReason != tt.raw {
			t.Errorf("%s: got %s %q", tt.raw, msg.StopReason, msg.ErrorMessage)
		}
		if tt.want == llm.StopError {
			if msg.Text() != "partial" || msg.Err == nil || msg.Err.Retryable() {
				t.Errorf("%s: partial %q err %+v", tt.raw, msg.Text(), msg.Err)
			}
			if last := c.events[len(c.events)-1]; last.Type != llm.EventError {
				t.Errorf("%s: last event %s", tt.raw, last.Type)
			}
		}
	}
}

func TestAbortMidStream(t *testing.T) {
	srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{
		Text: strings.Repeat("word ", 200), ChunkSize: 5, Delay: llmtest.Duration(5 * time.Millisecond)}}})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := &llm.Request{Model: sonnet(srv.URL), APIKey: "k", Messages: []llm.Message{userText("hi")}}
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
