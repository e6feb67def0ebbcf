package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// script is a fake model: each call pops the next response.
type script struct {
	mu        sync.Mutex
	responses []func(ctx context.Context) *llm.AssistantMessage
	calls     int
}

func (s *script) stream(ctx context.Context, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	s.mu.Lock()
	i := s.calls
	s.calls++
	s.mu.Unlock()
	if i >= len(s.responses) {
		return &llm.AssistantMessage{StopReason: llm.StopError, ErrorMessage: "script exhausted"}
	}
	m := s.responses[i](ctx)
	partial := &llm.AssistantMessage{StopReason: llm.StopPending}
	emit(llm.AssistantEvent{Type: llm.EventStart, Partial: partial})
	for idx, b := range m.Content {
		if t, ok := b.(*llm.TextContent); ok {
			emit(llm.AssistantEvent{Type: llm.EventTextDelta, ContentIndex: idx, Delta: t.Text, Partial: partial})
		}
	}
	return m
}

func text(s string) *llm.AssistantMessage {
	return &llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: s}}, StopReason: llm.StopStop}
}

func toolCall(id, name, args string) *llm.AssistantMessage {
	return &llm.AssistantMessage{Content: llm.Blocks{&llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}}, StopReason: llm.StopToolUse}
}

func fixed(m *llm.AssistantMessage) func(context.Context) *llm.AssistantMessage {
	return func(context.Context) *llm.AssistantMessage { return m }
}

type recorder struct {
	mu     sync.Mutex
	events []Event
	saved  []llm.Message
}

func (r *recorder) emit(e Event) { r.mu.Lock(); r.events = append(r.events, e); r.mu.Unlock() }
func (r *recorder) persist(m llm.Message) error {
	r.mu.Lock()
	r.saved = append(r.saved, m)
	r.mu.Unlock()
	return nil
}

func (r *recorder) types() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		t := e.Type
		if e.Type == MessageStart || e.Type == MessageEnd {
			t += "(" + e.Message.MessageRole() + ")"
		}
		out = append(out, t)
	}
	return strings.Join(out, " ")
}

func echoTool(ctx context.Context, call *llm.ToolCall, update func(ToolOutcome)) ToolOutcome {
	update(ToolOutcome{Content: llm.Blocks{&llm.TextContent{Text: "partial"}}})
	return ToolOutcome{Content: llm.Blocks{&llm.TextContent{Text: "ran " + call.Name}}}
}

func newAgent(s *script, r *recorder, mod func(*Options)) *Agent {
	o := Options{Stream: s.stream, ExecuteTool: echoTool, Persist: r.persist, Emit: r.emit,
		Retry: RetryPolicy{Enabled: true, MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}}
	if mod != nil {
		mod(&o)
	}
	return New(o)
}

func user(s string) llm.Message {
	return &llm.UserMessage{Content: llm.StringContent(s), Timestamp: 1}
}

func TestEventSequences(t *testing.T) {
	tests := []struct {
		name      string
		responses []func(context.Context) *llm.AssistantMessage
		want      string
		saved     int
	}{
		{
			name:      "plain answer",
			responses: []func(context.Context) *llm.AssistantMessage{fixed(text("Hello"))},
			want:      "agent_start turn_start message_start(user) message_end(user) message_start(assistant) message_update message_end(assistant) turn_end agent_end agent_settled",
			saved:     2,
		},
		{
			name:      "tool turn",
			responses: []func(context.Context) *llm.AssistantMessage{fixed(toolCall("c1", "bash", `{"command":"ls"}`)), fixed(text("done"))},
			want: "agent_start turn_start message_start(user) message_end(user) message_start(assistant) message_end(assistant) " +
				"tool_execution_start tool_execution_update tool_execution_end message_start(toolResult) message_end(toolResult) turn_end " +
				"turn_start message_start(assistant) message_update message_end(assistant) turn_end agent_end agent_settled",
			saved: 4,
		},
		{
			name: "retry then success",
			responses: []func(context.Context) *llm.AssistantMessage{
				fixed(&llm.AssistantMessage{StopReason: llm.StopError, ErrorMessage: "529 overloaded_error: Overloaded"}),
				fixed(text("ok")),
			},
			want: "agent_start turn_start message_start(user) message_end(user) message_start(assistant) message_end(assistant) turn_end agent_end auto_retry_start " +
				"agent_start turn_start message_start(assistant) message_update message_end(assistant) turn_end agent_end auto_retry_end agent_settled",
			saved: 3,
		},
		{
			name: "auth error is not retried",
			responses: []func(context.Context) *llm.AssistantMessage{
				fixed(&llm.AssistantMessage{StopReason: llm.StopError, ErrorMessage: "401 invalid x-api-key"}),
			},
			want:  "agent_start turn_start message_start(user) message_end(user) message_start(assistant) message_end(assistant) turn_end agent_end agent_settled",
			saved: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{responses: tc.responses}
			r := &recorder{}
			a := newAgent(s, r, nil)
			if err := a.Run(context.Background(), user("hi")); err != nil {
				t.Fatal(err)
			}
			if got := r.types(); got != tc.want {
				t.Errorf("events:\n got %s\nwant %s", got, tc.want)
			}
			if len(r.saved) != tc.saved {
				t.Errorf("saved %d messages, want %d", len(r.saved), tc.saved)
			}
		})
	}
}

func TestRetryExhausted(t *testing.T) {
	fail := fixed(&llm.AssistantMessage{StopReason: llm.StopError, ErrorMessage: "503 service unavailable"})
	s := &script{responses: []func(context.Context) *llm.AssistantMessage{fail, fail, fail, fail}}
	r := &recorder{}
	a := newAgent(s, r, nil)
	a.Run(context.Background(), user("hi"))
	if s.calls != 3 {
		t.Errorf("model called %d times, want 3 (1 + 2 retries)", s.calls)
	}
	var end Event
	for _, e := range r.events {
		if e.Type == AutoRetryEnd {
			end = e
		}
	}
	if end.Success || end.Attempt != 2 || end.FinalError != "503 service unavailable" {
		t.Errorf("auto_retry_end = %+v", end)
	}
	b, _ := json.Marshal(end)
	if string(b) != `{"type":"auto_retry_end","success":false,"attempt":2,"finalError":"503 service unavailable"}` {
		t.Errorf("wire form %s", b)
	}
}

func TestSteeringAndFollowUp(t *testing.T) {
	r := &recorder{}
	var a *Agent
	s := &script{}
	s.responses = []func(context.Context) *llm.AssistantMessage{
		func(context.Context) *llm.AssistantMessage {
			a.Steer(user("steer-1"))
			a.Steer(user("steer-2"))
			a.FollowUp(user("follow-1"))
			return toolCall("c1", "read", `{"path":"a"}`)
		},
		fixed(text("after steer 1")),
		fixed(text("after steer 2")),
		fixed(text("after follow")),
	}
	a = newAgent(s, r, nil)
	a.Run(context.Background(), user("go"))
	var users []string
	for _, m := range r.saved {
		if u, ok := m.(*llm.UserMessage); ok {
			users = append(users, u.Content.Text)
		}
	}
	if got := strings.Join(users, ","); got != "go,steer-1,steer-2,follow-1" {
		t.Errorf("user message order %s", got)
	}
	if s.calls != 4 {
		t.Errorf("model calls %d, want 4", s.calls)
	}
}

func TestSteeringModeAll(t *testing.T) {
	r := &recorder{}
	var a *Agent
	s := &script{}
	s.responses = []func(context.Context) *llm.AssistantMessage{
		func(context.Context) *llm.AssistantMessage {
			a.Steer(user("s1"))
			a.Steer(user("s2"))
			return text("first")
		},
		fixed(text("second")),
	}
	a = newAgent(s, r, func(o *Options) { o.SteeringMode = ModeAll })
	a.Run(context.Background(), user("go"))
	if s.calls != 2 {
		t.Errorf("model calls %d, want 2 (both steering messages in one turn)", s.calls)
	}
}

func TestAbortDuringTool(t *testing.T) {
	r := &recorder{}
	s := &script{responses: []func(context.Context) *llm.AssistantMessage{
		fixed(&llm.AssistantMessage{Content: llm.Blocks{
			&llm.ToolCall{ID: "c1", Name: "bash", Arguments: json.RawMessage(`{}`)},
			&llm.ToolCall{ID: "c2", Name: "bash", Arguments: json.RawMessage(`{}`)},
		}, StopReason: llm.StopToolUse}),
	}}
	started := make(chan struct{})
	a := newAgent(s, r, func(o *Options) {
		o.ExecuteTool = func(ctx context.Context, call *llm.ToolCall, _ func(ToolOutcome)) ToolOutcome {
			if call.ID == "c1" {
				close(started)
			}
			<-ctx.Done()
			return errorOutcome("Command aborted")
		}
	})
	go func() { <-started; a.Abort() }()
	a.Run(context.Background(), user("go"))
	var results int
	for _, m := range r.saved {
		if tr, ok := m.(*llm.ToolResultMessage); ok {
			results++
			if !tr.IsError {
				t.Errorf("result %s not an error after abort", tr.ToolCallID)
			}
		}
	}
	if results != 2 {
		t.Errorf("%d tool results, want 2 (every call answered)", results)
	}
	if s.calls != 1 {
		t.Errorf("model called again after abort")
	}
}

func TestAbortWhileStreaming(t *testing.T) {
	r := &recorder{}
	s := &script{responses: []func(context.Context) *llm.AssistantMessage{
		func(ctx context.Context) *llm.AssistantMessage {
			<-ctx.Done()
			return &llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "part"}}, StopReason: llm.StopAborted}
		},
	}}
	a := newAgent(s, r, nil)
	go func() {
		for !a.IsRunning() {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(5 * time.Millisecond)
		a.Abort()
	}()
	a.Run(context.Background(), user("go"))
	last := r.saved[len(r.saved)-1].(*llm.AssistantMessage)
	if last.StopReason != llm.StopAborted || last.Text() != "part" {
		t.Errorf("last = %+v", last)
	}
}

func TestBlockedToolAndEvidenceHook(t *testing.T) {
	r := &recorder{}
	s := &script{responses: []func(context.Context) *llm.AssistantMessage{
		fixed(toolCall("c1", "bash", `{"command":"rm -rf build"}`)),
		fixed(text("Done!")),
		fixed(text("Verified.")),
	}}
	asked := 0
	a := newAgent(s, r, func(o *Options) {
		o.Hooks.BeforeToolCall = func(ctx context.Context, call *llm.ToolCall) (bool, string) {
			return true, "blocked: needs approval"
		}
		o.Hooks.AfterAssistant = func(m *llm.AssistantMessage, _ []*llm.ToolResultMessage) (string, bool) {
			if m.Text() == "Done!" && asked == 0 {
				asked++
				return "[harness:evidence] verify", true
			}
			return "", false
		}
	})
	a.Run(context.Background(), user("clean"))
	tr := r.saved[2].(*llm.ToolResultMessage)
	if !tr.IsError || tr.Content.PlainText() != "blocked: needs approval" {
		t.Errorf("blocked result = %+v", tr)
	}
	if s.calls != 3 {
		t.Errorf("model calls %d, want 3", s.calls)
	}
}

// A hook that asks for one more request without a message (an
// extension's agent_before_settle continue) gets one model call more, with
// nothing new persisted before it.
func TestAfterAssistantContinueWithoutMessage(t *testing.T) {
	r := &recorder{}
	s := &script{responses: []func(context.Context) *llm.AssistantMessage{
		fixed(text("first")),
		fixed(text("second")),
	}}
	again := 1
	a := newAgent(s, r, func(o *Options) {
		o.Hooks.AfterAssistant = func(*llm.AssistantMessage, []*llm.ToolResultMessage) (string, bool) {
			if again > 0 {
				again--
				return "", true
			}
			return "", false
		}
	})
	a.Run(context.Background(), user("go"))
	if s.calls != 2 {
		t.Fatalf("model calls %d, want 2", s.calls)
	}
	if len(r.saved) != 3 {
		t.Errorf("saved %d messages, want the prompt and two answers", len(r.saved))
	}
}

func TestOverflowRecovery(t *testing.T) {
	r := &recorder{}
	s := &script{responses: []func(context.Context) *llm.AssistantMessage{
		fixed(&llm.AssistantMessage{StopReason: llm.StopError, ErrorMessage: "prompt is too long: 250000 tokens > 200000 maximum"}),
		fixed(text("fits now")),
	}}
	hooked := 0
	a := newAgent(s, r, func(o *Options) {
		o.Hooks.Overflow = func(ctx context.Context, failed *llm.AssistantMessage) bool { hooked++; return true }
	})
	a.Run(context.Background(), user("big"))
	if hooked != 1 || s.calls != 2 {
		t.Errorf("hooked=%d calls=%d", hooked, s.calls)
	}
}

func TestMessageUpdateWireIsDeltaOnly(t *testing.T) {
	ev := Event{Type: MessageUpdate, AssistantEvent: &llm.AssistantEvent{Type: llm.EventTextDelta, ContentIndex: 0, Delta: "Hello ",
		Partial: &llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "big"}}}}}
	b, _ := json.Marshal(ev)
	want := `{"type":"message_update","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Hello "}}`
	if string(b) != want {
		t.Errorf("got %s", b)
	}
}

// An aborted retry wait ends with a typed Cancelled flag (front ends read
// it instead of the text); the wire form stays the spec's.
func TestRetryCancelledIsTyped(t *testing.T) {
	fail := fixed(&llm.AssistantMessage{StopReason: llm.StopError, ErrorMessage: "503 service unavailable"})
	s := &script{responses: []func(context.Context) *llm.AssistantMessage{fail, fail}}
	var a *Agent
	r := &recorder{}
	a = newAgent(s, r, func(o *Options) {
		o.Retry.BaseDelay, o.Retry.MaxDelay = time.Hour, time.Hour
		emit := o.Emit
		o.Emit = func(e Event) {
			emit(e)
			if e.Type == AutoRetryStart {
				go a.AbortRetry()
			}
		}
	})
	a.Run(context.Background(), user("hi"))
	var end Event
	for _, e := range r.events {
		if e.Type == AutoRetryEnd {
			end = e
		}
	}
	if !end.Cancelled || end.Success {
		t.Fatalf("auto_retry_end = %+v", end)
	}
	b, _ := json.Marshal(end)
	if string(b) != `{"type":"auto_retry_end","success":false,"attempt":1,"finalError":"Retry cancelled"}` {
		t.Errorf("wire form %s", b)
	}
}

func TestTerminatingToolsEndTheRun(t *testing.T) {
	for _, tc := range []struct {
		name      string
		terminate map[string]bool
		calls     int
	}{
		{"every call terminates", map[string]bool{"a": true, "b": true}, 1},
		{"one call does not", map[string]bool{"a": true}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			two := &llm.AssistantMessage{Content: llm.Blocks{&llm.ToolCall{ID: "1", Name: "a", Arguments: json.RawMessage(`{}`)},
				&llm.ToolCall{ID: "2", Name: "b", Arguments: json.RawMessage(`{}`)}}, StopReason: llm.StopToolUse}
			s := &script{responses: []func(context.Context) *llm.AssistantMessage{fixed(two), fixed(text("after"))}}
			a := newAgent(s, r, func(o *Options) {
				o.ExecuteTool = func(_ context.Context, call *llm.ToolCall, _ func(ToolOutcome)) ToolOutcome {
					return ToolOutcome{Content: llm.Blocks{&llm.TextContent{Text: "ok"}}, Terminate: tc.terminate[call.Name]}
				}
			})
			a.Run(context.Background(), user("go"))
			if s.calls != tc.calls {
				t.Errorf("model calls %d, want %d", s.calls, tc.calls)
			}
		})
	}
}

// tool_result handlers run before the result is recorded: the session
// holds what they made of it.
func TestAfterToolCallChangesRecordedResult(t *testing.T) {
	r := &recorder{}
	s := &script{responses: []func(context.Context) *llm.AssistantMessage{fixed(toolCall("c1", "bash", `{}`)), fixed(text("done"))}}
	a := newAgent(s, r, func(o *Options) {
		o.Hooks.AfterToolCall = func(_ *llm.ToolCall, res *llm.ToolResultMessage) {
			res.Content = llm.Blocks{&llm.TextContent{Text: "rewritten"}}
		}
	})
	a.Run(context.Background(), user("go"))
	tr := r.saved[2].(*llm.ToolResultMessage)
	if tr.Content.PlainText() != "rewritten" {
		t.Errorf("recorded result %q, want the handler's", tr.Content.PlainText())
	}
}
