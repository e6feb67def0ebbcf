package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// The harness appends its state as a volatile text block to the newest
// user or tool-result message; it moves on every request.
func harnessState(n string) *llm.TextContent {
	return &llm.TextContent{Text: "<harness_state>\nturn " + n + "\n</harness_state>", Volatile: true}
}

func withState(m llm.Message, n string) llm.Message {
	switch v := m.(type) {
	case *llm.UserMessage:
		cp := *v
		cp.Content = llm.BlockContent(append(append(llm.Blocks(nil), v.Content.AsBlocks()...), harnessState(n))...)
		return &cp
	case *llm.ToolResultMessage:
		cp := *v
		cp.Content = append(append(llm.Blocks(nil), v.Content...), harnessState(n))
		return &cp
	}
	return m
}

// cacheConversation is a tool loop as the session stores it (no state).
func cacheConversation() []llm.Message {
	return []llm.Message{
		userText("Fix the failing test."),
		ownAssistant(&llm.TextContent{Text: "Running it."},
			&llm.ToolCall{ID: "toolu_1", Name: "bash", Arguments: json.RawMessage(`{"command":"go test ./..."}`)},
			&llm.ToolCall{ID: "toolu_2", Name: "read", Arguments: json.RawMessage(`{"path":"a_test.go"}`)}),
		&llm.ToolResultMessage{ToolCallID: "toolu_1", ToolName: "bash", Content: llm.Blocks{&llm.TextContent{Text: "FAIL a_test.go:3"}}, Timestamp: 3},
		&llm.ToolResultMessage{ToolCallID: "toolu_2", ToolName: "read", Content: llm.Blocks{&llm.TextContent{Text: "package a"}}, Timestamp: 4},
		ownAssistant(&llm.ToolCall{ID: "toolu_3", Name: "bash", Arguments: json.RawMessage(`{"command":"go test ./..."}`)}),
		&llm.ToolResultMessage{ToolCallID: "toolu_3", ToolName: "bash", Content: llm.Blocks{&llm.TextContent{Text: "ok"}}, Timestamp: 5},
	}
}

func TestVolatileRequestBodies(t *testing.T) {
	conv := cacheConversation()
	tests := []struct {
		name string
		msgs []llm.Message
	}{
		// The state rides on the trailing tool results: it must follow
		// the tool_result blocks, and the breakpoint stays on the last
		// tool_result.
		{"volatile_tool_result", append(append([]llm.Message(nil), conv[:3]...), withState(conv[3], "2"))},
		// On a user message the breakpoint is on the user's own text.
		{"volatile_user", []llm.Message{withState(&llm.UserMessage{Content: llm.BlockContent(
			&llm.TextContent{Text: "What is in this picture?"}, &llm.ImageContent{Data: pngData, MimeType: "image/png"}), Timestamp: 1}, "1")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(&llmtest.Script{Responses: []llmtest.Response{{Text: "ok"}}})
			defer srv.Close()
			msg, _ := run(t, srv, &llm.Request{SystemPrompt: "You are relay.", Tools: []llm.ToolSpec{readTool, bashTool}, Messages: tt.msgs})
			if msg.StopReason != llm.StopStop {
				t.Fatalf("stream failed: %s", msg.ErrorMessage)
			}
			golden(t, "requests/"+tt.name+".txt", pretty(t, srv.Requests()[0].Raw))
		})
	}
}

// flatBlock is one content block of the wire request, without its
// cache_control, with the role of its message.
type flatBlock struct {
	json       string
	breakpoint bool
}

func flatten(t *testing.T, req *llm.Request) []flatBlock {
	t.Helper()
	raw, err := llm.Marshal(buildPlan(req).body.Messages)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	}
	if err := json.Unmarshal(raw, &msgs); err != nil {
		t.Fatal(err)
	}
	var out []flatBlock
	for _, m := range msgs {
		blocks, ok := m.Content.([]any)
		if s, isString := m.Content.(string); isString {
			// A string content is the API's shorthand for one text block.
			blocks, ok = []any{map[string]any{"type": "text", "text": s}}, true
		}
		if !ok {
			t.Fatalf("content %T", m.Content)
		}
		for _, c := range blocks {
			v := c.(map[string]any)
			_, bp := v["cache_control"]
			delete(v, "cache_control")
			b, _ := json.Marshal(v)
			out = append(out, flatBlock{json: m.Role + " " + string(b), breakpoint: bp})
		}
	}
	return out
}

// TestVolatileKeepsCachedPrefix replays a tool loop as the runtime sends
// it: each request carries the state on its newest message. Everything up
// to the previous request's breakpoint must reappear unchanged in the next
// request, or the cache write of every turn is wasted.
func TestVolatileKeepsCachedPrefix(t *testing.T) {
	conv := cacheConversation()
	// Requests are sent when the history ends with the user message, then
	// after each batch of tool results.
	cuts := []int{1, 4, 6}
	var prev []flatBlock
	for i, cut := range cuts {
		msgs := append([]llm.Message(nil), conv[:cut]...)
		msgs[cut-1] = withState(msgs[cut-1], string(rune('1'+i)))
		cur := flatten(t, &llm.Request{Model: sonnet(""), SystemPrompt: "sys", Messages: msgs})
		bp := -1
		for j, b := range cur {
			if b.breakpoint {
				if bp >= 0 {
					t.Fatalf("request %d: two message breakpoints", i)
				}
				bp = j
			}
		}
		if bp < 0 || bp != len(cur)-2 {
			t.Fatalf("request %d: breakpoint at %d of %d blocks (want the block before the state)", i, bp, len(cur))
		}
		if last := cur[len(cur)-1].json; !strings.HasPrefix(last, "user ") || !strings.Contains(last, "harness_state") {
			t.Fatalf("request %d: last block %s", i, last)
		}
		for j := 0; j < len(prev); j++ {
			if !prev[j].breakpoint {
				continue
			}
			for k := 0; k <= j; k++ {
				if k >= len(cur) || cur[k].json != prev[k].json {
					t.Fatalf("request %d: cached prefix changed at block %d:\n%s\nnow\n%s", i, k, prev[k].json, cur[k].json)
				}
			}
		}
		prev = cur
	}
}
