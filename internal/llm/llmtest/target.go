package llmtest

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// Target is a wire client under test and the model its test requests use.
// The Run* functions of this package are the behaviour every client shares
// (fault handling, abort, usage, golden event logs); each client package
// keeps its API-specific cases in its own tests.
type Target struct {
	Client llm.Client
	// Model returns the test model for a base URL ("" when no server is
	// involved). Its API names the wire shapes the fake answers in, and its
	// Cost prices the usage.
	Model func(baseURL string) *llm.Model
}

// Recorder collects the events of one stream.
type Recorder struct{ Events []llm.AssistantEvent }

// Emit records e; pass it as the emit function of Stream.
func (r *Recorder) Emit(e llm.AssistantEvent) { r.Events = append(r.Events, e) }

// Last returns the last event recorded (the zero event when none).
func (r *Recorder) Last() llm.AssistantEvent {
	if len(r.Events) == 0 {
		return llm.AssistantEvent{}
	}
	return r.Events[len(r.Events)-1]
}

// Run streams req against srv with the missing parts filled in: the
// target's model for srv.URL, the key "sk-test" and one user message "hi".
func (tg Target) Run(t testing.TB, srv *Server, req *llm.Request) (*llm.AssistantMessage, *Recorder) {
	t.Helper()
	if req.Model == nil {
		req.Model = tg.Model(srv.URL)
	}
	if req.APIKey == "" {
		req.APIKey = "sk-test"
	}
	if req.Messages == nil {
		req.Messages = []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}}
	}
	var rec Recorder
	msg := tg.Client.Stream(context.Background(), req, rec.Emit)
	return msg, &rec
}

// EventLog renders the wire form of every recorded event, then the final
// message (its timestamp zeroed), one per line. Every event's Partial must
// be the final message.
func EventLog(t testing.TB, msg *llm.AssistantMessage, rec *Recorder) []byte {
	t.Helper()
	var out bytes.Buffer
	msg.Timestamp = 0
	for _, e := range rec.Events {
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

// EventCase is one scripted answer whose event log is compared with the
// golden file testdata/events/Name.jsonl.
type EventCase struct {
	Name string
	Resp Response
}

// EventCases returns the event-golden cases every API has: "text",
// "thinking" (the API's own thinking answer, given), "parallel_tools" and
// "max_tokens", with response ids idPrefix + text, think, tools, len.
func EventCases(idPrefix string, thinking Response) []EventCase {
	thinking.ID, thinking.ChunkSize = idPrefix+"think", 10
	thinking.Usage = &Usage{Input: 20, Output: 40, Reasoning: 25, CacheRead: 8}
	return []EventCase{
		{Name: "text", Resp: Response{ID: idPrefix + "text", Text: "Hello, world! How can I help?", ChunkSize: 8,
			Usage: &Usage{Input: 12, Output: 9}}},
		{Name: "thinking", Resp: thinking},
		{Name: "parallel_tools", Resp: Response{ID: idPrefix + "tools", ChunkSize: 7, Content: []Block{
			{Type: "text", Text: "Let me look."},
			{Type: "toolCall", ID: "call_01", Name: "read", Args: []byte(`{"path": "main.go", "limit": 20}`)},
			{Type: "toolCall", ID: "call_02", Name: "bash", Args: []byte(`{"command":"ls -la \"dir\""}`)}},
			Usage: &Usage{Input: 100, Output: 50, CacheRead: 1000}}},
		{Name: "max_tokens", Resp: Response{ID: idPrefix + "len", Text: "cut", StopReason: "length", Usage: &Usage{Input: 1, Output: 1}}},
	}
}

// RunEventGoldens streams each case and compares its event log (after
// normalize, when set: e.g. to mask generated ids) with its golden file.
func RunEventGoldens(t *testing.T, tg Target, update bool, cases []EventCase, normalize func([]byte) []byte) {
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			srv := NewServer(&Script{Responses: []Response{tt.Resp}})
			defer srv.Close()
			msg, rec := tg.Run(t, srv, &llm.Request{})
			log := EventLog(t, msg, rec)
			if normalize != nil {
				log = normalize(log)
			}
			Golden(t, update, "events/"+tt.Name+".jsonl", log)
		})
	}
}

// RunFastPathAgrees streams a set of answers (escapes, multi-byte text,
// thinking, tool calls, a length stop) with the client's hand-written
// decoder on and off (*fastPath): the event logs, after normalize when set,
// must be identical.
func RunFastPathAgrees(t *testing.T, tg Target, fastPath *bool, normalize func([]byte) []byte) {
	resps := []Response{
		{ID: "r1", Thinking: "why \"so\" \u00e9\n\ttabs", Text: "Hello \\ world\n\u2028 \U0001F600 done", ChunkSize: 5,
			Usage: &Usage{Input: 3, Output: 7, CacheRead: 2, Reasoning: 1}},
		{ID: "r2", Text: "tools", ToolCalls: []Block{{ID: "c1", Name: "a", Args: []byte(`{"x":"y\n"}`)}, {ID: "c2", Name: "b"}}, ChunkSize: 3},
		{ID: "r3", Text: "cut here", StopReason: "length"},
	}
	run := func(fast bool) []byte {
		saved := *fastPath
		*fastPath = fast
		defer func() { *fastPath = saved }()
		srv := NewServer(&Script{Responses: resps})
		defer srv.Close()
		var out []byte
		for range resps {
			msg, rec := tg.Run(t, srv, &llm.Request{})
			out = append(out, EventLog(t, msg, rec)...)
		}
		if normalize != nil {
			out = normalize(out)
		}
		return out
	}
	fast, slow := run(true), run(false)
	if !bytes.Equal(fast, slow) {
		t.Errorf("fast and slow decoders disagree:\n--- fast\n%s\n--- slow\n%s", fast, slow)
	}
}

// RunUsageAndCost checks that the reported usage arrives whole and is
// priced with the model's costs.
func RunUsageAndCost(t *testing.T, tg Target) {
	srv := NewServer(&Script{Responses: []Response{{Text: "ok",
		Usage: &Usage{Input: 1000, Output: 2000, CacheRead: 10000, Reasoning: 500}}}})
	defer srv.Close()
	msg, _ := tg.Run(t, srv, &llm.Request{})
	u := msg.Usage
	if u.Input != 1000 || u.Output != 2000 || u.CacheRead != 10000 || u.Reasoning != 500 || u.TotalTokens != 13000 {
		t.Fatalf("usage %+v", u)
	}
	price := msg.Usage.Cost
	c := tg.Model(srv.URL).Cost
	want := llm.Cost{Input: 1000 * c.Input / 1e6, Output: 2000 * c.Output / 1e6, CacheRead: 10000 * c.CacheRead / 1e6}
	want.Total = want.Input + want.Output + want.CacheRead
	near := func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
	if !near(price.Input, want.Input) || !near(price.Output, want.Output) || !near(price.CacheRead, want.CacheRead) || !near(price.Total, want.Total) {
		t.Fatalf("cost %+v, want %+v", price, want)
	}
}

// RunMissingKey checks that a request without a key (nor an auth header)
// fails at once with an auth error naming the provider.
func RunMissingKey(t *testing.T, tg Target) {
	m := tg.Model("http://127.0.0.1:1")
	msg := tg.Client.Stream(context.Background(), &llm.Request{Model: m}, nil)
	if msg.StopReason != llm.StopError || msg.ErrorMessage != "No API key for provider: "+m.Provider || msg.Err == nil || msg.Err.Kind != llm.ErrAuth {
		t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
	}
}

// RunAbortMidStream cancels the context after the third text delta of a
// slow stream: the message must end aborted, promptly, keeping those deltas.
func RunAbortMidStream(t *testing.T, tg Target) {
	srv := NewServer(&Script{Responses: []Response{{
		Text: strings.Repeat("word ", 200), ChunkSize: 5, Delay: Duration(5 * time.Millisecond)}}})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := &llm.Request{Model: tg.Model(srv.URL), APIKey: "k", Messages: []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}}}
	deltas := 0
	start := time.Now()
	msg := tg.Client.Stream(ctx, req, func(e llm.AssistantEvent) {
		if e.Type == llm.EventTextDelta {
			deltas++
			if deltas == 3 {
				cancel()
			}
		}
	})
	if msg.StopReason != llm.StopAborted || msg.ErrorMessage != llm.AbortedMessage || msg.Err == nil || msg.Err.Kind != llm.ErrAborted {
		t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
	}
	if msg.Text() != "word word word " {
		t.Fatalf("partial %q", msg.Text())
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("abort was not prompt")
	}
}
