// Package jsonx is relay's one hand-written JSON reader. encoding/json
// costs microseconds per value through reflection, and relay reads two
// kinds of JSON where that shows: a provider stream (a long answer is a
// hundred thousand small chunks) and a session file (tens of megabytes of
// messages on every resume). Everything here reports false (or an error)
// for what it does not handle exactly as encoding/json would, and callers
// then fall back to encoding/json, which produces the value or the error;
// so the package only has to be right for what it accepts.
//
// It has three layers:
//   - Scanner, a pull tokenizer (objects, arrays, strings with their
//     escapes, numbers, literals, a validating Skip) over one document;
//   - Members and friends, a structure-only scan of one object's top-level
//     members that jumps from quote to quote (a session record's envelope
//     costs a few memchr calls however long its strings are);
//   - Table, the decoder of one struct type, built once from the struct's
//     json tags: no per-type code lists member names by hand.
package jsonx

import (
	"strconv"
	"strings"
	"unsafe"
)

// Scanner is a pull reader of one JSON text.
//
// Strings without escapes are returned as substrings of the input (no
// copy); keys are compared as such. After ResetBytes they alias the byte
// slice: clone (strings.Clone, Detach) whatever must outlive it. Strings
// are unescaped exactly as encoding/json does it (a lone surrogate or an
// invalid UTF-8 byte becomes U+FFFD); control characters, bad escapes and
// malformed input make a read report false.
type Scanner struct {
	s     string
	i     int
	buf   []byte // scratch for unescaping
	depth int    // nesting of Skip
	// shared: the input outlives every value read from it and is never
	// modified, so Text may return views of it (see ResetShared).
	shared bool
}

// maxDepth bounds the nesting Skip validates itself; deeper values are
// left to encoding/json (which allows 10000).
const maxDepth = 500

// Reset makes the scanner read s from the start, keeping its scratch buffer.
func (p *Scanner) Reset(s string) {
	p.s, p.i, p.buf, p.depth, p.shared = s, 0, p.buf[:0], 0, false
}

// ResetBytes makes the scanner read b without copying it. Strings it
// returns may alias b (see the type comment).
func (p *Scanner) ResetBytes(b []byte) {
	p.Reset(unsafe.String(unsafe.SliceData(b), len(b)))
}

// ResetShared is ResetBytes for a buffer that is never modified again and
// that the caller keeps alive as long as the decoded values (a session
// file): Text then returns views of it instead of copies.
func (p *Scanner) ResetShared(b []byte) {
	p.ResetBytes(b)
	p.shared = true
}

// Release drops the input and, when it grew large, the scratch buffer: a
// scanner kept in a pool must not pin a megabyte tool result.
func (p *Scanner) Release() {
	p.s = ""
	if cap(p.buf) > 4<<20 {
		p.buf = nil
	}
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
		if more, ok := p.afterMember(); !more {
			return ok
		}
	}
}

// ObjectTail continues an object right after a member's value: it reads
// afterMember consumes the ',' or '}' that follows an object member: more
// reports that another member follows, ok that the object is well formed
// so far.
func (p *Scanner) afterMember() (more, ok bool) {
	switch p.peek() {
	case ',':
		p.i++
		return true, true
	case '}':
		p.i++
		return false, true
	}
	return false, false
}

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

// Array reads an array, calling fn for each element (index i); fn must
// consume the element and return false to abort. It reports false for
// null too: callers handle null themselves.
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

// FirstString returns the value of the object's first member when that
// member is name and its value a string (as Text returns it), without
// moving the read position.
func (p *Scanner) FirstString(name string) (string, bool) {
	save := p.i
	defer func() { p.i = save }()
	if p.peek() != '{' {
		return "", false
	}
	p.i++
	k, ok := p.StringView()
	if !ok || k != name || p.peek() != ':' {
		return "", false
	}
	p.i++
	if p.peek() != '"' {
		return "", false
	}
	return p.Text()
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

// Number passes over a number (the exact JSON grammar) and returns its
// text.
func (p *Scanner) Number() (string, bool) {
	p.ws()
	s, i := p.s, p.i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
	default:
		return "", false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return "", false
		}
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return "", false
		}
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
	}
	t := s[p.i:i]
	p.i = i
	return t, true
}

// Int64 reads an integer of the given bit size as encoding/json decodes
// one into an integer field (fractions and exponents are refused).
func (p *Scanner) Int64(bits int) (int64, bool) {
	// Fast path: a few digits without sign, fraction or exponent (an
	// event's index, a token count), converted as they are read.
	p.ws()
	var n int64
	i := p.i
	for ; i < len(p.s) && i-p.i < 18 && p.s[i] >= '0' && p.s[i] <= '9'; i++ {
		n = n*10 + int64(p.s[i]-'0')
	}
	if d := i - p.i; d > 0 && d < 18 && (d == 1 || p.s[p.i] != '0') && !numberByte(p.s, i) &&
		(bits >= 64 || n < 1<<(bits-1)) {
		p.i = i
		return n, true
	}
	t, ok := p.Number()
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(t, 10, bits)
	return n, err == nil
}

// numberByte reports whether s[i] could continue a number (a digit, a
// fraction or an exponent).
func numberByte(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	switch c := s[i]; {
	case c >= '0' && c <= '9', c == '.', c == 'e', c == 'E':
		return true
	}
	return false
}

// Int reads an integer number.
func (p *Scanner) Int() (int, bool) {
	n, ok := p.Int64(strconv.IntSize)
	return int(n), ok
}

// Float64 reads a number.
func (p *Scanner) Float64() (float64, bool) {
	t, ok := p.Number()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	return f, err == nil
}

// Skip validates and passes over any value, as encoding/json would accept
// it (escapes must be valid and control characters absent; other bytes of
// a string are not looked at, as json.RawMessage keeps them).
func (p *Scanner) Skip() bool {
	switch c := p.peek(); {
	case c == '{':
		if p.depth++; p.depth > maxDepth {
			p.depth--
			return false
		}
		ok := p.skipObject()
		p.depth--
		return ok
	case c == '[':
		if p.depth++; p.depth > maxDepth {
			p.depth--
			return false
		}
		ok := p.Array(func(int) bool { return p.Skip() })
		p.depth--
		return ok
	case c == '"':
		return p.skipString()
	case c == 't' || c == 'f':
		_, ok := p.Bool()
		return ok
	case c == 'n':
		return p.Null()
	case c == '-' || c >= '0' && c <= '9':
		_, ok := p.Number()
		return ok
	}
	return false
}

func (p *Scanner) skipObject() bool {
	p.i++ // '{'
	if p.peek() == '}' {
		p.i++
		return true
	}
	for {
		if !p.skipString() || p.peek() != ':' {
			return false
		}
		p.i++
		if !p.Skip() {
			return false
		}
		if more, ok := p.afterMember(); !more {
			return ok
		}
	}
}

// Raw validates a value and returns a copy of its bytes, as
// json.RawMessage keeps it.
func (p *Scanner) Raw() ([]byte, bool) {
	p.ws()
	s := p.i
	if !p.Skip() {
		return nil, false
	}
	return []byte(p.s[s:p.i]), true
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

// PeekMember validates the object at the read position (as Skip does) and
// returns the value of its member name as PeekString finds it, without
// moving the read position: a dispatcher's look at a "type" or "role" that
// is not the first member. ok is false when the object is malformed.
func (p *Scanner) PeekMember(name string) (value string, ok bool) {
	save := p.Start()
	if !p.Skip() {
		p.i = save
		return "", false
	}
	raw := p.s[save:p.i]
	p.i = save
	value, _ = PeekString(unsafe.Slice(unsafe.StringData(raw), len(raw)), name)
	return value, true
}
