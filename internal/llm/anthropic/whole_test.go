package anthropic

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

func TestNonStreamedAnswer(t *testing.T) {
	tests := []struct {
		name, body string
		stop       llm.StopReason
		check      func(*testing.T, *llm.AssistantMessage)
	}{
		{"message", `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[
			{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"text","text":"Hi"},
			{"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"a"}}],
			"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}}`, llm.StopToolUse,
			func(t *testing.T, m *llm.AssistantMessage) {
				if m.Text() != "Hi" || string(m.ToolCalls()[0].Arguments) != `{"path":"a"}` || m.Usage.TotalTokens != 15 || m.ResponseID != "msg_1" {
					t.Errorf("%+v", m)
				}
				if th := m.Content[0].(*llm.ThinkingContent); th.ThinkingSignature != "sig" {
					t.Errorf("%+v", th)
				}
			}},
		{"error with status 200", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, llm.StopError,
			func(t *testing.T, m *llm.AssistantMessage) {
				if m.Err.Kind != llm.ErrOverloaded || m.ErrorMessage != "overloaded_error: Overloaded" {
					t.Errorf("%+v", m.Err)
				}
			}},
		{"garbage", `{"type":`, llm.StopError, func(t *testing.T, m *llm.AssistantMessage) {
			if m.Err.Kind != llm.ErrMalformed {
				t.Errorf("%+v", m.Err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			var events []string
			msg := New().Stream(context.Background(), &llm.Request{Model: sonnet(srv.URL), APIKey: "k", Messages: []llm.Message{userText("hi")}},
				func(e llm.AssistantEvent) { events = append(events, e.Type) })
			if msg.StopReason != tt.stop {
				t.Fatalf("stop %s %q", msg.StopReason, msg.ErrorMessage)
			}
			if events[0] != llm.EventStart {
				t.Errorf("events %v", events)
			}
			tt.check(t, msg)
		})
	}
}
