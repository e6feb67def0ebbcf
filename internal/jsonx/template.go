package jsonx

import "unsafe"

// Hole kinds of a Template.
const (
	HoleString = iota // a string token, quotes included
	HoleInt           // an integer token
)

// Hole is the span [Start, End) of one value token of a document.
type Hole struct {
	Start, End int
	Kind       int
}

// Template recognizes the documents that repeat a decoded one byte for
// byte except inside a few value tokens (its holes). A long answer is a
// hundred thousand chunks that differ only in their text (and perhaps a
// sequence number or a token count): a client decodes one fully, notes
// where those values were, and for the following chunks only compares
// bytes and reads the holes. A match has the same token structure as the
// template, so decoding it gives the template's result with the hole
// values replaced.
type Template struct {
	doc   []byte
	holes []Hole
}

// Set makes doc, with holes sorted by Start and not overlapping, the
// template. It copies doc.
func (t *Template) Set(doc []byte, holes []Hole) {
	t.doc = append(t.doc[:0], doc...)
	t.holes = append(t.holes[:0], holes...)
}

// Clear forgets the template: Match fails until the next Set.
func (t *Template) Clear() { t.doc, t.holes = t.doc[:0], t.holes[:0] }

// Holes returns the number of holes.
func (t *Template) Holes() int { return len(t.holes) }

// Match reports whether doc is the template with other tokens of the same
// kinds in its holes; spans (at least Holes() long) receives where they
// are in doc. Strings are delimited, not validated: decode the ones used
// (SetPos to their Start, then String or StringView).
func (t *Template) Match(doc []byte, spans []Hole) bool {
	if len(t.doc) == 0 || len(spans) < len(t.holes) {
		return false
	}
	s := unsafe.String(unsafe.SliceData(doc), len(doc))
	tmpl := unsafe.String(unsafe.SliceData(t.doc), len(t.doc))
	pos, prev := 0, 0
	for k, h := range t.holes {
		lit := tmpl[prev:h.Start]
		if len(s)-pos <= len(lit) || s[pos:pos+len(lit)] != lit {
			return false
		}
		pos += len(lit)
		end := -1
		switch h.Kind {
		case HoleString:
			if s[pos] == '"' {
				end = stringEnd(s, pos)
			}
		case HoleInt:
			end = pos
			if s[end] == '-' {
				end++
			}
			for end < len(s) && s[end] >= '0' && s[end] <= '9' {
				end++
			}
			if !isInt(s[pos:end]) {
				end = -1
			}
		}
		if end < 0 {
			return false
		}
		spans[k] = Hole{Start: pos, End: end, Kind: h.Kind}
		pos, prev = end, h.End
	}
	return s[pos:] == tmpl[prev:]
}
