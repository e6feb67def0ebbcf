package openai

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// Texts the original sends in synthetic parts of the conversation.
const (
	bridgeText          = "I have processed the tool results."
	toolImagesIntro     = "Attached image(s) from tool result:"
	toolImageOnly       = "(see attached image)"
	toolNoOutput        = "(no tool output)"
	promptCacheKeyLimit = 64
)

// body is a request body under construction. Maps marshal with sorted keys,
// which keeps golden files stable; the APIs do not care about key order.
type body = map[string]any

// buildBody returns the /chat/completions request body for req.
func buildBody(req *llm.Request, c compat) body {
	m := req.Model
	level := req.EffectiveThinking()
	retention := req.EffectiveCacheRetention()

	msgs := convertMessages(req, c)
	b := body{
		"model":    m.ID,
		"messages": msgs,
		"stream":   true,
	}
	if c.supportsUsageInStreaming {
		b["stream_options"] = body{"include_usage": true}
	}
	if c.supportsStore {
		b["store"] = false
	}
	maxTokens := req.EffectiveMaxTokens()
	b[maxTokensField(c)] = maxTokens

	if req.SessionID != "" && ((strings.Contains(m.BaseURL, "api.openai.com") && retention != llm.CacheNone) ||
		(retention == llm.CacheLong && c.supportsLongCacheRetention)) {
		b["prompt_cache_key"] = clampCacheKey(req.SessionID)
	}
	if retention == llm.CacheLong && c.supportsLongCacheRetention {
		b["prompt_cache_retention"] = "24h"
	}

	for k, v := range req.SamplingParams(level) {
		b[k] = v
	}

	if len(req.Tools) > 0 {
		b["tools"] = convertTools(req.Tools, c)
	} else if hasToolHistory(req.Messages) && !strings.Contains(m.BaseURL, "api.openai.com") {
		// Proxies in front of Anthropic (LiteLLM & co.) reject tool_calls in
		// the history unless a tools array is present; OpenAI itself rejects
		// an empty one.
		b["tools"] = []any{}
	}
	if c.cacheControlFormat == "anthropic" && retention != llm.CacheNone {
		applyCacheControl(b, retention == llm.CacheLong && c.supportsLongCacheRetention)
	}

	if m.Reasoning {
		applyThinking(b, req, c, level, maxTokens)
	}
	if len(c.openRouterRouting) > 0 && string(c.openRouterRouting) != "{}" && string(c.openRouterRouting) != "null" {
		b["provider"] = c.openRouterRouting
	}
	if gw := gatewayOptions(c.vercelGatewayRouting); gw != nil {
		b["providerOptions"] = body{"gateway": gw}
	}
	return b
}

func maxTokensField(c compat) string {
	if c.maxTokensField == "max_tokens" {
		return "max_tokens"
	}
	return "max_completion_tokens"
}

func clampCacheKey(k string) string {
	if len(k) <= promptCacheKeyLimit {
		return k
	}
	return k[:promptCacheKeyLimit]
}

// applyThinking sets the reasoning controls of c.thinkingFormat. level is the
// clamped relay level; off means "no reasoning requested".
func applyThinking(b body, req *llm.Request, c compat, level llm.ThinkingLevel, maxTokens int) {
	m := req.Model
	on := level != llm.ThinkingOff
	effort := func() (string, bool) { return m.MappedThinking(level) }
	// offValue is thinkingLevelMap.off: (value, true) when mapped to a
	// string, ("none", true) when absent, ("", false) when mapped to null.
	offValue := func() (string, bool) {
		v, ok := m.ThinkingLevelMap["off"]
		if !ok {
			return "none", true
		}
		if v == nil {
			return "", false
		}
		return *v, true
	}
	offV, offMapped := m.ThinkingLevelMap["off"]
	offNull := offMapped && offV == nil // off explicitly unsupported: say nothing

	switch c.thinkingFormat {
	case FormatZAI:
		if on {
			b["thinking"] = body{"type": "enabled", "clear_thinking": false}
			if e, ok := effort(); ok && c.supportsReasoningEffort {
				b["reasoning_effort"] = e
			}
		} else {
			b["thinking"] = body{"type": "disabled"}
		}
	case FormatQwen:
		b["enable_thinking"] = on
	case FormatQwenChatTemplate:
		b["chat_template_kwargs"] = body{"enable_thinking": on, "preserve_thinking": true}
	case FormatChatTemplate:
		if kw := chatTemplateKwargs(m, c, level); kw != nil {
			b["chat_template_kwargs"] = kw
		}
	case FormatBaseten:
		b["chat_template_args"] = body{"enable_thinking": on}
		if on && c.supportsReasoningEffort {
			if e, ok := effort(); ok {
				b["reasoning_effort"] = e
			}
		}
	case FormatDeepSeek:
		if on {
			b["thinking"] = body{"type": "enabled"}
			if e, ok := effort(); ok && c.supportsReasoningEffort {
				b["reasoning_effort"] = e
			}
		} else if !offNull {
			b["thinking"] = body{"type": "disabled"}
		}
	case FormatOpenRouter:
		if on {
			if e, ok := effort(); ok {
				b["reasoning"] = body{"effort": e}
			}
		} else if v, ok := offValue(); ok {
			b["reasoning"] = body{"effort": v}
		}
	case FormatAntLing:
		// Only explicitly mapped levels are sent; the service has its own names.
		if on {
			if v, ok := m.ThinkingLevelMap[string(level)]; ok && v != nil {
				b["reasoning"] = body{"effort": *v}
			}
		}
	case FormatTogether:
		b["reasoning"] = body{"enabled": on}
		if on && c.supportsReasoningEffort {
			if e, ok := effort(); ok {
				b["reasoning_effort"] = e
			}
		}
	case FormatStringThinking:
		if on {
			if e, ok := effort(); ok {
				b["thinking"] = e
			}
		} else if v, ok := offValue(); ok {
			b["thinking"] = v
		}
	default: // openai
		if !c.supportsReasoningEffort {
			break
		}
		if on {
			if e, ok := effort(); ok {
				b["reasoning_effort"] = e
			}
		} else if v, ok := m.ThinkingLevelMap["off"]; ok && v != nil {
			b["reasoning_effort"] = *v
		}
	}

	if c.thinkingTokenBudgetField != "" && on {
		budget := req.ThinkingBudget(level)
		if maxTokens > llm.MinAnswerTokens && budget > maxTokens-llm.MinAnswerTokens {
			budget = maxTokens - llm.MinAnswerTokens
		}
		if budget > 0 {
			b[c.thinkingTokenBudgetField] = budget
		}
	}
}

// chatTemplateKwargs resolves compat.chatTemplateKwargs: literal values pass
// through; {"$var":"thinking.enabled"} becomes a bool and
// {"$var":"thinking.effort"} the mapped effort; "omitWhenOff" drops the key
// when thinking is off. Without kwargs it sends {enable_thinking}.
func chatTemplateKwargs(m *llm.Model, c compat, level llm.ThinkingLevel) body {
	on := level != llm.ThinkingOff
	if len(c.chatTemplateKwargs) == 0 {
		return body{"enable_thinking": on}
	}
	out := body{}
	for k, raw := range c.chatTemplateKwargs {
		var desc struct {
			Var         string `json:"$var"`
			OmitWhenOff bool   `json:"omitWhenOff"`
		}
		if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &desc) != nil || desc.Var == "" {
			out[k] = raw
			continue
		}
		if !on && desc.OmitWhenOff {
			continue
		}
		if desc.Var == "thinking.enabled" {
			out[k] = on
			continue
		}
		v, ok := m.ThinkingLevelMap[string(level)]
		switch {
		case !ok && on:
			out[k] = string(level)
		case ok && v != nil:
			out[k] = *v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func gatewayOptions(raw json.RawMessage) body {
	if len(raw) == 0 {
		return nil
	}
	var r struct {
		Only  []string `json:"only"`
		Order []string `json:"order"`
	}
	if json.Unmarshal(raw, &r) != nil || (r.Only == nil && r.Order == nil) {
		return nil
	}
	gw := body{}
	if r.Only != nil {
		gw["only"] = r.Only
	}
	if r.Order != nil {
		gw["order"] = r.Order
	}
	return gw
}

func convertTools(tools []llm.ToolSpec, c compat) []any {
	out := make([]any, 0, len(tools))
	for _, t := range tools {
		fn := body{"name": t.Name, "description": t.Description, "parameters": params(t.Parameters)}
		if c.supportsStrictMode {
			fn["strict"] = false
		}
		out = append(out, body{"type": "function", "function": fn})
	}
	return out
}

func params(p json.RawMessage) any {
	if len(p) == 0 {
		return body{"type": "object", "properties": body{}}
	}
	return p
}

func hasToolHistory(msgs []llm.Message) bool {
	for _, m := range msgs {
		switch v := m.(type) {
		case *llm.ToolResultMessage:
			return true
		case *llm.AssistantMessage:
			if len(v.ToolCalls()) > 0 {
				return true
			}
		}
	}
	return false
}

// applyCacheControl puts Anthropic cache_control markers (for gateways that
// forward them) on the system prompt, the last tool and the last user or
// assistant text part.
func applyCacheControl(b body, long bool) {
	cc := body{"type": "ephemeral"}
	if long {
		cc["ttl"] = "1h"
	}
	msgs, _ := b["messages"].([]any)
	for _, m := range msgs {
		mm := m.(body)
		if r := mm["role"]; r == "system" || r == "developer" {
			markText(mm, cc)
			break
		}
	}
	if tools, _ := b["tools"].([]any); len(tools) > 0 {
		tools[len(tools)-1].(body)["cache_control"] = cc
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		mm := msgs[i].(body)
		if r := mm["role"]; (r == "user" || r == "assistant") && markText(mm, cc) {
			break
		}
	}
}

// markText adds cc to the last text part of m, turning string content into
// one text part. It reports whether a part was marked.
func markText(m body, cc body) bool {
	switch c := m["content"].(type) {
	case string:
		if c == "" {
			return false
		}
		m["content"] = []any{body{"type": "text", "text": c, "cache_control": cc}}
		return true
	case []any:
		for i := len(c) - 1; i >= 0; i-- {
			if p, ok := c[i].(body); ok && p["type"] == "text" {
				p["cache_control"] = cc
				return true
			}
		}
	}
	return false
}

// normalizeToolCallID makes a tool-call id from another model acceptable:
// Responses "call|item" ids are sanitized and shortened to 40 characters,
// Mistral wants exactly 9 alphanumerics, and toolCallIdMaxLength truncates.
func normalizeToolCallID(id string, c compat) string {
	if c.requiresMistralToolIDs {
		return mistralID(id)
	}
	if call, item, ok := strings.Cut(id, "|"); ok {
		call, item = llm.SafeID(call), llm.SafeID(item)
		combined := call
		if item != "" {
			combined = call + "_" + item
		}
		if len(combined) <= 40 {
			return combined
		}
		h := shortHash(id)
		n := max(1, 40-len(h)-1)
		return call[:min(n, len(call))] + "_" + h
	}
	if c.toolCallIDMaxLength > 0 && len(id) > c.toolCallIDMaxLength {
		return id[:c.toolCallIDMaxLength]
	}
	return id
}

func mistralID(id string) string {
	out := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, id)
	const pad = "ABCDEFGHI"
	if len(out) < 9 {
		return out + pad[:9-len(out)]
	}
	return out[:9]
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}
