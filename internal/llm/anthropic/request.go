package anthropic

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/relay-agent/relay/internal/llm"
)

// Wire types of the Messages API request. Field order is the order the
// body is written in (golden files depend on it).

type cacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

type textBlock struct {
	Type         string        `json:"type"` // "text"
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
	// volatile text changes on every request (llm.TextContent.Volatile):
	// it never carries the cache breakpoint.
	volatile bool
}

type imageSource struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type imageBlock struct {
	Type         string        `json:"type"` // "image"
	Source       imageSource   `json:"source"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type thinkingBlock struct {
	Type      string `json:"type"` // "thinking"
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type redactedThinkingBlock struct {
	Type string `json:"type"` // "redacted_thinking"
	Data string `json:"data"`
}

type toolUseBlock struct {
	Type  string          `json:"type"` // "tool_use"
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	Type         string        `json:"type"` // "tool_result"
	ToolUseID    string        `json:"tool_use_id"`
	Content      any           `json:"content"` // string or []any of text/image blocks
	IsError      bool          `json:"is_error"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type message struct {
	Role    string `json:"role"`
	Content any    `json:"content"` // string or []any
}

type tool struct {
	Name                string          `json:"name"`
	Description         string          `json:"description"`
	EagerInputStreaming bool            `json:"eager_input_streaming,omitempty"`
	InputSchema         json.RawMessage `json:"input_schema"`
	CacheControl        *cacheControl   `json:"cache_control,omitempty"`
}

type thinkingConfig struct {
	Type         string `json:"type"` // enabled | adaptive | disabled
	BudgetTokens int    `json:"budget_tokens,omitempty"`
	Display      string `json:"display,omitempty"`
}

type outputConfig struct {
	Effort string `json:"effort"`
}

type body struct {
	Model        string          `json:"model"`
	Messages     []message       `json:"messages"`
	MaxTokens    int             `json:"max_tokens"`
	Stream       bool            `json:"stream"`
	System       []textBlock     `json:"system,omitempty"`
	Temperature  *float64        `json:"temperature,omitempty"`
	Tools        []tool          `json:"tools,omitempty"`
	Thinking     *thinkingConfig `json:"thinking,omitempty"`
	OutputConfig *outputConfig   `json:"output_config,omitempty"`
}

// Beta feature names sent in anthropic-beta.
const (
	betaInterleavedThinking = "interleaved-thinking-2025-05-14"
	betaFineGrainedTools    = "fine-grained-tool-streaming-2025-05-14"
	betaClaudeCode          = "claude-code-20250219"
	betaOAuth               = "oauth-2025-04-20"
)

// claudeCodeIdentity must open the system prompt when an OAuth token
// (Claude subscription) is used.
const claudeCodeIdentity = "You are Claude Code, Anthropic's official CLI for Claude."

// imagePlaceholder precedes images of a tool result that has no text.
const imagePlaceholder = "(see attached image)"

// claudeCodeTools is Claude Code's canonical tool casing; OAuth requests use
// it for tools whose names match case-insensitively.
var claudeCodeTools = []string{
	"Read", "Write", "Edit", "Bash", "Grep", "Glob", "AskUserQuestion", "EnterPlanMode",
	"ExitPlanMode", "KillShell", "NotebookEdit", "Skill", "Task", "TaskOutput", "TodoWrite",
	"WebFetch", "WebSearch",
}

func toClaudeCodeName(name string) string {
	for _, t := range claudeCodeTools {
		if strings.EqualFold(t, name) {
			return t
		}
	}
	return name
}

// fromClaudeCodeName maps a tool name the model used back to ours.
func fromClaudeCodeName(name string, tools []llm.ToolSpec) string {
	for _, t := range tools {
		if strings.EqualFold(t.Name, name) {
			return t.Name
		}
	}
	return name
}

// IsOAuthToken reports whether key is a Claude subscription OAuth token,
// sent as a bearer token with Claude Code's identity.
func IsOAuthToken(key string) bool { return strings.Contains(key, "sk-ant-oat") }

// options are the compat switches of the Anthropic client; unknown to the
// shared Compat struct, they come from its Extra members.
type options struct {
	eagerToolStreaming bool // tools get eager_input_streaming (else the fine-grained beta)
	longCache          bool // ttl 1h allowed for long retention
	cacheOnTools       bool
	temperature        bool
	allowEmptySig      bool // replay unsigned thinking as thinking, not text
	forceAdaptive      bool
}

func compatOptions(m *llm.Model) options {
	o := options{eagerToolStreaming: true, longCache: true, cacheOnTools: true, temperature: true}
	c := m.Compat
	if c == nil {
		return o
	}
	if c.SupportsLongCacheRetention != nil {
		o.longCache = *c.SupportsLongCacheRetention
	}
	if c.ForceAdaptiveThinking != nil {
		o.forceAdaptive = *c.ForceAdaptiveThinking
	}
	extraBool := func(name string, dst *bool) {
		if raw, ok := c.Extra[name]; ok {
			var v bool
			if json.Unmarshal(raw, &v) == nil {
				*dst = v
			}
		}
	}
	extraBool("supportsEagerToolInputStreaming", &o.eagerToolStreaming)
	extraBool("supportsCacheControlOnTools", &o.cacheOnTools)
	extraBool("supportsTemperature", &o.temperature)
	extraBool("allowEmptySignature", &o.allowEmptySig)
	return o
}

// plan is everything derived from a Request before it goes on the wire.
type plan struct {
	body    body
	betas   []string
	oauth   bool
	opts    options
	thinkOn bool
}

func buildPlan(req *llm.Request) *plan {
	m := req.Model
	p := &plan{oauth: IsOAuthToken(req.APIKey), opts: compatOptions(m)}
	var cc *cacheControl
	if ret := req.EffectiveCacheRetention(); ret != llm.CacheNone {
		cc = &cacheControl{Type: "ephemeral"}
		if ret == llm.CacheLong && p.opts.longCache {
			cc.TTL = "1h"
		}
	}

	b := &p.body
	b.Model = m.ID
	b.Stream = true
	b.MaxTokens = req.EffectiveMaxTokens()

	if p.oauth {
		b.System = append(b.System, textBlock{Type: "text", Text: claudeCodeIdentity, CacheControl: cc})
	}
	if req.SystemPrompt != "" {
		b.System = append(b.System, textBlock{Type: "text", Text: sanitize(req.SystemPrompt), CacheControl: cc})
	}

	msgs := llm.PrepareReplay(req.Messages, m, llm.SafeIDMax64)
	b.Messages = convertMessages(msgs, p.oauth, p.opts.allowEmptySig)
	if cc != nil {
		markLast(b.Messages, cc)
	}

	for i, t := range req.Tools {
		wt := tool{Name: t.Name, Description: t.Description, EagerInputStreaming: p.opts.eagerToolStreaming, InputSchema: inputSchema(t.Parameters)}
		if p.oauth {
			wt.Name = toClaudeCodeName(t.Name)
		}
		if cc != nil && p.opts.cacheOnTools && i == len(req.Tools)-1 {
			wt.CacheControl = cc
		}
		b.Tools = append(b.Tools, wt)
	}

	p.thinking(req)
	if req.Temperature != nil && !p.thinkOn && p.opts.temperature {
		b.Temperature = req.Temperature
	}

	if p.oauth {
		p.betas = append(p.betas, betaClaudeCode, betaOAuth)
	}
	if len(req.Tools) > 0 && !p.opts.eagerToolStreaming {
		p.betas = append(p.betas, betaFineGrainedTools)
	}
	if p.thinkOn && !p.opts.forceAdaptive {
		p.betas = append(p.betas, betaInterleavedThinking)
	}
	return p
}

// thinking maps the effective thinking level (upstream-spec-core.md §6.5).
func (p *plan) thinking(req *llm.Request) {
	m := req.Model
	if !m.Reasoning {
		return
	}
	level := req.EffectiveThinking()
	if level == llm.ThinkingOff {
		if v, ok := m.ThinkingLevelMap[string(llm.ThinkingOff)]; !ok || v != nil {
			p.body.Thinking = &thinkingConfig{Type: "disabled"}
		}
		return
	}
	p.thinkOn = true
	if p.opts.forceAdaptive {
		p.body.Thinking = &thinkingConfig{Type: "adaptive", Display: "summarized"}
		p.body.OutputConfig = &outputConfig{Effort: adaptiveEffort(m, level)}
		return
	}
	budget := req.ThinkingBudget(level)
	maxTokens := p.body.MaxTokens + budget
	if m.MaxTokens > 0 && maxTokens > m.MaxTokens {
		maxTokens = m.MaxTokens
	}
	if maxTokens <= budget {
		budget = max(0, maxTokens-llm.MinAnswerTokens)
	}
	budget = min(budget, max(0, maxTokens-llm.MinAnswerTokens))
	if budget == 0 {
		budget = 1024 // the API's minimum
	}
	p.body.MaxTokens = maxTokens
	p.body.Thinking = &thinkingConfig{Type: "enabled", BudgetTokens: budget, Display: "summarized"}
}

func adaptiveEffort(m *llm.Model, level llm.ThinkingLevel) string {
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

// inputSchema keeps only type/properties/required of the tool's JSON
// Schema, as the original sends it.
func inputSchema(params json.RawMessage) json.RawMessage {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	_ = json.Unmarshal(params, &s)
	if len(s.Properties) == 0 || string(s.Properties) == "null" {
		s.Properties = json.RawMessage("{}")
	}
	if s.Required == nil {
		s.Required = []string{}
	}
	out, _ := llm.Marshal(struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}{"object", s.Properties, s.Required})
	return out
}

// sanitize drops unpaired UTF-16 surrogates, which Go strings cannot hold
// anyway, and invalid UTF-8, which the API rejects.
// sanitize drops invalid UTF-8. utf8.ValidString first: it checks eight
// ASCII bytes at a time, where ToValidUTF8 decodes rune by rune even when
// there is nothing to drop (a resumed 50 MB session passes every text here).
func sanitize(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "")
}

func convertMessages(msgs []llm.Message, oauth, allowEmptySig bool) []message {
	var out []message
	for i := 0; i < len(msgs); i++ {
		switch m := msgs[i].(type) {
		case *llm.UserMessage:
			if m.Content.IsString {
				if strings.TrimSpace(m.Content.Text) != "" {
					out = append(out, message{Role: "user", Content: sanitize(m.Content.Text)})
				}
				continue
			}
			var blocks []any
			for _, b := range m.Content.Blocks {
				switch v := b.(type) {
				case *llm.TextContent:
					if strings.TrimSpace(v.Text) != "" {
						blocks = append(blocks, &textBlock{Type: "text", Text: sanitize(v.Text), volatile: v.Volatile})
					}
				case *llm.ImageContent:
					blocks = append(blocks, image(v))
				}
			}
			if len(blocks) > 0 {
				out = append(out, message{Role: "user", Content: blocks})
			}
		case *llm.AssistantMessage:
			var blocks []any
			for _, b := range m.Content {
				switch v := b.(type) {
				case *llm.TextContent:
					if strings.TrimSpace(v.Text) != "" {
						blocks = append(blocks, &textBlock{Type: "text", Text: sanitize(v.Text)})
					}
				case *llm.ThinkingContent:
					if v.Redacted {
						blocks = append(blocks, &redactedThinkingBlock{Type: "redacted_thinking", Data: v.ThinkingSignature})
						continue
					}
					signed := strings.TrimSpace(v.ThinkingSignature) != ""
					switch {
					case strings.TrimSpace(v.Thinking) == "" && !signed:
					case signed:
						blocks = append(blocks, &thinkingBlock{Type: "thinking", Thinking: sanitize(v.Thinking), Signature: v.ThinkingSignature})
					case allowEmptySig:
						blocks = append(blocks, &thinkingBlock{Type: "thinking", Thinking: sanitize(v.Thinking)})
					default:
						// Unsigned thinking (an aborted stream) cannot be
						// replayed as thinking: send it as text.
						blocks = append(blocks, &textBlock{Type: "text", Text: sanitize(v.Thinking)})
					}
				case *llm.ToolCall:
					name := v.Name
					if oauth {
						name = toClaudeCodeName(name)
					}
					args := v.Arguments
					if len(args) == 0 {
						args = json.RawMessage("{}")
					}
					blocks = append(blocks, &toolUseBlock{Type: "tool_use", ID: v.ID, Name: name, Input: args})
				}
			}
			if len(blocks) > 0 {
				out = append(out, message{Role: "assistant", Content: blocks})
			}
		case *llm.ToolResultMessage:
			// Consecutive tool results go into one user message. Volatile
			// text follows them as plain text blocks: inside a tool
			// result it would change the block the cache breakpoint sits
			// on, and the next request's prefix would no longer match.
			var blocks, volatile []any
			for ; i < len(msgs); i++ {
				tr, ok := msgs[i].(*llm.ToolResultMessage)
				if !ok {
					break
				}
				content := tr.Content
				if hasVolatile(content) {
					content = nil
					for _, b := range tr.Content {
						if t, ok := b.(*llm.TextContent); ok && t.Volatile {
							if strings.TrimSpace(t.Text) != "" {
								volatile = append(volatile, &textBlock{Type: "text", Text: sanitize(t.Text), volatile: true})
							}
							continue
						}
						content = append(content, b)
					}
				}
				blocks = append(blocks, &toolResultBlock{Type: "tool_result", ToolUseID: tr.ToolCallID, Content: toolResultContent(content), IsError: tr.IsError})
			}
			i--
			out = append(out, message{Role: "user", Content: append(blocks, volatile...)})
		}
	}
	return out
}

func image(v *llm.ImageContent) *imageBlock {
	return &imageBlock{Type: "image", Source: imageSource{Type: "base64", MediaType: v.MimeType, Data: v.Data}}
}

// toolResultContent is a string when the result is text only, else blocks
// (with a placeholder text first when there is no text at all).
func toolResultContent(bs llm.Blocks) any {
	hasImage, hasText := false, false
	for _, b := range bs {
		switch b.(type) {
		case *llm.ImageContent:
			hasImage = true
		case *llm.TextContent:
			hasText = true
		}
	}
	if !hasImage {
		var texts []string
		for _, b := range bs {
			if t, ok := b.(*llm.TextContent); ok {
				texts = append(texts, t.Text)
			}
		}
		return sanitize(strings.Join(texts, "\n"))
	}
	var out []any
	if !hasText {
		out = append(out, &textBlock{Type: "text", Text: imagePlaceholder})
	}
	for _, b := range bs {
		switch v := b.(type) {
		case *llm.TextContent:
			out = append(out, &textBlock{Type: "text", Text: sanitize(v.Text)})
		case *llm.ImageContent:
			out = append(out, image(v))
		}
	}
	return out
}

func hasVolatile(bs llm.Blocks) bool {
	for _, b := range bs {
		if t, ok := b.(*llm.TextContent); ok && t.Volatile {
			return true
		}
	}
	return false
}

// markLast puts the cache breakpoint on the last block of the last message
// that is not volatile, when that message is a user message (text, image or
// tool result); a string content becomes one text block to carry it.
// Skipping the volatile block (the harness state, which moves to the newest
// message on every request) keeps the cached prefix byte-identical between
// requests.
func markLast(msgs []message, cc *cacheControl) {
	if len(msgs) == 0 {
		return
	}
	last := &msgs[len(msgs)-1]
	if last.Role != "user" {
		return
	}
	switch c := last.Content.(type) {
	case string:
		last.Content = []any{&textBlock{Type: "text", Text: c, CacheControl: cc}}
	case []any:
		for i := len(c) - 1; i >= 0; i-- {
			switch b := c[i].(type) {
			case *textBlock:
				if b.volatile {
					continue
				}
				b.CacheControl = cc
			case *imageBlock:
				b.CacheControl = cc
			case *toolResultBlock:
				b.CacheControl = cc
			default:
				continue
			}
			return
		}
	}
}
