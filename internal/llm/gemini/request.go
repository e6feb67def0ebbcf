package gemini

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/relay-agent/relay/internal/llm"
)

const (
	toolImageOnly  = "(see attached image)"
	toolImageIntro = "Tool result image:"
	// skipSignature makes Gemini 3 accept a function call that has no
	// thought signature (one produced by another model).
	skipSignature = "skip_thought_signature_validator"
)

// body is a request body under construction; maps marshal with sorted keys,
// which keeps golden files stable.
type body = map[string]any

var (
	gemini3Pro   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`gemini-3(?:\.\d+)?-pro`) })
	gemini3Flash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`gemini-3(?:\.\d+)?-flash`) })
)

func isGemini3Pro(id string) bool   { return gemini3Pro().MatchString(strings.ToLower(id)) }
func isGemini3Flash(id string) bool { return gemini3Flash().MatchString(strings.ToLower(id)) }

// usesLevels reports whether the model takes thinkingLevel instead of a
// token budget (the Gemini 3 family).
func usesLevels(id string) bool { return isGemini3Pro(id) || isGemini3Flash(id) }

// requiresToolCallID: models behind Google's API that need explicit ids on
// function calls and responses.
func requiresToolCallID(id string) bool {
	return strings.HasPrefix(id, "claude-") || strings.HasPrefix(id, "gpt-oss-")
}

// Options adapt the request to a server that takes a GenerateContentRequest
// inside its own envelope (Cloud Code Assist: internal/llm/cloudcode). The
// zero value is the Gemini API's own request.
type Options struct {
	// ToolParameters sends tool schemas in the legacy OpenAPI "parameters"
	// field, JSON Schema meta-declarations ($schema, $defs, ...) removed,
	// instead of parametersJsonSchema: Cloud Code Assist translates that
	// field into Claude's input_schema.
	ToolParameters bool
	// SystemRole is the role given to systemInstruction ("" = none).
	SystemRole string
	// FlatBudgets: models that think with a token budget get the request's
	// budgets (llm.Request.ThinkingBudget: 1024/2048/8192/16384 unless the
	// settings override them) instead of the Gemini API's family tables.
	FlatBudgets bool
}

// RequestBody returns the GenerateContentRequest of req (contents,
// systemInstruction, tools, generationConfig) shaped by o. Maps marshal
// with sorted keys.
func RequestBody(req *llm.Request, o Options) map[string]any { return buildBody(req, o) }

// buildBody returns the streamGenerateContent request body for req.
func buildBody(req *llm.Request, o Options) body {
	m := req.Model
	b := body{"contents": convertContents(req)}
	if req.SystemPrompt != "" {
		si := body{"parts": []any{body{"text": req.SystemPrompt}}}
		if o.SystemRole != "" {
			si["role"] = o.SystemRole
		}
		b["systemInstruction"] = si
	}
	if len(req.Tools) > 0 {
		decls := make([]any, 0, len(req.Tools))
		for _, t := range req.Tools {
			var params any = t.Parameters
			if len(t.Parameters) == 0 {
				params = body{"type": "object", "properties": body{}}
			}
			if o.ToolParameters {
				decls = append(decls, body{"name": t.Name, "description": t.Description, "parameters": openAPISchema(params)})
				continue
			}
			decls = append(decls, body{"name": t.Name, "description": t.Description, "parametersJsonSchema": params})
		}
		b["tools"] = []any{body{"functionDeclarations": decls}}
	}
	gen := body{"maxOutputTokens": req.EffectiveMaxTokens()}
	if req.Temperature != nil {
		gen["temperature"] = *req.Temperature
	}
	if m.Reasoning {
		gen["thinkingConfig"] = thinkingConfig(req, o.FlatBudgets)
	}
	b["generationConfig"] = gen
	return b
}

// schemaMeta are the JSON Schema declarations the OpenAPI "parameters"
// field does not accept.
var schemaMeta = map[string]bool{"$schema": true, "$id": true, "$anchor": true, "$dynamicAnchor": true,
	"$vocabulary": true, "$comment": true, "$defs": true, "definitions": true}

// openAPISchema returns the tool schema without its meta-declarations, at
// every depth. A schema that is not valid JSON is sent as it is (the
// server names the problem better than a guess would).
func openAPISchema(params any) any {
	raw, ok := params.(json.RawMessage)
	if !ok {
		return params
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	var strip func(any) any
	strip = func(v any) any {
		switch t := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(t))
			for k, x := range t {
				if !schemaMeta[k] {
					out[k] = strip(x)
				}
			}
			return out
		case []any:
			out := make([]any, len(t))
			for i, x := range t {
				out[i] = strip(x)
			}
			return out
		}
		return v
	}
	return strip(v)
}

// thinkingConfig maps the relay level (upstream-spec-core.md §6.5): Gemini 3
// models take a level, older ones a token budget (per model family, or the
// request's flat budgets); off disables thinking (Gemini 3 cannot: it gets
// its lowest level, and the thoughts stay hidden).
func thinkingConfig(req *llm.Request, flat bool) body {
	m := req.Model
	level := req.EffectiveThinking()
	if level == llm.ThinkingOff {
		switch {
		case isGemini3Pro(m.ID):
			return body{"thinkingLevel": "LOW"}
		case isGemini3Flash(m.ID):
			return body{"thinkingLevel": "MINIMAL"}
		}
		return body{"thinkingBudget": 0}
	}
	cfg := body{"includeThoughts": true}
	if usesLevels(m.ID) {
		if v, ok := m.ThinkingLevelMap[string(level)]; ok && v != nil {
			cfg["thinkingLevel"] = *v
		} else {
			cfg["thinkingLevel"] = gemini3Level(level, isGemini3Pro(m.ID))
		}
		return cfg
	}
	if flat {
		cfg["thinkingBudget"] = req.ThinkingBudget(level)
	} else {
		cfg["thinkingBudget"] = budget(req, level)
	}
	return cfg
}

func gemini3Level(l llm.ThinkingLevel, pro bool) string {
	switch l {
	case llm.ThinkingMinimal:
		if pro {
			return "LOW"
		}
		return "MINIMAL"
	case llm.ThinkingLow:
		return "LOW"
	case llm.ThinkingMedium:
		if pro {
			return "HIGH"
		}
		return "MEDIUM"
	}
	return "HIGH"
}

// budget returns thinkingBudget: the request override, else the model
// family's table, else -1 (dynamic).
func budget(req *llm.Request, level llm.ThinkingLevel) int {
	if level == llm.ThinkingXHigh || level == llm.ThinkingMax {
		if b, ok := req.ThinkingBudgets[level]; ok {
			return b
		}
		level = llm.ThinkingHigh
	}
	if b, ok := req.ThinkingBudgets[level]; ok {
		return b
	}
	id := req.Model.ID
	var table [4]int // minimal, low, medium, high
	switch {
	case strings.Contains(id, "2.5-pro"):
		table = [4]int{128, 2048, 8192, 32768}
	case strings.Contains(id, "2.5-flash-lite"):
		table = [4]int{512, 2048, 8192, 24576}
	case strings.Contains(id, "2.5-flash"):
		table = [4]int{128, 2048, 8192, 24576}
	default:
		return -1
	}
	switch level {
	case llm.ThinkingMinimal:
		return table[0]
	case llm.ThinkingLow:
		return table[1]
	case llm.ThinkingMedium:
		return table[2]
	}
	return table[3]
}

// convertContents turns the conversation into Gemini contents.
func convertContents(req *llm.Request) []any {
	m := req.Model
	normalize := func(id string, _ *llm.AssistantMessage) string {
		if !requiresToolCallID(m.ID) {
			return id
		}
		id = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
				return r
			}
			return '_'
		}, id)
		return id[:min(len(id), 64)]
	}
	msgs := llm.PrepareReplay(req.Messages, m, normalize)
	out := make([]any, 0, len(msgs))
	for _, msg := range msgs {
		switch v := msg.(type) {
		case *llm.UserMessage:
			if c := userContent(v); c != nil {
				out = append(out, c)
			}
		case *llm.AssistantMessage:
			if c := modelContent(v, m); c != nil {
				out = append(out, c)
			}
		case *llm.ToolResultMessage:
			out = appendToolResult(out, v, m)
		}
	}
	return out
}

func userContent(u *llm.UserMessage) body {
	if u.Content.IsString {
		return body{"role": "user", "parts": []any{body{"text": u.Content.Text}}}
	}
	parts := make([]any, 0, len(u.Content.Blocks))
	for _, b := range u.Content.Blocks {
		switch v := b.(type) {
		case *llm.TextContent:
			parts = append(parts, body{"text": v.Text})
		case *llm.ImageContent:
			parts = append(parts, inlineData(v))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return body{"role": "user", "parts": parts}
}

func inlineData(img *llm.ImageContent) body {
	return body{"inlineData": body{"mimeType": img.MimeType, "data": img.Data}}
}

// modelContent replays an assistant turn. Signatures only go back to the
// model that made them (PrepareReplay already turned foreign thinking into
// text and dropped foreign signatures) and only when they are valid base64,
// which the API requires.
func modelContent(a *llm.AssistantMessage, m *llm.Model) body {
	parts := make([]any, 0, len(a.Content))
	for _, blk := range a.Content {
		switch v := blk.(type) {
		case *llm.TextContent:
			if strings.TrimSpace(v.Text) == "" {
				continue
			}
			p := body{"text": v.Text}
			if validSignature(v.TextSignature) {
				p["thoughtSignature"] = v.TextSignature
			}
			parts = append(parts, p)
		case *llm.ThinkingContent:
			if strings.TrimSpace(v.Thinking) == "" {
				continue
			}
			p := body{"thought": true, "text": v.Thinking}
			if validSignature(v.ThinkingSignature) {
				p["thoughtSignature"] = v.ThinkingSignature
			}
			parts = append(parts, p)
		case *llm.ToolCall:
			var args any = json.RawMessage("{}")
			if len(v.Arguments) > 0 {
				args = v.Arguments
			}
			fc := body{"name": v.Name, "args": args}
			if requiresToolCallID(m.ID) {
				fc["id"] = v.ID
			}
			p := body{"functionCall": fc}
			switch {
			case validSignature(v.ThoughtSignature):
				p["thoughtSignature"] = v.ThoughtSignature
			case strings.Contains(strings.ToLower(m.ID), "gemini-3"):
				p["thoughtSignature"] = skipSignature
			}
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return body{"role": "model", "parts": parts}
}

func validSignature(s string) bool {
	if s == "" || len(s)%4 != 0 {
		return false
	}
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

// appendToolResult adds a functionResponse. Consecutive responses share one
// user turn. Gemini 3 takes images inside the response; older models get
// them in a separate user turn.
func appendToolResult(out []any, tr *llm.ToolResultMessage, m *llm.Model) []any {
	var texts []string
	var images []any
	for _, b := range tr.Content {
		switch v := b.(type) {
		case *llm.TextContent:
			texts = append(texts, v.Text)
		case *llm.ImageContent:
			images = append(images, inlineData(v))
		}
	}
	text := strings.Join(texts, "\n")
	if text == "" && len(images) > 0 {
		text = toolImageOnly
	}
	key := "output"
	if tr.IsError {
		key = "error"
	}
	multimodal := strings.Contains(m.ID, "gemini-3")
	fr := body{"name": tr.ToolName, "response": body{key: text}}
	if len(images) > 0 && multimodal {
		fr["parts"] = images
	}
	if requiresToolCallID(m.ID) {
		fr["id"] = tr.ToolCallID
	}
	part := body{"functionResponse": fr}
	merged := false
	if n := len(out); n > 0 {
		last := out[n-1].(body)
		if last["role"] == "user" {
			if parts, _ := last["parts"].([]any); len(parts) > 0 {
				if _, ok := parts[0].(body)["functionResponse"]; ok {
					last["parts"] = append(parts, part)
					merged = true
				}
			}
		}
	}
	if !merged {
		out = append(out, body{"role": "user", "parts": []any{part}})
	}
	if len(images) > 0 && !multimodal {
		out = append(out, body{"role": "user", "parts": append([]any{body{"text": toolImageIntro}}, images...)})
	}
	return out
}
