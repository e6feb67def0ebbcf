package responses

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

const (
	toolImagesIntro = "Attached image(s) from tool result:"
	toolImageOnly   = "(see attached image)"
	idLimit         = 64
	cacheKeyLimit   = 64
)

// body is a request body under construction; maps marshal with sorted keys,
// which keeps golden files stable.
type body = map[string]any

// toolIDProviders are the providers whose Responses endpoints produce and
// accept "call_id|item_id" tool-call ids; only for them are foreign ids
// rewritten into that form.
var toolIDProviders = map[string]bool{"openai": true, "openai-codex": true, "opencode": true, "azure-openai-responses": true}

// buildBody returns the /responses request body for req.
func buildBody(req *llm.Request) body {
	m := req.Model
	level := req.EffectiveThinking()
	retention := req.EffectiveCacheRetention()

	b := body{
		"model":             m.ID,
		"input":             convertInput(req),
		"stream":            true,
		"store":             false,
		"max_output_tokens": req.EffectiveMaxTokens(),
	}
	if req.SessionID != "" && retention != llm.CacheNone {
		b["prompt_cache_key"] = clamp(req.SessionID, cacheKeyLimit)
	}
	if retention == llm.CacheLong {
		b["prompt_cache_retention"] = "24h"
	}
	for k, v := range req.SamplingParams(level) {
		b[k] = v
	}
	if len(req.Tools) > 0 {
		tools := make([]any, 0, len(req.Tools))
		for _, t := range req.Tools {
			var params any = t.Parameters
			if len(t.Parameters) == 0 {
				params = body{"type": "object", "properties": body{}}
			}
			tools = append(tools, body{"type": "function", "name": t.Name, "description": t.Description,
				"parameters": params, "strict": false})
		}
		b["tools"] = tools
	}
	if m.Reasoning {
		if level != llm.ThinkingOff {
			if effort, ok := m.MappedThinking(level); ok {
				b["reasoning"] = body{"effort": effort, "summary": "auto"}
				b["include"] = []string{"reasoning.encrypted_content"}
			}
		} else if m.Provider != "github-copilot" {
			// Reasoning models think by default; off must be said explicitly.
			v, mapped := m.ThinkingLevelMap["off"]
			switch {
			case !mapped:
				b["reasoning"] = body{"effort": "none"}
			case v != nil:
				b["reasoning"] = body{"effort": *v}
			}
		}
	}
	return b
}

func clamp(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// convertInput turns the system prompt and the conversation into Responses
// input items.
func convertInput(req *llm.Request) []any {
	m := req.Model
	normalize := func(id string, _ *llm.AssistantMessage) string {
		if !toolIDProviders[m.Provider] {
			return id
		}
		return normalizeToolCallID(id)
	}
	msgs := llm.PrepareReplay(req.Messages, m, normalize)
	out := make([]any, 0, len(msgs)+1)
	if req.SystemPrompt != "" {
		role := "system"
		if m.Reasoning {
			role = "developer"
		}
		out = append(out, body{"role": role, "content": req.SystemPrompt})
	}
	for i, msg := range msgs {
		switch v := msg.(type) {
		case *llm.UserMessage:
			if item := userItem(v); item != nil {
				out = append(out, item)
			}
		case *llm.AssistantMessage:
			out = append(out, assistantItems(v, m, i)...)
		case *llm.ToolResultMessage:
			out = append(out, toolResultItems(v)...)
		}
	}
	return out
}

func userItem(u *llm.UserMessage) body {
	if u.Content.IsString {
		return body{"role": "user", "content": []any{body{"type": "input_text", "text": u.Content.Text}}}
	}
	parts := make([]any, 0, len(u.Content.Blocks))
	for _, b := range u.Content.Blocks {
		switch v := b.(type) {
		case *llm.TextContent:
			parts = append(parts, body{"type": "input_text", "text": v.Text})
		case *llm.ImageContent:
			parts = append(parts, imagePart(v))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return body{"role": "user", "content": parts}
}

func imagePart(img *llm.ImageContent) body {
	return body{"type": "input_image", "detail": "auto", "image_url": "data:" + img.MimeType + ";base64," + img.Data}
}

// assistantItems replays one assistant turn: reasoning items verbatim from
// their signatures, text as output messages with their original ids, tool
// calls as function_call items.
func assistantItems(a *llm.AssistantMessage, m *llm.Model, index int) []any {
	var out []any
	// A call id paired with a reasoning item (fc_...) is only valid with
	// that item; drop it when the item is not replayed or came from another
	// model of the same API.
	differentModel := a.Model != m.ID && a.Provider == m.Provider && a.API == m.API
	skippedThinking := false
	texts := 0
	for _, blk := range a.Content {
		switch v := blk.(type) {
		case *llm.ThinkingContent:
			if v.ThinkingSignature != "" && json.Valid([]byte(v.ThinkingSignature)) {
				out = append(out, json.RawMessage(v.ThinkingSignature))
			} else {
				skippedThinking = true
			}
		case *llm.TextContent:
			id, phase := parseTextSignature(v.TextSignature)
			switch {
			case id == "":
				// Item ids must be unique within the input.
				id = "msg_" + strconv.Itoa(index)
				if texts > 0 {
					id += "_" + strconv.Itoa(texts)
				}
			case len(id) > idLimit:
				id = "msg_" + shortHash(id)
			}
			item := body{"type": "message", "role": "assistant", "status": "completed", "id": id,
				"content": []any{body{"type": "output_text", "text": v.Text, "annotations": []any{}}}}
			if phase != "" {
				item["phase"] = phase
			}
			out = append(out, item)
			texts++
		case *llm.ToolCall:
			callID, itemID, _ := strings.Cut(v.ID, "|")
			if (differentModel || skippedThinking) && strings.HasPrefix(itemID, "fc_") {
				itemID = ""
			}
			args := string(v.Arguments)
			if args == "" {
				args = "{}"
			}
			item := body{"type": "function_call", "call_id": callID, "name": v.Name, "arguments": args}
			if itemID != "" {
				item["id"] = itemID
			}
			out = append(out, item)
		}
	}
	return out
}

func toolResultItems(tr *llm.ToolResultMessage) []any {
	var texts []string
	var images []any
	for _, b := range tr.Content {
		switch v := b.(type) {
		case *llm.TextContent:
			texts = append(texts, v.Text)
		case *llm.ImageContent:
			images = append(images, imagePart(v))
		}
	}
	text := strings.Join(texts, "\n")
	if text == "" {
		text = toolImageOnly
	}
	callID, _, _ := strings.Cut(tr.ToolCallID, "|")
	out := []any{body{"type": "function_call_output", "call_id": callID, "output": text}}
	if len(images) > 0 {
		parts := append([]any{body{"type": "input_text", "text": toolImagesIntro}}, images...)
		out = append(out, body{"role": "user", "content": parts})
	}
	return out
}

// textSignature is the v1 text signature: the output message id and phase.
type textSignature struct {
	V     int    `json:"v"`
	ID    string `json:"id"`
	Phase string `json:"phase,omitempty"`
}

func encodeTextSignature(id, phase string) string {
	b, _ := llm.Marshal(textSignature{V: 1, ID: id, Phase: phase})
	return string(b)
}

// parseTextSignature reads a v1 signature, or a legacy plain message id.
func parseTextSignature(sig string) (id, phase string) {
	if sig == "" {
		return "", ""
	}
	if strings.HasPrefix(sig, "{") {
		var s textSignature
		if json.Unmarshal([]byte(sig), &s) == nil && s.V == 1 && s.ID != "" {
			if s.Phase == "commentary" || s.Phase == "final_answer" {
				return s.ID, s.Phase
			}
			return s.ID, ""
		}
	}
	return sig, ""
}

// normalizeToolCallID turns a foreign "call|item" id into one the Responses
// API accepts: safe characters, an item id starting with "fc", both at most
// 64 characters without trailing underscores.
func normalizeToolCallID(id string) string {
	call, item, ok := strings.Cut(id, "|")
	if !ok {
		return id
	}
	call, item = llm.SafeID(call), llm.SafeID(item)
	if !strings.HasPrefix(item, "fc") {
		item = "fc_" + item
	}
	call = strings.TrimRight(clamp(call, idLimit), "_")
	item = strings.TrimRight(clamp(item, idLimit), "_")
	return call + "|" + item
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}
