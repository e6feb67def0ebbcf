package responses

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/relay-agent/relay/internal/jsonx"
)

// fastPath can be turned off by tests to check that both decoders agree.
var fastPath = true

// deltaEvent returns the canonical name of a delta event, the events
// decoded without encoding/json (almost all of a long answer), or "".
func deltaEvent(name string) string {
	switch name {
	case "response.output_text.delta":
		return "response.output_text.delta"
	case "response.refusal.delta":
		return "response.refusal.delta"
	case "response.reasoning_summary_text.delta":
		return "response.reasoning_summary_text.delta"
	case "response.function_call_arguments.delta":
		return "response.function_call_arguments.delta"
	}
	return ""
}

// fastDecoder decodes events without encoding/json. Delta events are
// almost all of a long answer and repeat the same bytes around their text
// (and sequence number, and padding): once one was decoded, the following
// ones matching it outside those values (jsonx.Template) only have their
// delta read.
type fastDecoder struct {
	p     jsonx.Scanner
	index int // the event's output_index (e.OutputIndex points here)

	holes []jsonx.Hole // of the event being decoded
	delta int          // index in holes of the delta, -1 when none
	other bool         // the event has members a template does not carry

	tmpl      jsonx.Template
	tmplType  string
	tmplIndex *int // nil when the template event had no output_index
	tmplAt    int  // the template's output_index
	tmplDelta int  // index in holes of its delta
	spans     []jsonx.Hole
}

// decode fills e from data without encoding/json and reports whether it
// could. Delta strings alias data (or the scanner's scratch space) until
// the next decode; apply copies them. Other strings that are kept are
// cloned; the raw item is only kept for reasoning items (their replay
// signature) and function calls. Long answers repeat their whole text in
// output_item.done and response.completed: here it is skipped, not copied.
func (d *fastDecoder) decode(data []byte, e *event) bool {
	if d.matchTemplate(data, e) {
		return true
	}
	*e = event{}
	p := &d.p
	p.ResetBytes(data)
	d.holes, d.delta, d.other = d.holes[:0], -1, false
	str := func(dst *string) bool {
		s, ok := p.String()
		*dst = p.Detach(s)
		return ok
	}
	ok := p.Object(func(key string) bool {
		switch key {
		case "type":
			s, ok := p.String()
			if t := deltaEvent(s); t != "" {
				e.Type = t
			} else {
				e.Type = strings.Clone(s)
			}
			return ok
		case "output_index":
			n, ok := p.Int()
			d.index = n
			e.OutputIndex = &d.index
			return ok
		case "delta":
			start := p.Start()
			var ok bool
			e.Delta, ok = p.StringView()
			if d.delta < 0 {
				d.delta = len(d.holes)
			} else {
				d.other = true // twice: keep it simple
			}
			d.holes = append(d.holes, jsonx.Hole{Start: start, End: p.Pos(), Kind: jsonx.HoleString})
			return ok
		case "arguments":
			d.other = true
			var a string
			ok := str(&a)
			e.Arguments = &a
			return ok
		case "message":
			d.other = true
			return str(&e.Message)
		case "code":
			d.other = true
			if p.Null() {
				return true
			}
			var c string
			ok := str(&c)
			e.Code = json.RawMessage(strconv.Quote(c))
			return ok
		case "item":
			d.other = true
			start := p.Pos()
			it := &item{}
			if !decodeItem(p, it) {
				return false
			}
			e.parsed = it
			if it.Type == "reasoning" || it.Type == "function_call" {
				e.Item = json.RawMessage(strings.Clone(string(data[start:p.Pos()])))
			}
			return true
		case "response":
			d.other = true
			e.Response = &response{}
			return decodeResponse(p, e.Response)
		case "sequence_number", "obfuscation":
			// Different in every event: holes of the template.
			start := p.Start()
			kind := jsonx.HoleInt
			if p.Peek() == '"' {
				kind = jsonx.HoleString
			}
			if !p.Skip() {
				return false
			}
			d.holes = append(d.holes, jsonx.Hole{Start: start, End: p.Pos(), Kind: kind})
			return true
		}
		return p.Skip() // item_id, content_index, logprobs, part ...
	})
	if !ok || !p.End() || e.Type == "" {
		d.tmpl.Clear()
		return false
	}
	d.setTemplate(data, e)
	return true
}

// setTemplate makes a decoded delta event the template of the next ones.
func (d *fastDecoder) setTemplate(data []byte, e *event) {
	if d.other || d.delta < 0 || deltaEvent(e.Type) == "" {
		d.tmpl.Clear()
		return
	}
	d.tmpl.Set(data, d.holes)
	d.tmplType, d.tmplDelta, d.tmplIndex = e.Type, d.delta, nil
	if e.OutputIndex != nil {
		d.tmplAt = *e.OutputIndex
		d.tmplIndex = &d.tmplAt
	}
}

// matchTemplate decodes an event equal to the template outside its holes.
func (d *fastDecoder) matchTemplate(data []byte, e *event) bool {
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
	s, ok := p.HoleString(spans[d.tmplDelta])
	if !ok {
		return false
	}
	*e = event{Type: d.tmplType, Delta: s}
	if d.tmplIndex != nil {
		d.index = d.tmplAt
		e.OutputIndex = &d.index
	}
	return true
}

func decodeItem(p *jsonx.Scanner, it *item) bool {
	return p.Object(func(key string) bool {
		var dst *string
		switch key {
		case "type":
			dst = &it.Type
		case "id":
			dst = &it.ID
		case "call_id":
			dst = &it.CallID
		case "name":
			dst = &it.Name
		case "arguments":
			dst = &it.Arguments
		case "phase":
			dst = &it.Phase
		case "namespace":
			dst = &it.Namespace
		default:
			return p.Skip()
		}
		if p.Null() {
			return true
		}
		s, ok := p.String()
		*dst = strings.Clone(s)
		return ok
	})
}

func decodeResponse(p *jsonx.Scanner, r *response) bool {
	return p.Object(func(key string) bool {
		switch key {
		case "id", "model", "status":
			s, ok := p.String()
			s = strings.Clone(s)
			switch key {
			case "id":
				r.ID = s
			case "model":
				r.Model = s
			default:
				r.Status = s
			}
			return ok
		case "usage":
			if p.Null() {
				return true
			}
			r.Usage = &usage{}
			return decodeUsage(p, r.Usage)
		case "error", "incomplete_details":
			// Rare and small: only the failure path reads them.
			return p.Null()
		}
		return p.Skip()
	})
}

func decodeUsage(p *jsonx.Scanner, u *usage) bool {
	return p.Object(func(key string) bool {
		switch key {
		case "input_tokens":
			n, ok := p.Int()
			u.InputTokens = n
			return ok
		case "output_tokens":
			n, ok := p.Int()
			u.OutputTokens = n
			return ok
		case "input_tokens_details":
			u.InputTokensDetails = &struct {
				CachedTokens int `json:"cached_tokens"`
			}{}
			return p.Object(intMember(p, "cached_tokens", &u.InputTokensDetails.CachedTokens))
		case "output_tokens_details":
			u.OutputTokensDetails = &struct {
				ReasoningTokens int `json:"reasoning_tokens"`
			}{}
			return p.Object(intMember(p, "reasoning_tokens", &u.OutputTokensDetails.ReasoningTokens))
		}
		return p.Skip()
	})
}

// intMember reads the integer member name of an object into dst and skips
// the others.
func intMember(p *jsonx.Scanner, name string, dst *int) func(key string) bool {
	return func(key string) bool {
		if key != name {
			return p.Skip()
		}
		n, ok := p.Int()
		*dst = n
		return ok
	}
}
