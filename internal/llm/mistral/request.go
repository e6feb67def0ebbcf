package mistral

import (
	"crypto/sha256"
	"math/big"
	"strconv"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// toolCallIDLen is the length of Mistral's tool-call ids ([a-zA-Z0-9]{9}).
const toolCallIDLen = 9

type body = map[string]any

type chunk struct {
	Type     string  `json:"type"` // text | image_url | thinking
	Text     string  `json:"text,omitempty"`
	ImageURL string  `json:"image_url,omitempty"`
	Thinking []chunk `json:"thinking,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"` // function
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
	Index int `json:"index"`
}

type message struct {
	Role       string     `json:"role"`
	Content    any        `json:"content,omitempty"` // string or []chunk
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
	Prefix     *bool      `json:"prefix,omitempty"`
}

func buildBody(req *llm.Request, caching bool) body {
	m := req.Model
	b := body{
		"model":      m.ID,
		"stream":     true,
		"messages":   convertMessages(req),
		"max_tokens": req.EffectiveMaxTokens(),
	}
	if len(req.Tools) > 0 {
		tools := make([]any, 0, len(req.Tools))
		for _, t := range req.Tools {
			var params any = t.Parameters
			if len(t.Parameters) == 0 {
				params = body{"type": "object", "properties": body{}}
			}
			tools = append(tools, body{"type": "function", "function": body{"name": t.Name, "description": t.Description,
				"parameters": params, "strict": false}})
		}
		b["tools"] = tools
	}
	if req.Temperature != nil {
		b["temperature"] = *req.Temperature
	}
	if caching {
		b["prompt_cache_key"] = req.SessionID
	}
	if m.Reasoning {
		level := req.EffectiveThinking()
		switch {
		case m.ThinkingLevelMap != nil && level != llm.ThinkingOff:
			effort := "high"
			if v, ok := m.ThinkingLevelMap[string(level)]; ok && v != nil {
				effort = *v
			}
			b["reasoning_effort"] = effort
		case m.ThinkingLevelMap != nil:
			if v, ok := m.ThinkingLevelMap["off"]; ok && v != nil {
				b["reasoning_effort"] = *v
			}
		case level != llm.ThinkingOff:
			// Magistral models without an effort scale reason on request.
			b["prompt_mode"] = "reasoning"
		}
	}
	return b
}

func convertMessages(req *llm.Request) []message {
	m := req.Model
	images := m.SupportsImages()
	ids := newIDMap()
	msgs := llm.PrepareReplay(req.Messages, m, func(id string, _ *llm.AssistantMessage) string { return ids.get(id) })
	var out []message
	if s := req.SystemPrompt; s != "" {
		out = append(out, message{Role: "system", Content: s})
	}
	no := false
	for _, msg := range msgs {
		switch v := msg.(type) {
		case *llm.UserMessage:
			if v.Content.IsString {
				out = append(out, message{Role: "user", Content: v.Content.Text})
				continue
			}
			var parts []chunk
			for _, c := range v.Content.Blocks {
				switch c := c.(type) {
				case *llm.TextContent:
					parts = append(parts, chunk{Type: "text", Text: c.Text})
				case *llm.ImageContent:
					if images {
						parts = append(parts, chunk{Type: "image_url", ImageURL: "data:" + c.MimeType + ";base64," + c.Data})
					}
				}
			}
			if len(parts) > 0 {
				out = append(out, message{Role: "user", Content: parts})
			}
		case *llm.AssistantMessage:
			am := message{Role: "assistant", Prefix: &no}
			var parts []chunk
			for _, c := range v.Content {
				switch c := c.(type) {
				case *llm.TextContent:
					if strings.TrimSpace(c.Text) != "" {
						parts = append(parts, chunk{Type: "text", Text: c.Text})
					}
				case *llm.ThinkingContent:
					if strings.TrimSpace(c.Thinking) != "" && !c.Redacted {
						parts = append(parts, chunk{Type: "thinking", Thinking: []chunk{{Type: "text", Text: c.Thinking}}})
					}
				case *llm.ToolCall:
					tc := toolCall{ID: c.ID, Type: "function"}
					tc.Function.Name = c.Name
					tc.Function.Arguments = string(c.Arguments)
					if len(c.Arguments) == 0 {
						tc.Function.Arguments = "{}"
					}
					am.ToolCalls = append(am.ToolCalls, tc)
				}
			}
			if len(parts) > 0 {
				am.Content = parts
			}
			if len(parts) > 0 || len(am.ToolCalls) > 0 {
				out = append(out, am)
			}
		case *llm.ToolResultMessage:
			out = append(out, toolResult(v, images))
		}
	}
	return out
}

func toolResult(v *llm.ToolResultMessage, images bool) message {
	var texts []string
	hasImages := false
	for _, c := range v.Content {
		switch c := c.(type) {
		case *llm.TextContent:
			texts = append(texts, c.Text)
		case *llm.ImageContent:
			hasImages = true
		}
	}
	prefix := ""
	if v.IsError {
		prefix = "[tool error] "
	}
	text := strings.TrimSpace(strings.Join(texts, "\n"))
	switch {
	case text != "" && hasImages && !images:
		text = prefix + text + "\n[tool image omitted: model does not support images]"
	case text != "":
		text = prefix + text
	case hasImages && images:
		text = prefix + "(see attached image)"
	case hasImages:
		text = prefix + "(image omitted: model does not support images)"
	default:
		text = prefix + "(no tool output)"
	}
	parts := []chunk{{Type: "text", Text: text}}
	if images {
		for _, c := range v.Content {
			if img, ok := c.(*llm.ImageContent); ok {
				parts = append(parts, chunk{Type: "image_url", ImageURL: "data:" + img.MimeType + ";base64," + img.Data})
			}
		}
	}
	return message{Role: "tool", ToolCallID: v.ToolCallID, Name: v.ToolName, Content: parts}
}

// idMap gives foreign tool-call ids Mistral-shaped ones, the same id for
// the same input and never one id for two inputs.
type idMap struct {
	fwd, rev map[string]string
}

func newIDMap() *idMap { return &idMap{fwd: map[string]string{}, rev: map[string]string{}} }

func (m *idMap) get(id string) string {
	if v, ok := m.fwd[id]; ok {
		return v
	}
	for attempt := 0; ; attempt++ {
		c := deriveID(id, attempt)
		if owner, ok := m.rev[c]; !ok || owner == id {
			m.fwd[id], m.rev[c] = c, id
			return c
		}
	}
}

// deriveID keeps an id that already has Mistral's shape, else hashes it
// into 9 base-62 characters.
func deriveID(id string, attempt int) string {
	alnum := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, id)
	if attempt == 0 && len(alnum) == toolCallIDLen {
		return alnum
	}
	seed := alnum
	if seed == "" {
		seed = id
	}
	if attempt > 0 {
		seed += ":" + strconv.Itoa(attempt)
	}
	sum := sha256.Sum256([]byte(seed))
	s := new(big.Int).SetBytes(sum[:]).Text(62)
	for len(s) < toolCallIDLen {
		s = "0" + s
	}
	return s[:toolCallIDLen]
}
