package agent

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"syscall"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// TestPersistFailureStopsRun: the first failed session write stops the
// run with a session_write_failed event and a *PersistError from Run; no
// tool runs unrecorded, no retry or follow-up starts.
func TestPersistFailureStopsRun(t *testing.T) {
	full := &PersistError{Path: "/s/x.jsonl", Err: syscall.ENOSPC}
	tests := []struct {
		name      string
		failAt    int // 1-based index of the first Persist call that fails
		responses []func(context.Context) *llm.AssistantMessage
		want      string
		calls     int // model calls
		executed  int // tool executions
	}{
		{
			name:      "user message",
			failAt:    1,
			responses: []func(context.Context) *llm.AssistantMessage{fixed(text("never"))},
			want:      "agent_start turn_start session_write_failed message_start(user) message_end(user) agent_end agent_settled",
		},
		{
			name:   "assistant with tool calls",
			failAt: 2,
			responses: []func(context.Context) *llm.AssistantMessage{
				fixed(toolCall("c1", "bash", `{"command":"rm -rf build"}`)), fixed(text("never")),
			},
			want: "agent_start turn_start message_start(user) message_end(user) message_start(assistant) session_write_failed message_end(assistant) " +
				"tool_execution_start tool_execution_end message_start(toolResult) message_end(toolResult) turn_end agent_end agent_settled",
			calls: 1,
		},
		{
			name:   "tool result",
			failAt: 3,
			responses: []func(context.Context) *llm.AssistantMessage{
				fixed(&llm.AssistantMessage{Content: llm.Blocks{
					&llm.ToolCall{ID: "c1", Name: "bash", Arguments: json.RawMessage(`{}`)},
					&llm.ToolCall{ID: "c2", Name: "bash", Arguments: json.RawMessage(`{}`)},
				}, StopReason: llm.StopToolUse}),
				fixed(text("never")),
			},
			want: "agent_start turn_start message_start(user) message_end(user) message_start(assistant) message_end(assistant) " +
				"tool_execution_start tool_execution_update tool_execution_end session_write_failed message_start(toolResult) message_end(toolResult) " +
				"tool_execution_start tool_execution_end message_start(toolResult) message_end(toolResult) turn_end agent_end agent_settled",
			calls:    1,
			executed: 1,
		},
		{
			name:   "failed reply is not retried",
			failAt: 2,
			responses: []func(context.Context) *llm.AssistantMessage{
				fixed(&llm.AssistantMessage{StopReason: llm.StopError, ErrorMessage: "529 overloaded_error: Overloaded"}),
				fixed(text("never")),
			},
			want:  "agent_start turn_start message_start(user) message_end(user) message_start(assistant) session_write_failed message_end(assistant) turn_end agent_end agent_settled",
			calls: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{responses: tc.responses}
			r := &recorder{}
			var mu sync.Mutex
			persisted, executed := 0, 0
			a := newAgent(s, r, func(o *Options) {
				o.Persist = func(m llm.Message) error {
					r.persist(m) // the caller keeps it in memory either way
					mu.Lock()
					defer mu.Unlock()
					persisted++
					if persisted >= tc.failAt {
						return full
					}
					return nil
				}
				o.ExecuteTool = func(ctx context.Context, call *llm.ToolCall, update func(ToolOutcome)) ToolOutcome {
					executed++
					return echoTool(ctx, call, update)
				}
			})
			a.FollowUp(user("queued follow-up"))
			r.mu.Lock()
			r.events = nil
			r.mu.Unlock()
			err := a.Run(context.Background(), user("hi"))
			var pe *PersistError
			if !errors.As(err, &pe) || !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("Run = %v, want *PersistError wrapping ENOSPC", err)
			}
			if got := r.types(); got != tc.want {
				t.Errorf("events:\n got %s\nwant %s", got, tc.want)
			}
			if s.calls != tc.calls || executed != tc.executed {
				t.Errorf("model called %d times, tools executed %d; want %d, %d", s.calls, executed, tc.calls, tc.executed)
			}
			for _, e := range r.events {
				if e.Type != SessionWriteFailed {
					continue
				}
				b, _ := json.Marshal(e)
				if want := `{"type":"session_write_failed","sessionFile":"/s/x.jsonl","error":"no space left on device"}`; string(b) != want {
					t.Errorf("wire form %s, want %s", b, want)
				}
			}
		})
	}
}

// TestPersistFailureIsPerRun: after a failed run, a run whose writes work
// returns nil.
func TestPersistFailureIsPerRun(t *testing.T) {
	s := &script{responses: []func(context.Context) *llm.AssistantMessage{fixed(text("a")), fixed(text("b"))}}
	r := &recorder{}
	fail := true
	a := newAgent(s, r, func(o *Options) {
		o.Persist = func(m llm.Message) error {
			if fail {
				return errors.New("disk full")
			}
			return nil
		}
	})
	if err := a.Run(context.Background(), user("1")); err == nil || err.Error() != "session not saved, run stopped: disk full" {
		t.Fatalf("first run: %v", err)
	}
	fail = false
	if err := a.Run(context.Background(), user("2")); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if s.calls != 1 {
		t.Errorf("model called %d times, want 1 (only the second run)", s.calls)
	}
}
