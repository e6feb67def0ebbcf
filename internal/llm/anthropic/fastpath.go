package anthropic

import (
	"strings"

	"github.com/relay-agent/relay/internal/jsonx"
)

// content_block_delta events are almost the whole stream (one per few
// tokens), and encoding/json costs microseconds each. fastDelta decodes
// their usual shape with the pull scanner:
//
//	{"type":"content_block_delta","index":N,"delta":{"type":T,F:"..."}}
//
// in any member order and spacing. Anything else (other members, nested
// values, bad syntax) reports ok=false and the caller falls back to
// encoding/json, which also produces the error message for malformed data.
// value aliases data or p's scratch space until p's next Reset.
func fastDelta(p *jsonx.Scanner, data []byte) (index int, typ, value string, ok bool) {
	p.ResetBytes(data)
	sawIndex := false
	ok = p.Object(func(key string) bool {
		switch key {
		case "type":
			t, good := p.StringView()
			return good && t == "content_block_delta"
		case "index":
			n, good := p.Int()
			index, sawIndex = n, true
			return good && n >= 0
		case "delta":
			return p.Object(func(k string) bool {
				v, good := p.StringView()
				if !good {
					return false
				}
				switch k {
				case "type":
					typ = internType(v)
				case "text", "thinking", "partial_json", "signature":
					value = v
				default:
					return false
				}
				return true
			})
		}
		return false
	})
	return index, typ, value, ok && sawIndex && typ != "" && p.End()
}

// internType returns the delta type as a constant string (no allocation).
func internType(s string) string {
	switch s {
	case "text_delta":
		return "text_delta"
	case "thinking_delta":
		return "thinking_delta"
	case "signature_delta":
		return "signature_delta"
	case "input_json_delta":
		return "input_json_delta"
	}
	return strings.Clone(s)
}
