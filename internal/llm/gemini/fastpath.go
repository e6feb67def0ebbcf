package gemini

import (
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// fastPath can be turned off by tests to check that both decoders agree.
var fastPath = true

// fastDecoder decodes the common chunk (text and thought parts, finish
// reason, usage, ids) without encoding/json; function calls, errors and
// prompt feedback go through encoding/json. Part texts and signatures are
// cloned (the data buffer is reused); ids and model may alias the data and
// are cloned by apply when kept.
type fastDecoder struct {
	p     llm.Scanner
	parts []part
	texts []string
	usage usageMetadata
	cands [1]candidate
}

// decode fills ch and reports whether the chunk had only what it handles.
func (d *fastDecoder) decode(data []byte, ch *chunk) bool {
	*ch = chunk{}
	d.parts, d.texts = d.parts[:0], d.texts[:0]
	p := &d.p
	p.ResetBytes(data)
	ok := p.Object(func(key string) bool {
		switch key {
		case "candidates":
			return p.Array(func(i int) bool {
				if i > 0 {
					return p.Skip()
				}
				d.cands[0] = candidate{}
				ch.Candidates = d.cands[:1]
				return d.candidate(&d.cands[0])
			})
		case "usageMetadata":
			d.usage = usageMetadata{}
			ch.UsageMetadata = &d.usage
			return d.usageMetadata(&d.usage)
		case "modelVersion":
			var ok bool
			ch.ModelVersion, ok = p.String()
			return ok
		case "responseId":
			var ok bool
			ch.ResponseID, ok = p.String()
			return ok
		case "createTime":
			return p.Skip()
		}
		return false
	})
	if !ok || !p.End() {
		return false
	}
	// Point the parts at their texts only now: appends may have moved them.
	for i := range d.parts {
		if i < len(d.texts) && d.parts[i].Text != nil {
			d.parts[i].Text = &d.texts[i]
		}
	}
	if len(ch.Candidates) > 0 {
		ch.Candidates[0].Content.Parts = d.parts
	}
	return true
}

func (d *fastDecoder) candidate(c *candidate) bool {
	p := &d.p
	return p.Object(func(key string) bool {
		switch key {
		case "content":
			return p.Object(func(key string) bool {
				switch key {
				case "parts":
					return p.Array(func(int) bool { return d.part() })
				case "role":
					return p.Skip()
				}
				return false
			})
		case "finishReason":
			s, ok := p.String()
			c.FinishReason = strings.Clone(s)
			return ok
		case "finishMessage":
			s, ok := p.String()
			c.FinishMessage = strings.Clone(s)
			return ok
		case "index", "safetyRatings", "citationMetadata", "avgLogprobs", "tokenCount":
			return p.Skip()
		}
		return false
	})
}

func (d *fastDecoder) part() bool {
	p := &d.p
	var pt part
	text, hasText := "", false
	ok := p.Object(func(key string) bool {
		switch key {
		case "text":
			var ok bool
			text, ok = p.String()
			hasText = true
			return ok
		case "thought":
			var ok bool
			pt.Thought, ok = p.Bool()
			return ok
		case "thoughtSignature":
			s, ok := p.String()
			pt.ThoughtSignature = strings.Clone(s)
			return ok
		}
		return false
	})
	if !ok || !hasText {
		return false
	}
	d.texts = append(d.texts, p.Detach(text))
	pt.Text = &d.texts[len(d.texts)-1] // re-pointed in decode
	d.parts = append(d.parts, pt)
	return true
}

func (d *fastDecoder) usageMetadata(u *usageMetadata) bool {
	p := &d.p
	return p.Object(func(key string) bool {
		var dst *int
		switch key {
		case "promptTokenCount":
			dst = &u.PromptTokenCount
		case "candidatesTokenCount":
			dst = &u.CandidatesTokenCount
		case "thoughtsTokenCount":
			dst = &u.ThoughtsTokenCount
		case "cachedContentTokenCount":
			dst = &u.CachedContentTokenCount
		default:
			return p.Skip()
		}
		n, ok := p.Int()
		*dst = n
		return ok
	})
}
