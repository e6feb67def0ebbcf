package bedrock

import (
	"encoding/json"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// Wire types of the ConverseStream request body (the REST-JSON shape of
// the Converse API).

type cachePoint struct {
	Type string `json:"type"` // "default"
	TTL  string `json:"ttl,omitempty"`
}

type imageBlock struct {
	Format string `json:"format"`
	Source struct {
		Bytes string `json:"bytes"` // base64
	} `json:"source"`
}

type toolUse struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

type toolResult struct {
	ToolUseID string         `json:"toolUseId"`
	Content   []contentBlock `json:"content"`
	Status    string         `json:"status"` // success | error
}

type reasoningText struct {
	Text      string `json:"text"`
	Signature string `json:"signature,omitempty"`
}

type reasoningContent struct {
	ReasoningText   *reasoningText `json:"reasoningText,omitempty"`
	RedactedContent string         `json:"redactedContent,omitempty"` // base64
}

// contentBlock is a union: exactly one member is set.
type contentBlock struct {
	Text             *string           `json:"text,omitempty"`
	Image            *imageBlock       `json:"image,omitempty"`
	ToolUse          *toolUse          `json:"toolUse,omitempty"`
	ToolResult       *toolResult       `json:"toolResult,omitempty"`
	ReasoningContent *reasoningContent `json:"reasoningContent,omitempty"`
	CachePoint       *cachePoint       `json:"cachePoint,omitempty"`
}

type message struct {
	Role    string         `json:"role"`
	Content []contentBlock `json:"content"`
}

type toolSpec struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	InputSchema struct {
		JSON json.RawMessage `json:"json"`
	} `json:"inputSchema"`
}

type tool struct {
	ToolSpec *toolSpec `json:"toolSpec,omitempty"`
}

type inferenceConfig struct {
	MaxTokens   int      `json:"maxTokens,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
}

type body struct {
	Messages        []message        `json:"messages"`
	System          []contentBlock   `json:"system,omitempty"`
	InferenceConfig *inferenceConfig `json:"inferenceConfig,omitempty"`
	ToolConfig      *struct {
		Tools []tool `json:"tools"`
	} `json:"toolConfig,omitempty"`
	AdditionalModelRequestFields map[string]any `json:"additionalModelRequestFields,omitempty"`
}

// emptyText stands in for content Bedrock refuses to receive empty.
const emptyText = "<empty>"

// Beta flags sent in additionalModelRequestFields.anthropic_beta.
const (
	betaInterleaved     = "interleaved-thinking-2025-05-14"
	betaThinkingBinding = "thinking-binding-controls-2026-08-01"
)

func buildBody(req *llm.Request, t *target, getenv func(string) string) *body {
	m := req.Model
	b := &body{}
	var cp *cachePoint
	if ret := req.EffectiveCacheRetention(); ret != llm.CacheNone && supportsCaching(m, getenv) {
		cp = &cachePoint{Type: "default"}
		if ret == llm.CacheLong {
			cp.TTL = "1h"
		}
	}
	if s := req.SystemPrompt; strings.TrimSpace(s) != "" {
		b.System = append(b.System, contentBlock{Text: &s})
		if cp != nil {
			b.System = append(b.System, contentBlock{CachePoint: cp})
		}
	}
	b.Messages = convertMessages(llm.PrepareReplay(req.Messages, m, llm.SafeIDMax64), t.claude)
	if n := len(b.Messages); cp != nil && n > 0 && b.Messages[n-1].Role == "user" {
		b.Messages[n-1].Content = append(b.Messages[n-1].Content, contentBlock{CachePoint: cp})
	}
	if len(req.Tools) > 0 {
		b.ToolConfig = &struct {
			Tools []tool `json:"tools"`
		}{}
		for _, tl := range req.Tools {
			ts := &toolSpec{Name: tl.Name, Description: tl.Description}
			ts.InputSchema.JSON = schema(tl.Parameters)
			b.ToolConfig.Tools = append(b.ToolConfig.Tools, tool{ToolSpec: ts})
		}
	}

	ic := &inferenceConfig{}
	if req.MaxTokens > 0 {
		ic.MaxTokens = req.MaxTokens
	} else if t.claude {
		ic.MaxTokens = req.EffectiveMaxTokens()
	}
	level := req.EffectiveThinking()
	thinking := m.Reasoning && level != llm.ThinkingOff
	if thinking && t.claude {
		b.AdditionalModelRequestFields = claudeThinking(req, ic, level, t.region)
	}
	if req.Temperature != nil && !thinking {
		ic.Temperature = req.Temperature
	}
	if ic.MaxTokens > 0 || ic.Temperature != nil {
		b.InferenceConfig = ic
	}
	return b
}

// claudeThinking returns the Anthropic fields that turn thinking on:
// adaptive thinking with an effort on the models that have it, else a
// token budget carved out of the output limit (upstream-spec-core §6.5).
func claudeThinking(req *llm.Request, ic *inferenceConfig, level llm.ThinkingLevel, region string) map[string]any {
	m := req.Model
	gov := strings.HasPrefix(strings.ToLower(region), "us-gov-") || strings.HasPrefix(strings.ToLower(m.ID), "us-gov.") ||
		strings.HasPrefix(strings.ToLower(m.ID), "arn:aws-us-gov:")
	th := map[string]any{}
	if !gov {
		th["display"] = "summarized" // GovCloud rejects display
	}
	out := map[string]any{"thinking": th}
	if matches(m, adaptiveModels...) {
		th["type"] = "adaptive"
		out["output_config"] = map[string]any{"effort": effort(m, level)}
		if !gov && matches(m, bindingModels...) {
			th["block_binding"] = map[string]any{"prefix_mismatch_behavior": "drop_block"}
			out["anthropic_beta"] = []string{betaThinkingBinding}
		}
		return out
	}
	budget := req.ThinkingBudget(level)
	maxTokens := ic.MaxTokens + budget
	if m.MaxTokens > 0 && maxTokens > m.MaxTokens {
		maxTokens = m.MaxTokens
	}
	budget = min(budget, max(0, maxTokens-llm.MinAnswerTokens))
	if budget < 1024 {
		budget = 1024 // the API's minimum
	}
	ic.MaxTokens = maxTokens
	th["type"] = "enabled"
	th["budget_tokens"] = budget
	out["anthropic_beta"] = []string{betaInterleaved}
	return out
}

// Model families by capability, matched on the id and the name (an
// application inference profile's ARN does not name the model).
var (
	adaptiveModels = []string{"opus-4-6", "opus-4-7", "opus-4-8", "opus-5", "sonnet-4-6", "sonnet-5", "fable-5"}
	bindingModels  = []string{"opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "fable-5"}
)

func candidates(m *llm.Model) []string {
	var out []string
	for _, v := range []string{m.ID, m.Name} {
		if v == "" {
			continue
		}
		l := strings.ToLower(v)
		out = append(out, l, strings.NewReplacer(" ", "-", "_", "-", ".", "-", ":", "-").Replace(l))
	}
	return out
}

func matches(m *llm.Model, subs ...string) bool {
	for _, c := range candidates(m) {
		for _, s := range subs {
			if strings.Contains(c, s) {
				return true
			}
		}
	}
	return false
}

func isClaude(m *llm.Model) bool {
	id, name := strings.ToLower(m.ID), strings.ToLower(m.Name)
	return strings.Contains(id, "anthropic.claude") || strings.Contains(id, "anthropic/claude") || strings.Contains(name, "claude")
}

// effort maps a level to Claude's output_config.effort.
func effort(m *llm.Model, level llm.ThinkingLevel) string {
	if level == llm.ThinkingXHigh && matches(m, bindingModels...) {
		return "xhigh"
	}
	if v, ok := m.ThinkingLevelMap[string(level)]; ok && v != nil {
		return *v
	}
	switch level {
	case llm.ThinkingMinimal, llm.ThinkingLow:
		return "low"
	case llm.ThinkingMedium:
		return "medium"
	}
	return "high"
}

// supportsCaching: Claude 3.5 Haiku, 3.7 Sonnet, 4.x and 5 take cache
// points; AWS_BEDROCK_FORCE_CACHE=1 forces them for application inference
// profiles whose ARN names no model. Nova caches on its own.
func supportsCaching(m *llm.Model, getenv func(string) string) bool {
	if !matches(m, "claude") {
		return getenv("AWS_BEDROCK_FORCE_CACHE") == "1"
	}
	return matches(m, "fable-5", "opus-5", "sonnet-5", "-4-", "claude-3-7-sonnet", "claude-3-5-haiku")
}

// schema is the tool's JSON Schema, or an empty object schema.
func schema(params json.RawMessage) json.RawMessage {
	if len(strings.TrimSpace(string(params))) == 0 || string(params) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return params
}

func textBlock(s string) contentBlock {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return contentBlock{Text: &s}
}

// nonBlank returns s as a text block unless it is only whitespace.
func nonBlank(s string) (contentBlock, bool) {
	if strings.TrimSpace(s) == "" {
		return contentBlock{}, false
	}
	return textBlock(s), true
}

func imageFormat(mime string) string {
	switch mime {
	case "image/jpeg", "image/jpg":
		return "jpeg"
	case "image/png":
		return "png"
	case "image/gif":
		return "gif"
	case "image/webp":
		return "webp"
	}
	return ""
}

func image(img *llm.ImageContent) (contentBlock, bool) {
	f := imageFormat(img.MimeType)
	if f == "" {
		return textBlock("(image of unsupported type " + img.MimeType + " omitted)"), true
	}
	ib := &imageBlock{Format: f}
	ib.Source.Bytes = img.Data
	return contentBlock{Image: ib}, true
}

func convertMessages(msgs []llm.Message, claude bool) []message {
	var out []message
	for i := 0; i < len(msgs); i++ {
		switch m := msgs[i].(type) {
		case *llm.UserMessage:
			var content []contentBlock
			if m.Content.IsString {
				if blk, ok := nonBlank(m.Content.Text); ok {
					content = append(content, blk)
				}
			} else {
				for _, c := range m.Content.Blocks {
					switch c := c.(type) {
					case *llm.TextContent:
						if blk, ok := nonBlank(c.Text); ok {
							content = append(content, blk)
						}
					case *llm.ImageContent:
						if blk, ok := image(c); ok {
							content = append(content, blk)
						}
					}
				}
			}
			if len(content) == 0 {
				content = append(content, textBlock(emptyText))
			}
			out = append(out, message{Role: "user", Content: content})
		case *llm.AssistantMessage:
			var content []contentBlock
			for _, c := range m.Content {
				switch c := c.(type) {
				case *llm.TextContent:
					if blk, ok := nonBlank(c.Text); ok {
						content = append(content, blk)
					}
				case *llm.ToolCall:
					args := c.Arguments
					if len(args) == 0 || args[0] != '{' {
						args = json.RawMessage("{}")
					}
					content = append(content, contentBlock{ToolUse: &toolUse{ToolUseID: c.ID, Name: c.Name, Input: args}})
				case *llm.ThinkingContent:
					if c.Redacted {
						if c.ThinkingSignature != "" {
							content = append(content, contentBlock{ReasoningContent: &reasoningContent{RedactedContent: c.ThinkingSignature}})
						}
						continue
					}
					if strings.TrimSpace(c.Thinking) == "" {
						continue
					}
					switch {
					case !claude:
						// Only Claude takes signatures; others reject the field.
						content = append(content, contentBlock{ReasoningContent: &reasoningContent{ReasoningText: &reasoningText{Text: c.Thinking}}})
					case strings.TrimSpace(c.ThinkingSignature) == "":
						// Unsigned thinking would be rejected: replay it as text.
						content = append(content, textBlock(c.Thinking))
					default:
						content = append(content, contentBlock{ReasoningContent: &reasoningContent{ReasoningText: &reasoningText{Text: c.Thinking, Signature: c.ThinkingSignature}}})
					}
				}
			}
			if len(content) > 0 {
				out = append(out, message{Role: "assistant", Content: content})
			}
		case *llm.ToolResultMessage:
			// Consecutive tool results go in one user message.
			var content []contentBlock
			for ; i < len(msgs); i++ {
				tr, ok := msgs[i].(*llm.ToolResultMessage)
				if !ok {
					break
				}
				content = append(content, contentBlock{ToolResult: convertToolResult(tr)})
			}
			i--
			out = append(out, message{Role: "user", Content: content})
		}
	}
	return out
}

func convertToolResult(tr *llm.ToolResultMessage) *toolResult {
	r := &toolResult{ToolUseID: tr.ToolCallID, Status: "success"}
	if tr.IsError {
		r.Status = "error"
	}
	for _, c := range tr.Content {
		switch c := c.(type) {
		case *llm.TextContent:
			if blk, ok := nonBlank(c.Text); ok {
				r.Content = append(r.Content, blk)
			}
		case *llm.ImageContent:
			if blk, ok := image(c); ok {
				r.Content = append(r.Content, blk)
			}
		}
	}
	if len(r.Content) == 0 {
		r.Content = append(r.Content, textBlock(emptyText))
	}
	return r
}
