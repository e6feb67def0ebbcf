package llm

import (
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Scanner is a small pull reader of one JSON text, for the hot path of
// stream decoding: a 2 MB answer in 16-byte deltas is over 100 000 chunks,
// and encoding/json's reflection costs several microseconds each. Clients
// read the few fields of the common delta chunk with it and fall back to
// encoding/json whenever it reports false (an unexpected shape, a field
// they do not handle fast, or malformed input), so it only has to be right
// for what it accepts.
//
// Strings without escapes are returned as substrings of the input (no
// copy); keys are compared as such. After ResetBytes they alias the byte
// slice: clone (strings.Clone) whatever must outlive it.
type Scanner struct {
	s   string
	i   int
	buf []byte
}

// Reset makes the scanner read s from the start, keeping its scratch buffer.
func (p *Scanner) Reset(s string) {
	p.s, p.i, p.buf = s, 0, p.buf[:0]
}

// ResetBytes makes the scanner read b without copying it. Strings it
// returns may alias b (see the type comment).
func (p *Scanner) ResetBytes(b []byte) {
	p.s, p.i, p.buf = unsafe.String(unsafe.SliceData(b), len(b)), 0, p.buf[:0]
}

// Start skips whitespace and returns the offset of the next value: where a
// template hole (see Template) begins.
func (p *Scanner) Start() int {
	p.ws()
	return p.i
}

func (p *Scanner) ws() {
	// Compact JSON has no whitespace: one comparison settles it.
	for p.i < len(p.s) && p.s[p.i] <= ' ' {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// Detach returns s, copied if it aliases the input (see ResetBytes): a
// string decoded from escapes is already a copy and is returned as is.
func (p *Scanner) Detach(s string) string {
	if len(s) == 0 || len(p.s) == 0 {
		return s
	}
	base := uintptr(unsafe.Pointer(unsafe.StringData(p.s)))
	ptr := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	if ptr >= base && ptr < base+uintptr(len(p.s)) {
		return strings.Clone(s)
	}
	return s
}

func (p *Scanner) peek() byte {
	p.ws()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// Peek returns the first byte of the next value (after whitespace), or 0
// at the end.
func (p *Scanner) Peek() byte { return p.peek() }

// Pos returns the read offset; SetPos moves it (to resume inside a text
// whose beginning is known, see ObjectTail).
func (p *Scanner) Pos() int     { return p.i }
func (p *Scanner) SetPos(i int) { p.i = i }

// ObjectTail continues an object right after a member's value: it reads
// the remaining members (calling fn like Object) and the closing brace.
func (p *Scanner) ObjectTail(fn func(key string) bool) bool {
	for {
		switch p.peek() {
		case '}':
			p.i++
			return true
		case ',':
			p.i++
		default:
			return false
		}
		key, ok := p.String()
		if !ok || p.peek() != ':' {
			return false
		}
		p.i++
		if !fn(key) {
			return false
		}
	}
}

// End reports whether only whitespace is left.
func (p *Scanner) End() bool {
	p.ws()
	return p.i == len(p.s)
}

// Object reads an object, calling fn with each key; fn must consume the
// value (with any read method) and return false to abort.
func (p *Scanner) Object(fn func(key string) bool) bool {
	if p.peek() != '{' {
		return false
	}
	p.i++
	if p.peek() == '}' {
		p.i++
		return true
	}
	for {
		key, ok := p.String()
		if !ok || p.peek() != ':' {
			return false
		}
		p.i++
		if !fn(key) {
			return false
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

// Array reads an array, calling fn for each element (index i); fn must
// consume the element and return false to abort.
func (p *Scanner) Array(fn func(i int) bool) bool {
	if p.peek() != '[' {
		return false
	}
	p.i++
	if p.peek() == ']' {
		p.i++
		return true
	}
	for n := 0; ; n++ {
		if !fn(n) {
			return false
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return true
		default:
			return false
		}
	}
}

// Null consumes a null and reports whether there was one.
func (p *Scanner) Null() bool {
	if p.peek() == 'n' && len(p.s)-p.i >= 4 && p.s[p.i:p.i+4] == "null" {
		p.i += 4
		return true
	}
	return false
}

// Bool reads true or false.
func (p *Scanner) Bool() (bool, bool) {
	switch p.peek() {
	case 't':
		if len(p.s)-p.i >= 4 && p.s[p.i:p.i+4] == "true" {
			p.i += 4
			return true, true
		}
	case 'f':
		if len(p.s)-p.i >= 5 && p.s[p.i:p.i+5] == "false" {
			p.i += 5
			return false, true
		}
	}
	return false, false
}

// Int reads an integer number.
func (p *Scanner) Int() (int, bool) {
	p.ws()
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '-' {
		p.i++
	}
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	n, err := strconv.Atoi(p.s[start:p.i])
	return n, err == nil
}

// String reads a string, decoding escapes.
func (p *Scanner) String() (string, bool) {
	base := len(p.buf)
	s, ok := p.str()
	if len(p.buf) > base {
		// Decoded from escapes into the scratch buffer: copy it out and
		// give the space back.
		s = strings.Clone(s)
		p.buf = p.buf[:base]
	}
	return s, ok
}

// StringView is String without the copy of a string with escapes: the
// result aliases the input or the scanner's scratch space and is valid
// only until the next Reset or ResetBytes. Hot loops hand it straight to
// a builder that copies it (Detach does not recognize scratch space: use
// strings.Clone to keep it).
func (p *Scanner) StringView() (string, bool) {
	return p.str()
}

// HoleString is StringView for the string token of a hole that
// Template.Match found in the scanner's input: its end is known, so it is
// not looked for again.
func (p *Scanner) HoleString(h Hole) (string, bool) {
	if h.Kind != HoleString || h.Start < 0 || h.End-h.Start < 2 || h.End > len(p.s) ||
		p.s[h.Start] != '"' || p.s[h.End-1] != '"' {
		return "", false
	}
	seg := p.s[h.Start+1 : h.End-1]
	k := strings.IndexByte(seg, '\\')
	if k < 0 {
		if !plainASCII(seg) && !validText(seg) {
			return "", false
		}
		p.i = h.End
		return seg, true
	}
	if s, ok := p.unescape(seg, k); ok {
		p.i = h.End
		return s, true
	}
	s, ok := p.escaped(h.Start+1, h.Start+1)
	if !ok || p.i != h.End {
		return "", false
	}
	return s, true
}

// unescape decodes the content of a string token whose end is known (seg,
// with its first backslash at k) into the scratch space, for the usual
// escapes (newlines, quotes, tabs); it reports false for anything else
// (\u escapes, bad escapes, control characters, invalid UTF-8), which
// escaped then decodes or rejects.
func (p *Scanner) unescape(seg string, k int) (string, bool) {
	base := len(p.buf)
	b := p.buf
	for {
		run := seg
		if k >= 0 {
			run = seg[:k]
		}
		if !plainASCII(run) && !validText(run) {
			return "", false
		}
		b = append(b, run...)
		if k < 0 {
			break
		}
		if k+1 >= len(seg) {
			return "", false
		}
		switch e := seg[k+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		case 'r':
			b = append(b, '\r')
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		default:
			return "", false
		}
		seg = seg[k+2:]
		k = strings.IndexByte(seg, '\\')
	}
	// Each run was checked, and a backslash cannot split a UTF-8
	// sequence: the whole is valid.
	p.buf = b
	if len(b) == base {
		return "", true
	}
	return unsafe.String(&b[base], len(b)-base), true
}

// validText reports whether the content of a string token without
// escapes is acceptable: no control characters, valid UTF-8 (invalid
// UTF-8 is left to encoding/json, which substitutes U+FFFD).
func validText(seg string) bool {
	for k := 0; k < len(seg); k++ {
		if seg[k] < 0x20 {
			return false
		}
	}
	return utf8.ValidString(seg)
}

func (p *Scanner) str() (string, bool) {
	if p.peek() != '"' {
		return "", false
	}
	start := p.i + 1
	// Short strings (keys, ids) end before a call to IndexByte pays off.
	for k := start; k < len(p.s) && k < start+24; k++ {
		c := p.s[k]
		if c == '"' {
			p.i = k + 1
			return p.s[start:k], true
		}
		if c == '\\' {
			return p.escaped(start, k)
		}
		if c < 0x20 || c >= 0x80 {
			break
		}
	}
	j := strings.IndexByte(p.s[start:], '"')
	if j < 0 {
		return "", false
	}
	seg := p.s[start : start+j]
	if strings.IndexByte(seg, '\\') >= 0 {
		return p.escaped(start, start)
	}
	if !plainASCII(seg) && !validText(seg) {
		return "", false
	}
	p.i = start + j + 1
	return seg, true
}

// skipString passes over a string without decoding it: skipped values can
// be megabytes (a whole answer repeated in a final event). Only the end is
// located; the content is not validated.
func (p *Scanner) skipString() bool {
	if p.peek() != '"' {
		return false
	}
	end := stringEnd(p.s, p.i)
	if end < 0 {
		return false
	}
	p.i = end
	return true
}

// stringEnd returns the offset just past the string token starting with
// the quote at s[i], or -1 when it is not closed.
func stringEnd(s string, i int) int {
	open := i
	i++
	for {
		k := strings.IndexByte(s[i:], '"')
		if k < 0 {
			return -1
		}
		i += k
		n := 0 // backslashes right before the quote
		for j := i - 1; j > open && s[j] == '\\'; j-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}

// plainASCII reports whether s has only printable ASCII, eight bytes at a
// time. It may answer false for some plain strings (a borrow crossing byte
// lanes), never true for others.
func plainASCII(s string) bool {
	const hi, sp = 0x8080808080808080, 0x2020202020202020
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&hi != 0 || (w-sp)&hi != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// escaped finishes a string that contains escapes, from start; runs of
// plain bytes between escapes are found byte by byte (runs are short in
// the strings that have escapes: a newline every line) and copied whole.
// The string is decoded after what the scratch buffer already holds
// (earlier StringView results stay valid) and returned aliasing it.
//
// s[start:plain] is known to be plain (no quote, backslash or control
// character).
func (p *Scanner) escaped(start, plain int) (string, bool) {
	base := len(p.buf)
	b := p.buf
	s := p.s
	i, j := start, plain
	for {
		for j+8 <= len(s) && !special8(s[j:j+8]) {
			j += 8
		}
		for j < len(s) {
			if c := s[j]; c == '"' || c == '\\' || c < 0x20 {
				break
			}
			j++
		}
		b = append(b, s[i:j]...)
		if j >= len(s) || s[j] < 0x20 {
			return "", false // unterminated, or a raw control character
		}
		if s[j] == '"' {
			p.i = j + 1
			if !utf8.Valid(b[base:]) {
				return "", false
			}
			p.buf = b
			if len(b) == base {
				return "", true
			}
			return unsafe.String(&b[base], len(b)-base), true
		}
		var ok bool
		if b, p.i, ok = appendEscape(b, s, j); !ok {
			return "", false
		}
		i, j = p.i, p.i
	}
}

// special8 reports whether the 8 bytes of s may hold a quote, a backslash
// or a control character (a word at a time: the bit tricks can flag a
// plain word after a special byte, never miss one).
func special8(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	q := w ^ ('"' * ones)
	bs := w ^ ('\\' * ones)
	return ((w-0x20*ones)&^w|(q-ones)&^q|(bs-ones)&^bs)&highs != 0
}

// Skip consumes any value.
func (p *Scanner) Skip() bool {
	switch c := p.peek(); {
	case c == '{':
		return p.Object(func(string) bool { return p.Skip() })
	case c == '[':
		return p.Array(func(int) bool { return p.Skip() })
	case c == '"':
		return p.skipString()
	case c == 't' || c == 'f':
		_, ok := p.Bool()
		return ok
	case c == 'n':
		return p.Null()
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		for p.i < len(p.s) {
			c := p.s[p.i]
			if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
				p.i++
				continue
			}
			break
		}
		// Integers (the usual skipped numbers: created, index) need no parse.
		if isInt(p.s[start:p.i]) {
			return true
		}
		_, err := strconv.ParseFloat(p.s[start:p.i], 64)
		return err == nil
	}
	return false
}

func isInt(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

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
