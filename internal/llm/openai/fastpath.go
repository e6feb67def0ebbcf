package openai

import (
	"strings"

	"github.com/relay-agent/relay/internal/jsonx"
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
// one stream repeat the same bytes around their text: once one was
// decoded, the following ones matching it outside the text (jsonx.Template)
// only have their text read. Failing that, a chunk starting with the same
// leading members (id, object, created, model, fingerprint) as the last
// one skips straight to its choices.
type fastDecoder struct {
	p      jsonx.Scanner
	prefix []byte // the last decoded chunk up to the value of "choices"
	// id and model read from prefix (cloned), the values of the chunks
	// that share it.
	prefixID, prefixModel string

	holes   []jsonx.Hole // of the chunk being decoded
	texts   int          // text members (content, reasoning...) seen in it
	text    int          // index in holes of the text, -1 when none
	textKey string       // its member name

	tmpl      jsonx.Template
	tmplChunk fastChunk // the template's chunk, strings cloned
	tmplText  int       // index in holes of its text
	tmplField string    // and its member name
	spans     []jsonx.Hole
}

// decode fills f from data and reports whether the chunk had only what
// fastChunk holds. The strings in f alias data (or the scanner's scratch
// space) until the next decode: applyFast copies what it keeps.
func (d *fastDecoder) decode(data []byte, f *fastChunk) bool {
	p := &d.p
	if d.matchTemplate(data, f) {
		return true
	}
	*f = fastChunk{}
	d.holes, d.texts, d.text = d.holes[:0], 0, -1
	p.ResetBytes(data)
	if len(d.prefix) > 0 && len(data) > len(d.prefix) && string(data[:len(d.prefix)]) == string(d.prefix) {
		p.SetPos(len(d.prefix))
		f.id, f.model = d.prefixID, d.prefixModel
		if decodeChoices(d, f) && p.ObjectTail(func(key string) bool { return topLevel(d, key, f) }) && p.End() {
			d.setTemplate(data, f)
			return true
		}
		*f = fastChunk{}
		d.holes, d.texts, d.text = d.holes[:0], 0, -1
		p.ResetBytes(data)
	}
	choicesAt := -1
	var id, model string // read before choices: part of the prefix
	ok := p.Object(func(key string) bool {
		if key == "choices" {
			choicesAt = p.Pos()
			id, model = f.id, f.model
			return decodeChoices(d, f)
		}
		return topLevel(d, key, f)
	})
	if !ok || !p.End() {
		d.tmpl.Clear()
		return false
	}
	if choicesAt > 0 {
		d.prefix = append(d.prefix[:0], data[:choicesAt]...)
		if id != d.prefixID || model != d.prefixModel {
			d.prefixID, d.prefixModel = strings.Clone(id), strings.Clone(model)
		}
	}
	d.setTemplate(data, f)
	return true
}

// setTemplate makes a decoded chunk with exactly one text member the
// template of the next ones.
func (d *fastDecoder) setTemplate(data []byte, f *fastChunk) {
	if d.texts != 1 || d.text < 0 {
		d.tmpl.Clear()
		return
	}
	d.tmpl.Set(data, d.holes)
	d.tmplText = d.text
	d.tmplField = strings.Clone(d.textKey)
	d.tmplChunk = fastChunk{id: strings.Clone(f.id), model: strings.Clone(f.model), finish: strings.Clone(f.finish)}
}

// matchTemplate decodes a chunk equal to the template outside its holes.
func (d *fastDecoder) matchTemplate(data []byte, f *fastChunk) bool {
	n := d.tmpl.Holes()
	if n == 0 {
		return false
	}
	if cap(d.spans) < n {
		d.spans = make([]jsonx.Hole, n)
	}
	spans := d.spans[:n]
	if !d.tmpl.Match(data, spans) {
		return false
	}
	p := &d.p
	p.ResetBytes(data)
	s, ok := p.HoleString(spans[d.tmplText])
	if !ok {
		return false
	}
	*f = d.tmplChunk
	if d.tmplField == "content" {
		f.content = s
	} else if s != "" {
		f.reasoning, f.reasoningField = s, d.tmplField
	} else {
		f.reasoningField = ""
	}
	return true
}

// topLevel reads a chunk member other than choices.
func topLevel(d *fastDecoder, key string, f *fastChunk) bool {
	p := &d.p
	switch key {
	case "id":
		var ok bool
		f.id, ok = p.StringView()
		return ok
	case "model":
		var ok bool
		f.model, ok = p.StringView()
		return ok
	case "usage":
		return p.Null()
	case "obfuscation":
		// Random padding, different in every chunk.
		start := p.Start()
		str := p.Peek() == '"'
		if !p.Skip() {
			return false
		}
		if str {
			d.holes = append(d.holes, jsonx.Hole{Start: start, End: p.Pos(), Kind: jsonx.HoleString})
		}
		return true
	case "object", "created", "system_fingerprint", "service_tier", "provider":
		return p.Skip()
	}
	return false
}

func decodeChoices(d *fastDecoder, f *fastChunk) bool {
	p := &d.p
	return p.Array(func(i int) bool {
		if i > 0 {
			return false
		}
		return p.Object(func(key string) bool {
			switch key {
			case "delta":
				return decodeDelta(d, f)
			case "finish_reason":
				if p.Null() {
					return true
				}
				var ok bool
				f.finish, ok = p.StringView()
				return ok
			case "index", "logprobs":
				return p.Skip()
			}
			return false
		})
	})
}

func decodeDelta(d *fastDecoder, f *fastChunk) bool {
	p := &d.p
	return p.Object(func(key string) bool {
		switch key {
		case "role", "refusal":
			return p.Skip()
		case "content", "reasoning_content", "reasoning", "reasoning_text":
			if p.Null() {
				return true
			}
			start := p.Start()
			s, ok := p.StringView()
			if !ok {
				return false
			}
			d.texts++
			d.text, d.textKey = len(d.holes), key
			d.holes = append(d.holes, jsonx.Hole{Start: start, End: p.Pos(), Kind: jsonx.HoleString})
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
		b.AppendText(st.text, f.content) // copies: f aliases the decoder's buffers
	}
	if f.reasoning != "" {
		field := f.reasoningField
		if st.thinking < 0 {
			field = strings.Clone(field) // kept as the block's signature
		}
		st.appendThinking(field, f.reasoning)
	}
}
