package openai

import (
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// fastPath can be turned off by tests to check that both decoders agree.
var fastPath = true

// fastChunk is the common chunk: ids, one choice with a text or reasoning
// delta and maybe a finish_reason, no usage. Anything else (tool calls,
// usage, errors, reasoning_details, unknown delta fields) goes through
// encoding/json.
type fastChunk struct {
	id, model      string
	content        string
	reasoning      string
	reasoningField string
	finish         string
}

// fastDecoder decodes the common chunks without encoding/json. Chunks of
// one stream repeat the same leading members (id, object, created, model,
// fingerprint) before "choices"; once one chunk was decoded, a later chunk
// starting with the same bytes skips straight to its choices.
type fastDecoder struct {
	p      llm.Scanner
	prefix []byte // the last decoded chunk up to the value of "choices"
}

// decode fills f from data and reports whether the chunk had only what
// fastChunk holds. The strings in f alias data until applyFast clones them.
func (d *fastDecoder) decode(data []byte, f *fastChunk) bool {
	*f = fastChunk{}
	p := &d.p
	p.ResetBytes(data)
	if len(d.prefix) > 0 && len(data) > len(d.prefix) && string(data[:len(d.prefix)]) == string(d.prefix) {
		p.SetPos(len(d.prefix))
		if decodeChoices(p, f) && p.ObjectTail(func(key string) bool { return topLevel(p, key, f) }) && p.End() {
			return true
		}
		*f = fastChunk{}
		p.ResetBytes(data)
	}
	choicesAt := -1
	ok := p.Object(func(key string) bool {
		if key == "choices" {
			choicesAt = p.Pos()
			return decodeChoices(p, f)
		}
		return topLevel(p, key, f)
	})
	if !ok || !p.End() {
		return false
	}
	if choicesAt > 0 {
		d.prefix = append(d.prefix[:0], data[:choicesAt]...)
	}
	return true
}

// topLevel reads a chunk member other than choices.
func topLevel(p *llm.Scanner, key string, f *fastChunk) bool {
	switch key {
	case "id":
		var ok bool
		f.id, ok = p.String()
		return ok
	case "model":
		var ok bool
		f.model, ok = p.String()
		return ok
	case "usage":
		return p.Null()
	case "object", "created", "system_fingerprint", "service_tier", "provider":
		return p.Skip()
	}
	return false
}

func decodeChoices(p *llm.Scanner, f *fastChunk) bool {
	return p.Array(func(i int) bool {
		if i > 0 {
			return false
		}
		return p.Object(func(key string) bool {
			switch key {
			case "delta":
				return decodeDelta(p, f)
			case "finish_reason":
				if p.Null() {
					return true
				}
				var ok bool
				f.finish, ok = p.String()
				return ok
			case "index", "logprobs":
				return p.Skip()
			}
			return false
		})
	})
}

func decodeDelta(p *llm.Scanner, f *fastChunk) bool {
	return p.Object(func(key string) bool {
		switch key {
		case "role", "refusal":
			return p.Skip()
		case "content", "reasoning_content", "reasoning", "reasoning_text":
			if p.Null() {
				return true
			}
			s, ok := p.String()
			if !ok {
				return false
			}
			if key == "content" {
				f.content = s
			} else if f.reasoningField == "" && s != "" {
				f.reasoning, f.reasoningField = s, key
			}
			return true
		case "tool_calls", "function_call":
			return p.Null()
		}
		return false
	})
}

// applyFast is apply for a fastChunk.
func (st *streamState) applyFast(f *fastChunk) {
	b := st.b
	msg := b.Message()
	if msg.ResponseID == "" && f.id != "" {
		b.SetResponseID(strings.Clone(f.id))
	}
	if msg.ResponseModel == "" && f.model != "" && f.model != msg.Model {
		b.SetResponseModel(strings.Clone(f.model))
	}
	if f.finish != "" {
		st.setFinish(strings.Clone(f.finish))
	}
	if f.content != "" {
		if st.text < 0 {
			st.text = b.StartText()
		}
		b.AppendText(st.text, st.dec.p.Detach(f.content))
	}
	if f.reasoning != "" {
		st.appendThinking(strings.Clone(f.reasoningField), st.dec.p.Detach(f.reasoning))
	}
}
