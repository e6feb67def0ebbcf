package llm

import "net/http"

// CopilotHeaders sets the per-request headers GitHub Copilot's OpenAI-style
// endpoints expect (provider "github-copilot"): X-Initiator says whether the
// person ("user") or the agent loop ("agent": the last message is not a
// user message) made the request, Openai-Intent is fixed, and
// Copilot-Vision-Request marks requests that carry images. Other providers
// are left alone.
func CopilotHeaders(h http.Header, req *Request) {
	if req.Model == nil || req.Model.Provider != "github-copilot" {
		return
	}
	initiator := "user"
	if n := len(req.Messages); n > 0 && req.Messages[n-1].MessageRole() != RoleUser {
		initiator = "agent"
	}
	h.Set("X-Initiator", initiator)
	h.Set("Openai-Intent", "conversation-edits")
	if hasImages(req.Messages) {
		h.Set("Copilot-Vision-Request", "true")
	}
}

func hasImages(msgs []Message) bool {
	for _, m := range msgs {
		switch v := m.(type) {
		case *UserMessage:
			if !v.Content.IsString && hasImage(v.Content.Blocks) {
				return true
			}
		case *ToolResultMessage:
			if hasImage(v.Content) {
				return true
			}
		}
	}
	return false
}
