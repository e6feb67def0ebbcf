package anthropic

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// content_block_delta events are almost the whole stream (one per few
// tokens), and encoding/json costs microseconds each. fastDelta decodes
// their usual shape by hand:
//
//	{"type":"content_block_delta","index":N,"delta":{"type":T,F:"..."}}
//
// in any member order and spacing. Anything else (other members, nested
// values, bad syntax) reports ok=false and the caller falls back to
// encoding/json, which also produces the error message for malformed data.
// Unescaped strings are returned as substrings of data (no copy).
//
// scratch is reused between calls to decode escapes.
func fastDelta(data []byte, scratch *[]byte) (index int, typ string, value []byte, ok bool) {
	p := scanner{s: data, scratch: scratch}
	sawIndex := false
	ok = p.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			t, good := p.str()
			return good && string(t) == "content_block_delta"
		case "index":
			n, good := p.int()
			index, sawIndex = n, true
			return good
		case "delta":
			return p.object(func(k []byte) bool {
				v, good := p.str()
				if !good {
					return false
				}
				switch string(k) {
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
	p.ws()
	return index, typ, value, ok && sawIndex && typ != "" && p.i == len(p.s)
}

type scanner struct {
	s       []byte
	i       int
	scratch *[]byte
}

func (p *scanner) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *scanner) expect(c byte) bool {
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// object parses {"k": value, ...}, calling member for each key with the
// scanner positioned at the value; member must consume the value.
func (p *scanner) object(member func(key []byte) bool) bool {
	if !p.expect('{') {
		return false
	}
	if p.expect('}') {
		return true
	}
	for {
		k, ok := p.str()
		if !ok || !p.expect(':') || !member(k) {
			return false
		}
		if p.expect(',') {
			continue
		}
		return p.expect('}')
	}
}

func (p *scanner) int() (int, bool) {
	p.ws()
	j := p.i
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	if j == p.i || j-p.i > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(string(p.s[p.i:j]))
	p.i = j
	return n, err == nil
}

// str parses a JSON string. The result aliases the input or the scratch
// buffer; it is valid until the next escaped string.
func (p *scanner) str() ([]byte, bool) {
	if !p.expect('"') {
		return nil, false
	}
	start := p.i
	for j := start; j < len(p.s); j++ {
		c := p.s[j]
		if c == '"' {
			p.i = j + 1
			return p.s[start:j], true
		}
		if c == '\\' {
			return p.escaped(start)
		}
		if c < 0x20 {
			return nil, false
		}
	}
	return nil, false
}

// escaped decodes a string with escapes starting at start.
func (p *scanner) escaped(start int) ([]byte, bool) {
	out := (*p.scratch)[:0]
	defer func() { *p.scratch = out[:0] }()
	s := p.s
	for j := start; j < len(s); {
		c := s[j]
		switch {
		case c == '"':
			p.i = j + 1
			return out, true
		case c < 0x20:
			return nil, false
		case c != '\\':
			out = append(out, c)
			j++
			continue
		}
		if j+1 >= len(s) {
			return nil, false
		}
		switch s[j+1] {
		case '"', '\\', '/':
			out = append(out, s[j+1])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u':
			r, n := unicodeEscape(s[j:])
			if n == 0 {
				return nil, false
			}
			out = utf8.AppendRune(out, r)
			j += n
			continue
		default:
			return nil, false
		}
		j += 2
	}
	return nil, false
}

// unicodeEscape decodes \uXXXX (and a following low surrogate) at the start
// of s, returning the rune and the bytes used (0 = invalid).
func unicodeEscape(s []byte) (rune, int) {
	hex := func(s []byte) (rune, bool) {
		if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(s[2:6]), 16, 32)
		return rune(n), err == nil
	}
	r, ok := hex(s)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex(s[6:]); ok && r < 0xdc00 {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

// internType returns the delta type as a constant string (no allocation).
func internType(b []byte) string {
	switch string(b) {
	case "text_delta":
		return "text_delta"
	case "thinking_delta":
		return "thinking_delta"
	case "signature_delta":
		return "signature_delta"
	case "input_json_delta":
		return "input_json_delta"
	}
	return string(b)
}
