package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

type recorder struct {
	events []AssistantEvent
	wire   []string
}

func (r *recorder) emit(e AssistantEvent) {
	r.events = append(r.events, e)
	b, _ := Marshal(e)
	r.wire = append(r.wire, string(b))
}

func testModel() *Model {
	return &Model{ID: "m1", API: APIAnthropicMessages, Provider: "anthropic", Cost: ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
}

func TestMessageBuilderSequence(t *testing.T) {
	var rec recorder
	b := NewMessageBuilder(testModel(), rec.emit)
	th := b.StartThinking()
	b.AppendThinking(th, "hmm")
	b.AppendThinkingSignature(th, "sig")
	b.AppendThinkingSignature(th, "nature")
	b.EndThinking(th)
	tx := b.StartText()
	b.AppendText(tx, "Hel")
	b.AppendText(tx, "lo")
	b.EndText(tx)
	c1 := b.StartToolCall("t1", "read")
	c2 := b.StartToolCall("t2", "ls")
	b.AppendToolCallArgs(c1, `{"path":`)
	b.AppendToolCallArgs(c2, `{}`)
	b.AppendToolCallArgs(c1, ` "a.go"}`)
	b.SetUsage(Usage{Input: 1000, Output: 100, CacheRead: 2000, CacheWrite: 500})
	b.SetStopReason(StopToolUse, "tool_use")
	b.SetResponseID("msg_1")
	msg := b.Finish()

	want := []string{
		`{"type":"start"}`,
		`{"type":"thinking_start","contentIndex":0}`,
		`{"type":"thinking_delta","contentIndex":0,"delta":"hmm"}`,
		`{"type":"thinking_end","contentIndex":0,"content":"hmm"}`,
		`{"type":"text_start","contentIndex":1}`,
		`{"type":"text_delta","contentIndex":1,"delta":"Hel"}`,
		`{"type":"text_delta","contentIndex":1,"delta":"lo"}`,
		`{"type":"text_end","contentIndex":1,"content":"Hello"}`,
		`{"type":"toolcall_start","contentIndex":2,"id":"t1","toolName":"read"}`,
		`{"type":"toolcall_start","contentIndex":3,"id":"t2","toolName":"ls"}`,
		`{"type":"toolcall_delta","contentIndex":2,"delta":"{\"path\":"}`,
		`{"type":"toolcall_delta","contentIndex":3,"delta":"{}"}`,
		`{"type":"toolcall_delta","contentIndex":2,"delta":" \"a.go\"}"}`,
		`{"type":"toolcall_end","contentIndex":2,"toolCall":{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"a.go"}}}`,
		`{"type":"toolcall_end","contentIndex":3,"toolCall":{"type":"toolCall","id":"t2","name":"ls","arguments":{}}}`,
	}
	for i, w := range want {
		if i >= len(rec.wire) || rec.wire[i] != w {
			t.Fatalf("event %d = %v, want %s", i, rec.wire[i:], w)
		}
	}
	last := rec.events[len(rec.events)-1]
	if last.Type != EventDone || last.Reason != StopToolUse || last.Message != msg {
		t.Fatalf("last event %+v", last)
	}
	for _, e := range rec.events {
		if e.Partial != msg {
			t.Fatal("Partial is not the message being built")
		}
	}
	if got := rec.events[12].PartialArgs["path"]; got != "a.go" {
		t.Errorf("PartialArgs = %v", rec.events[12].PartialArgs)
	}
	if sig := msg.Content[0].(*ThinkingContent).ThinkingSignature; sig != "signature" {
		t.Errorf("signature %q", sig)
	}
	u := msg.Usage
	if u.TotalTokens != 3600 {
		t.Errorf("total %d", u.TotalTokens)
	}
	// 1000*3 + 100*15 + 2000*0.3 + 500*3.75 per million
	if d := u.Cost.Total - (0.003 + 0.0015 + 0.0006 + 0.001875); d > 1e-12 || d < -1e-12 {
		t.Errorf("cost %+v", u.Cost)
	}
	if msg.ResponseID != "msg_1" || msg.RawStopReason != "tool_use" || msg.API != APIAnthropicMessages {
		t.Errorf("msg %+v", msg)
	}
}

func TestMessageBuilderFailKeepsPartial(t *testing.T) {
	var rec recorder
	b := NewMessageBuilder(testModel(), rec.emit)
	tx := b.StartText()
	b.AppendText(tx, "partial answer")
	tc := b.StartToolCall("t1", "write")
	b.AppendToolCallArgs(tc, `{"path": "x", "content": "abc`)
	msg := b.Fail(StreamError("overloaded_error", "Overloaded"))
	if msg.StopReason != StopError || msg.Err == nil || !msg.Err.Retryable() || msg.Err.Kind != ErrOverloaded {
		t.Fatalf("msg %+v err %+v", msg, msg.Err)
	}
	if msg.Text() != "partial answer" || string(msg.ToolCalls()[0].Arguments) != `{"content":"abc","path":"x"}` {
		t.Fatalf("partial lost: %q %s", msg.Text(), msg.ToolCalls()[0].Arguments)
	}
	if msg.ErrorMessage != "overloaded_error: Overloaded" {
		t.Errorf("ErrorMessage %q", msg.ErrorMessage)
	}
	last := rec.events[len(rec.events)-1]
	if last.Type != EventError || last.Reason != StopError {
		t.Fatalf("last %+v", last)
	}
	// Finish after Fail is a no-op.
	n := len(rec.events)
	b.Finish()
	if len(rec.events) != n {
		t.Fatal("events after the end")
	}
}

func TestMessageBuilderFailWith(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := NewMessageBuilder(testModel(), nil)
	b.StartText()
	if m := b.FailWith(ctx, errors.New("read: use of closed connection")); m.StopReason != StopAborted || m.ErrorMessage != AbortedMessage {
		t.Fatalf("%+v", m)
	}
	b = NewMessageBuilder(testModel(), nil)
	b.Start()
	m := b.FailWith(context.Background(), io.ErrUnexpectedEOF)
	if m.StopReason != StopError || m.Err.Kind != ErrNetwork || !strings.Contains(m.ErrorMessage, "connection closed") {
		t.Fatalf("%+v", m)
	}
	b = NewMessageBuilder(testModel(), nil)
	m = b.FailWith(context.Background(), fmt.Errorf("read: %w", &ProviderError{Kind: ErrNetwork, Message: "stream idle timeout: no answer content for 5s"}))
	if m.Err.Kind != ErrNetwork || !strings.Contains(m.ErrorMessage, "idle") {
		t.Fatalf("%+v", m)
	}
}

func TestMessageBuilderIgnoresBadIndexes(t *testing.T) {
	b := NewMessageBuilder(testModel(), nil)
	b.AppendText(3, "x")
	tx := b.StartText()
	b.AppendThinking(tx, "wrong type")
	b.EndText(tx)
	b.AppendText(tx, "after end")
	if m := b.Finish(); len(m.Content) != 1 || m.Text() != "" {
		t.Fatalf("%+v", m.Content)
	}
}

// BenchmarkMessageBuilderText streams a 2 MB answer in 16-byte deltas
// through the builder alone.
func BenchmarkMessageBuilderText(b *testing.B) {
	delta := strings.Repeat("abcdefghijklmno ", 1)
	n := (2 << 20) / len(delta)
	b.ReportAllocs()
	for b.Loop() {
		mb := NewMessageBuilder(testModel(), func(AssistantEvent) {})
		tx := mb.StartText()
		for range n {
			mb.AppendText(tx, delta)
		}
		mb.Finish()
	}
}

func BenchmarkPartialJSON(b *testing.B) {
	delta := `abcdefghijklmn\"`
	n := (2 << 20) / len(delta)
	b.ReportAllocs()
	for b.Loop() {
		var p PartialJSON
		p.WriteString(`{"path": "a", "content": "`)
		for range n {
			p.WriteString(delta)
		}
		p.WriteString(`"}`)
		p.Final()
	}
}
