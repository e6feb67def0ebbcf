package gemini

import (
	"strings"

	"github.com/relay-agent/relay/internal/jsonx"
)

// fastPath can be turned off by tests to check that both decoders agree.
var fastPath = true

// fastDecoder decodes the common chunk (text and thought parts, finish
// reason, usage, ids) without encoding/json; function calls, errors and
// prompt feedback go through encoding/json. Part texts alias the data (or
// the scanner's scratch space) until the next decode: apply copies them.
// Signatures and finish reasons are cloned; ids and model may alias the
// data and are cloned by apply when kept.
//
// Chunks of one stream repeat the same bytes around their text (and
// token counts): once a chunk with a single text part was decoded, the
// following ones matching it outside those values (jsonx.Template) only
// have them read.
type fastDecoder struct {
	p     jsonx.Scanner
	parts []part
	texts []string
	usage usageMetadata
	cands [1]candidate

	holes []jsonx.Hole // of the chunk being decoded
	roles []int        // what each hole is: holeText, holeSkip or a usage field
	text  int          // index in holes of the text, -1 when none

	tmpl      jsonx.Template
	tmplRoles []int
	tmplUsage usageMetadata // the template's counts
	// out is the chunk a match decodes to: the template's (strings
	// cloned), its text and counts pointing at outText and outUsage.
	out      chunk
	outCand  [1]candidate
	outPart  [1]part
	outText  string
	outUsage usageMetadata
	spans    []jsonx.Hole
}

// Hole roles besides the usage fields (usagePrompt...).
const (
	holeText = -2
	holeSkip = -1
)

// Usage fields a hole can hold.
const (
	usagePrompt = iota
	usageCandidates
	usageThoughts
	usageCached
)

// decode fills ch and reports whether the chunk had only what it handles.
func (d *fastDecoder) decode(data []byte, ch *chunk) bool {
	if d.matchTemplate(data, ch) {
		return true
	}
	*ch = chunk{}
	d.parts, d.texts = d.parts[:0], d.texts[:0]
	d.holes, d.roles, d.text = d.holes[:0], d.roles[:0], -1
	p := &d.p
	p.ResetBytes(data)
	ok := p.Object(func(key string) bool {
		switch key {
		case "candidates":
			return p.Array(func(i int) bool {
				if i > 0 {
					d.text = -2 // more than one candidate: no template
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
			ch.ModelVersion, ok = p.StringView()
			return ok
		case "responseId":
			var ok bool
			ch.ResponseID, ok = p.StringView()
			return ok
		case "createTime":
			return p.Skip()
		}
		return false
	})
	if !ok || !p.End() {
		d.tmpl.Clear()
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
	d.setTemplate(data, ch)
	return true
}

// setTemplate makes a decoded chunk with one candidate of one text part
// the template of the next ones.
func (d *fastDecoder) setTemplate(data []byte, ch *chunk) {
	if d.text < 0 || len(ch.Candidates) != 1 || len(d.parts) != 1 {
		d.tmpl.Clear()
		return
	}
	d.tmpl.Set(data, d.holes)
	d.tmplRoles = append(d.tmplRoles[:0], d.roles...)
	d.out = chunk{ModelVersion: strings.Clone(ch.ModelVersion), ResponseID: strings.Clone(ch.ResponseID)}
	c := ch.Candidates[0]     // finish reason and message are clones already
	d.outPart[0] = d.parts[0] // and so is the signature
	d.outPart[0].Text = &d.outText
	c.Content.Parts = d.outPart[:]
	d.outCand[0] = c
	d.out.Candidates = d.outCand[:]
	if ch.UsageMetadata != nil {
		d.tmplUsage = *ch.UsageMetadata
		d.out.UsageMetadata = &d.outUsage
	}
}

// matchTemplate decodes a chunk equal to the template outside its holes.
func (d *fastDecoder) matchTemplate(data []byte, ch *chunk) bool {
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
	u := d.tmplUsage
	for i, h := range spans {
		switch role := d.tmplRoles[i]; role {
		case holeText:
			s, ok := p.HoleString(h)
			if !ok {
				return false
			}
			d.outText = s
		case holeSkip:
		default:
			v, ok := count(data[h.Start:h.End])
			if !ok {
				return false
			}
			*usageField(&u, role) = v
		}
	}
	d.outUsage = u
	*ch = d.out
	return true
}

// count reads an integer token that Template.Match accepted (digits with
// an optional minus, no leading zeros).
func count(b []byte) (int, bool) {
	if len(b) > 18 {
		return 0, false // would overflow: not a token count anyway
	}
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func usageField(u *usageMetadata, role int) *int {
	switch role {
	case usagePrompt:
		return &u.PromptTokenCount
	case usageCandidates:
		return &u.CandidatesTokenCount
	case usageThoughts:
		return &u.ThoughtsTokenCount
	}
	return &u.CachedContentTokenCount
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
			if hasText {
				d.text = -2 // two texts in one part: no template
			} else if d.text == -1 {
				d.text = len(d.holes)
			} else {
				d.text = -2 // a second text part: no template
			}
			start := p.Start()
			var ok bool
			text, ok = p.StringView()
			hasText = true
			d.holes = append(d.holes, jsonx.Hole{Start: start, End: p.Pos(), Kind: jsonx.HoleString})
			d.roles = append(d.roles, holeText)
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
	d.texts = append(d.texts, text)
	pt.Text = &d.texts[len(d.texts)-1] // re-pointed in decode
	d.parts = append(d.parts, pt)
	return true
}

func (d *fastDecoder) usageMetadata(u *usageMetadata) bool {
	p := &d.p
	return p.Object(func(key string) bool {
		role := holeSkip
		switch key {
		case "promptTokenCount":
			role = usagePrompt
		case "candidatesTokenCount":
			role = usageCandidates
		case "thoughtsTokenCount":
			role = usageThoughts
		case "cachedContentTokenCount":
			role = usageCached
		}
		start := p.Start()
		if role == holeSkip {
			c := p.Peek()
			if !p.Skip() {
				return false
			}
			if c == '-' || c >= '0' && c <= '9' {
				// Counts change from chunk to chunk (totalTokenCount).
				d.holes = append(d.holes, jsonx.Hole{Start: start, End: p.Pos(), Kind: jsonx.HoleInt})
				d.roles = append(d.roles, holeSkip)
			}
			return true
		}
		n, ok := p.Int()
		*usageField(u, role) = n
		d.holes = append(d.holes, jsonx.Hole{Start: start, End: p.Pos(), Kind: jsonx.HoleInt})
		d.roles = append(d.roles, role)
		return ok
	})
}
