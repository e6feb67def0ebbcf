package anthropic

import (
	"bytes"
	"encoding/json"

	"github.com/relay-agent/relay/internal/jsonx"
)

// appendMessage appends m as llm.Marshal encodes it, for the shapes
// convertMessages builds (string or []any content of this package's
// block types); ok is false for anything else, which the caller then
// encodes with encoding/json. A resumed session's request is tens of
// megabytes of messages: encoding/json's reflection and byte-at-a-time
// string escaping were most of the time spent building it. scratch
// compacts raw JSON (tool inputs) as encoding/json does.
func appendMessage(dst []byte, m *message, scratch *bytes.Buffer) ([]byte, bool) {
	dst = append(dst, `{"role":`...)
	dst = jsonx.AppendString(dst, m.Role)
	dst = append(dst, `,"content":`...)
	dst, ok := appendContent(dst, m.Content, scratch)
	return append(dst, '}'), ok
}

// appendContent appends a message's or a tool result's content.
func appendContent(dst []byte, c any, scratch *bytes.Buffer) ([]byte, bool) {
	switch c := c.(type) {
	case string:
		return jsonx.AppendString(dst, c), true
	case []any:
		if c == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, b := range c {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendBlock(dst, b, scratch); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	}
	return dst, false
}

// appendBlock appends one content block; the members follow the struct
// fields' order and tags.
func appendBlock(dst []byte, b any, scratch *bytes.Buffer) ([]byte, bool) {
	member := func(dst []byte, key, value string) []byte {
		dst = append(dst, key...)
		return jsonx.AppendString(dst, value)
	}
	switch b := b.(type) {
	case *textBlock:
		if b == nil {
			return dst, false
		}
		dst = member(dst, `{"type":`, b.Type)
		dst = member(dst, `,"text":`, b.Text)
		return appendCacheControl(dst, b.CacheControl), true
	case *imageBlock:
		if b == nil {
			return dst, false
		}
		dst = member(dst, `{"type":`, b.Type)
		dst = member(dst, `,"source":{"type":`, b.Source.Type)
		dst = member(dst, `,"media_type":`, b.Source.MediaType)
		dst = member(dst, `,"data":`, b.Source.Data)
		return appendCacheControl(append(dst, '}'), b.CacheControl), true
	case *thinkingBlock:
		if b == nil {
			return dst, false
		}
		dst = member(dst, `{"type":`, b.Type)
		dst = member(dst, `,"thinking":`, b.Thinking)
		return append(member(dst, `,"signature":`, b.Signature), '}'), true
	case *redactedThinkingBlock:
		if b == nil {
			return dst, false
		}
		dst = member(dst, `{"type":`, b.Type)
		return append(member(dst, `,"data":`, b.Data), '}'), true
	case *toolUseBlock:
		if b == nil {
			return dst, false
		}
		dst = member(dst, `{"type":`, b.Type)
		dst = member(dst, `,"id":`, b.ID)
		dst = member(dst, `,"name":`, b.Name)
		dst = append(dst, `,"input":`...)
		if b.Input == nil {
			return append(dst, "null}"...), true
		}
		scratch.Reset()
		if json.Compact(scratch, b.Input) != nil {
			return dst, false // encoding/json reports the error
		}
		return append(append(dst, scratch.Bytes()...), '}'), true
	case *toolResultBlock:
		if b == nil {
			return dst, false
		}
		dst = member(dst, `{"type":`, b.Type)
		dst = member(dst, `,"tool_use_id":`, b.ToolUseID)
		dst = append(dst, `,"content":`...)
		var ok bool
		if b.Content == nil {
			dst = append(dst, "null"...)
		} else if dst, ok = appendContent(dst, b.Content, scratch); !ok {
			return dst, false
		}
		if b.IsError {
			dst = append(dst, `,"is_error":true`...)
		} else {
			dst = append(dst, `,"is_error":false`...)
		}
		return appendCacheControl(dst, b.CacheControl), true
	}
	return dst, false
}

// appendCacheControl appends an optional cache_control member and closes
// the block.
func appendCacheControl(dst []byte, cc *cacheControl) []byte {
	if cc != nil {
		dst = append(dst, `,"cache_control":{"type":`...)
		dst = jsonx.AppendString(dst, cc.Type)
		if cc.TTL != "" {
			dst = append(dst, `,"ttl":`...)
			dst = jsonx.AppendString(dst, cc.TTL)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}
