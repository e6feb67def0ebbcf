package openai

import (
	"encoding/json"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// convertMessages turns the system prompt and conversation into chat
// messages, after the provider-neutral replay rules.
func convertMessages(req *llm.Request, c compat) []any {
	m := req.Model
	msgs := llm.PrepareReplay(req.Messages, m, func(id string, _ *llm.AssistantMessage) string {
		return normalizeToolCallID(id, c)
	})
	out := make([]any, 0, len(msgs)+1)
	if req.SystemPrompt != "" {
		role := "system"
		if m.Reasoning && c.supportsDeveloperRole {
			role = "developer"
		}
		out = append(out, body{"role": role, "content": req.SystemPrompt})
	}

	lastRole := ""
	for i := 0; i < len(msgs); i++ {
		switch v := msgs[i].(type) {
		case *llm.UserMessage:
			if c.requiresAssistantAfterTool && lastRole == llm.RoleToolResult {
				out = append(out, body{"role": "assistant", "content": bridgeText})
			}
			if um := userMessage(v); um != nil {
				out = append(out, um)
			}
			lastRole = llm.RoleUser
		case *llm.AssistantMessage:
			if am := assistantMessage(v, m, c); am != nil {
				out = append(out, am)
			}
			lastRole = llm.RoleAssistant
		case *llm.ToolResultMessage:
			// Consecutive results form one group; their images follow the
			// group in a user message because tool messages carry text only.
			var images []any
			j := i
			for ; j < len(msgs); j++ {
				tr, ok := msgs[j].(*llm.ToolResultMessage)
				if !ok {
					break
				}
				out = append(out, toolMessage(tr, c))
				for _, b := range tr.Content {
					if img, ok := b.(*llm.ImageContent); ok {
						images = append(images, imagePart(img))
					}
				}
			}
			i = j - 1
			if len(images) > 0 {
				if c.requiresAssistantAfterTool {
					out = append(out, body{"role": "assistant", "content": bridgeText})
				}
				parts := append([]any{body{"type": "text", "text": toolImagesIntro}}, images...)
				out = append(out, body{"role": "user", "content": parts})
				lastRole = llm.RoleUser
			} else {
				lastRole = llm.RoleToolResult
			}
		}
	}
	return out
}

func userMessage(u *llm.UserMessage) body {
	if u.Content.IsString {
		return body{"role": "user", "content": u.Content.Text}
	}
	parts := make([]any, 0, len(u.Content.Blocks))
	for _, b := range u.Content.Blocks {
		switch v := b.(type) {
		case *llm.TextContent:
			if v.Volatile {
				parts = append(parts, volatilePart{"type": "text", "text": v.Text})
				continue
			}
			parts = append(parts, body{"type": "text", "text": v.Text})
		case *llm.ImageContent:
			parts = append(parts, imagePart(v))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return body{"role": "user", "content": parts}
}

// volatilePart is a request-time text part (harness state) that changes
// every request; its own type keeps cache markers off it, so the cached
// prefix stays identical between requests.
type volatilePart map[string]any

func imagePart(img *llm.ImageContent) body {
	return body{"type": "image_url", "image_url": body{"url": "data:" + img.MimeType + ";base64," + img.Data}}
}

// assistantMessage converts one assistant turn. Text goes as a plain string
// (array content makes some models echo the structure); thinking goes back
// in the field it came from (its signature names it: reasoning_content,
// reasoning, reasoning_text) or as leading text when the server requires it.
func assistantMessage(a *llm.AssistantMessage, m *llm.Model, c compat) body {
	out := body{"role": "assistant", "content": nil}
	if c.requiresAssistantAfterTool {
		out["content"] = ""
	}
	var texts []string
	var thinking []*llm.ThinkingContent
	var calls []*llm.ToolCall
	for _, b := range a.Content {
		switch v := b.(type) {
		case *llm.TextContent:
			if strings.TrimSpace(v.Text) != "" {
				texts = append(texts, v.Text)
			}
		case *llm.ThinkingContent:
			if strings.TrimSpace(v.Thinking) != "" && !v.Redacted {
				thinking = append(thinking, v)
			}
		case *llm.ToolCall:
			calls = append(calls, v)
		}
	}
	text := strings.Join(texts, "")
	switch {
	case len(thinking) > 0 && c.requiresThinkingAsText:
		parts := make([]string, len(thinking))
		for i, t := range thinking {
			parts[i] = t.Thinking
		}
		content := []any{body{"type": "text", "text": strings.Join(parts, "\n\n")}}
		for _, t := range texts {
			content = append(content, body{"type": "text", "text": t})
		}
		out["content"] = content
	case len(thinking) > 0:
		if text != "" {
			out["content"] = text
		}
		if field := thinking[0].ThinkingSignature; isReasoningField(field) {
			parts := make([]string, len(thinking))
			for i, t := range thinking {
				parts[i] = t.Thinking
			}
			out[field] = strings.Join(parts, "\n")
		}
	case text != "":
		out["content"] = text
	}

	if len(calls) > 0 {
		tcs := make([]any, 0, len(calls))
		var details []any
		for _, tc := range calls {
			args := string(tc.Arguments)
			if args == "" {
				args = "{}"
			}
			tcs = append(tcs, body{"id": tc.ID, "type": "function", "function": body{"name": tc.Name, "arguments": args}})
			if tc.ThoughtSignature != "" && json.Valid([]byte(tc.ThoughtSignature)) {
				details = append(details, json.RawMessage(tc.ThoughtSignature))
			}
		}
		out["tool_calls"] = tcs
		if len(details) > 0 {
			out["reasoning_details"] = details
		}
	}
	if c.requiresReasoningContent && m.Reasoning {
		if _, ok := out["reasoning_content"]; !ok {
			out["reasoning_content"] = ""
		}
	}
	if _, ok := out["tool_calls"]; !ok {
		switch v := out["content"].(type) {
		case nil:
			return nil
		case string:
			if v == "" {
				return nil
			}
		}
	}
	return out
}

// isReasoningField limits replayed thinking to the delta fields we read, so a
// signature from elsewhere never becomes an arbitrary request key.
func isReasoningField(f string) bool {
	return f == "reasoning_content" || f == "reasoning" || f == "reasoning_text"
}

func toolMessage(tr *llm.ToolResultMessage, c compat) body {
	var texts []string
	hasImage := false
	for _, b := range tr.Content {
		switch v := b.(type) {
		case *llm.TextContent:
			texts = append(texts, v.Text)
		case *llm.ImageContent:
			hasImage = true
		}
	}
	text := strings.Join(texts, "\n")
	if text == "" {
		text = toolNoOutput
		if hasImage {
			text = toolImageOnly
		}
	}
	out := body{"role": "tool", "content": text, "tool_call_id": tr.ToolCallID}
	if c.requiresToolResultName && tr.ToolName != "" {
		out["name"] = tr.ToolName
	}
	return out
}
