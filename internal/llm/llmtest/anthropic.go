package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The Anthropic Messages stream, as documented in the API reference
// ("Streaming Messages") and seen in the official SDKs' fixtures:
// message_start, then per block content_block_start / content_block_delta
// (text_delta, thinking_delta, signature_delta, input_json_delta) /
// content_block_stop, a ping after the first block start, message_delta
// with stop_reason and cumulative usage, message_stop. Errors inside the
// stream are `event: error` with {"type":"error","error":{type,message}}.

func init() { Register("anthropic-messages", anthropicEncoder{}) }

type anthropicEncoder struct{}

func (anthropicEncoder) Match(r *http.Request) bool {
	return strings.HasSuffix(r.URL.Path, "/messages")
}

func (anthropicEncoder) RequestModel(req *Request) string {
	s, _ := req.Body["model"].(string)
	return s
}

func (anthropicEncoder) LastIsToolResult(req *Request) bool {
	msgs, _ := req.Body["messages"].([]any)
	if len(msgs) == 0 {
		return false
	}
	last, _ := msgs[len(msgs)-1].(map[string]any)
	if last["role"] != "user" {
		return false
	}
	blocks, _ := last["content"].([]any)
	for _, b := range blocks {
		if m, _ := b.(map[string]any); m["type"] == "tool_result" {
			return true
		}
	}
	return false
}

func anthropicStop(resp *Response) string {
	if resp.RawStopReason != "" {
		return resp.RawStopReason
	}
	switch resp.Stop() {
	case "length":
		return "max_tokens"
	case "toolUse":
		return "tool_use"
	}
	return "end_turn"
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (e anthropicEncoder) Encode(resp *Response, req *Request) (content, final []Frame) {
	model := resp.Model
	if model == "" {
		model = e.RequestModel(req)
	}
	id := resp.ID
	if id == "" {
		id = "msg_fake01"
	}
	u := resp.Usage
	if u == nil {
		u = &Usage{}
	}
	usage := func(start bool) map[string]any {
		out := u.Output
		if start {
			out = min(1, u.Output)
		}
		m := map[string]any{
			"input_tokens":                u.Input,
			"cache_creation_input_tokens": u.CacheWrite,
			"cache_read_input_tokens":     u.CacheRead,
			"output_tokens":               out,
		}
		if u.CacheWrite1h > 0 || start {
			m["cache_creation"] = map[string]any{
				"ephemeral_5m_input_tokens": u.CacheWrite - u.CacheWrite1h,
				"ephemeral_1h_input_tokens": u.CacheWrite1h,
			}
		}
		return m
	}
	ev := func(name string, v any) Frame { return Frame{Event: name, Data: jsonString(v)} }

	content = append(content, ev("message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": id, "type": "message", "role": "assistant", "content": []any{},
			"model": model, "stop_reason": nil, "stop_sequence": nil, "usage": usage(true),
		},
	}))
	for i, b := range resp.Blocks() {
		delta := func(d map[string]any) Frame {
			return ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
		}
		switch b.Type {
		case "text":
			content = append(content, ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}}))
			if i == 0 {
				content = append(content, Frame{Event: "ping", Data: `{"type": "ping"}`})
			}
			for _, c := range Chunks(b.Text, resp.ChunkSize) {
				content = append(content, delta(map[string]any{"type": "text_delta", "text": c}))
			}
		case "thinking":
			content = append(content, ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "thinking", "thinking": ""}}))
			for _, c := range Chunks(b.Text, resp.ChunkSize) {
				content = append(content, delta(map[string]any{"type": "thinking_delta", "thinking": c}))
			}
			if b.Signature != "" {
				content = append(content, delta(map[string]any{"type": "signature_delta", "signature": b.Signature}))
			}
		case "redactedThinking":
			data := b.Signature
			if data == "" {
				data = b.Text
			}
			content = append(content, ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "redacted_thinking", "data": data}}))
		case "toolCall":
			content = append(content, ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}}))
			for _, c := range Chunks(string(b.Args), resp.ChunkSize) {
				content = append(content, delta(map[string]any{"type": "input_json_delta", "partial_json": c}))
			}
		default:
			continue
		}
		content = append(content, ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i}))
	}
	md := usage(false)
	if u.Reasoning > 0 {
		md["output_tokens_details"] = map[string]any{"thinking_tokens": u.Reasoning}
	}
	final = append(final,
		ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": anthropicStop(resp), "stop_sequence": nil}, "usage": md}),
		Frame{Event: "message_stop", Data: `{"type":"message_stop"}`},
	)
	return content, final
}

// KeepAlive is the ping event Anthropic sends while the model works.
func (anthropicEncoder) KeepAlive() Frame {
	return Frame{Event: "ping", Data: `{"type": "ping"}`}
}

func (anthropicEncoder) ErrorFrames(typ, message string) []Frame {
	if typ == "" {
		typ = "api_error"
	}
	return []Frame{{Event: "error", Data: jsonString(map[string]any{
		"type": "error", "error": map[string]any{"type": typ, "message": message},
	})}}
}
