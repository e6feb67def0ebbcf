package openai

import (
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// The cache marker must skip request-time (volatile) text.
func TestMarkTextSkipsVolatile(t *testing.T) {
	u := &llm.UserMessage{Content: llm.BlockContent(&llm.TextContent{Text: "stable"}, &llm.TextContent{Text: "state", Volatile: true})}
	m := userMessage(u)
	if !markText(m, body{"type": "ephemeral"}) {
		t.Fatal("nothing marked")
	}
	parts := m["content"].([]any)
	if parts[0].(body)["cache_control"] == nil {
		t.Error("stable part not marked")
	}
	if _, ok := parts[1].(volatilePart)["cache_control"]; ok {
		t.Error("volatile part marked")
	}
}
