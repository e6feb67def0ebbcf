package llm

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
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
// copy); keys are compared as such.
type Scanner struct {
	s   string
	i   int
	buf []byte
}

// Reset makes the scanner read s from the start, keeping its scratch buffer.
func (p *Scanner) Reset(s string) {
	p.s, p.i = s, 0
}

func (p *Scanner) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *Scanner) peek() byte {
	p.ws()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
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
	if p.peek() != '"' {
		return "", false
	}
	p.i++
	start := p.i
	high := false
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			s := p.s[start:p.i]
			p.i++
			// Invalid UTF-8 is left to encoding/json (it substitutes U+FFFD).
			if high && !utf8.ValidString(s) {
				return "", false
			}
			return s, true
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return "", false
		case c >= 0x80:
			high = true
		}
		p.i++
	}
	return "", false
}

// escaped finishes a string that contains escapes, from start.
func (p *Scanner) escaped(start int) (string, bool) {
	b := append(p.buf[:0], p.s[start:p.i]...)
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			p.buf = b
			if !utf8.Valid(b) {
				return "", false
			}
			return string(b), true
		case c < 0x20:
			return "", false
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.s) {
			return "", false
		}
		e := p.s[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					if v, ok := p.hex4(); ok {
						r2 = v
					} else {
						p.i = save
					}
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
				} else {
					// Lone surrogate: U+FFFD, like encoding/json; a
					// following escape that was not its pair is kept.
					r = utf8.RuneError
					if r2 >= 0 {
						b = utf8.AppendRune(b, utf8.RuneError)
						if !utf16.IsSurrogate(r2) {
							r = r2
						}
					}
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", false
		}
	}
	return "", false
}

func (p *Scanner) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(p.s[p.i : p.i+4]) {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

// Skip consumes any value.
func (p *Scanner) Skip() bool {
	switch c := p.peek(); {
	case c == '{':
		return p.Object(func(string) bool { return p.Skip() })
	case c == '[':
		return p.Array(func(int) bool { return p.Skip() })
	case c == '"':
		_, ok := p.String()
		return ok
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
		_, err := strconv.ParseFloat(p.s[start:p.i], 64)
		return err == nil
	}
	return false
}
