package llm

import (
	"net/http"
	"testing"
)

func TestCopilotHeaders(t *testing.T) {
	h := http.Header{}
	CopilotHeaders(h, &Request{Model: &Model{Provider: "openai"}, Messages: []Message{&UserMessage{}}})
	if len(h) != 0 {
		t.Fatalf("headers for another provider: %v", h)
	}
	m := &Model{Provider: "github-copilot"}
	CopilotHeaders(h, &Request{Model: m, Messages: []Message{&UserMessage{Content: StringContent("hi")}}})
	if h.Get("X-Initiator") != "user" || h.Get("Openai-Intent") != "conversation-edits" || h.Get("Copilot-Vision-Request") != "" {
		t.Errorf("user turn: %v", h)
	}
	h = http.Header{}
	CopilotHeaders(h, &Request{Model: m, Messages: []Message{
		&UserMessage{Content: StringContent("hi")},
		&ToolResultMessage{Content: Blocks{&ImageContent{Data: "x", MimeType: "image/png"}}},
	}})
	if h.Get("X-Initiator") != "agent" || h.Get("Copilot-Vision-Request") != "true" {
		t.Errorf("agent turn: %v", h)
	}
}
