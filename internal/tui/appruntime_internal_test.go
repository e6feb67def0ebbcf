package tui

import (
	"encoding/json"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

func TestTreeMessageText(t *testing.T) {
	tests := []struct {
		name  string
		m     llm.Message
		want  string
		tools bool
	}{
		{"user", &llm.UserMessage{Content: llm.StringContent(" hi ")}, "hi", false},
		{"bash", &llm.BashExecutionMessage{Command: "ls -la"}, "ls -la", false},
		{"bash excluded", &llm.BashExecutionMessage{Command: "ls", ExcludeFromContext: true}, "ls (excluded from context)", false},
		{"tools only", &llm.AssistantMessage{Content: llm.Blocks{&llm.ToolCall{ID: "1", Name: "read", Arguments: json.RawMessage(`{}`)}}}, "(read)", true},
		{"text", &llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "done"}}}, "done", false},
		{"tool result", &llm.ToolResultMessage{ToolCallID: "r1", ToolName: "read", Content: llm.Blocks{&llm.TextContent{Text: "package x"}}}, "read main.go", false},
		{"tool error", &llm.ToolResultMessage{ToolCallID: "b1", ToolName: "bash", IsError: true}, "$ go test (error)", false},
		{"unknown call", &llm.ToolResultMessage{ToolCallID: "zz", ToolName: "grep"}, "grep", false},
	}
	calls := map[string]*llm.ToolCall{
		"r1": {ID: "r1", Name: "read", Arguments: json.RawMessage(`{"path":"main.go"}`)},
		"b1": {ID: "b1", Name: "bash", Arguments: json.RawMessage(`{"command":"go test"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, tools := treeMessageText(tt.m, calls)
			if got != tt.want || tools != tt.tools {
				t.Errorf("treeMessageText = %q, %v; want %q, %v", got, tools, tt.want, tt.tools)
			}
		})
	}
}
