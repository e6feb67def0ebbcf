package jsonx

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// String reads a string, decoding escapes. A string without escapes is a
// view of the input; one decoded from escapes is a copy.
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

// Text is String for values that outlive the input: a view of the input
// is copied unless the scanner was reset with ResetShared.
func (p *Scanner) Text() (string, bool) {
	base := len(p.buf)
	s, ok := p.str()
	if len(p.buf) > base {
		s = strings.Clone(s)
		p.buf = p.buf[:base]
	} else if !p.shared {
		s = strings.Clone(s)
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
		if plainASCII(seg) || validText(seg) {
			p.i = h.End
			return seg, true
		}
	} else if s, ok := p.unescape(seg, k); ok {
		p.i = h.End
		return s, true
	}
	s, ok := p.escaped(h.Start + 1)
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
// escapes can be returned as it is: no control characters, valid UTF-8
// (invalid bytes are replaced by escaped, as encoding/json does).
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
			return p.escaped(start)
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
	if strings.IndexByte(seg, '\\') >= 0 || !plainASCII(seg) && !validText(seg) {
		return p.escaped(start)
	}
	p.i = start + j + 1
	return seg, true
}

// skipString validates and passes over a string without decoding it:
// escapes must be valid and control characters absent; any other byte is
// fine (encoding/json keeps raw values as they are, invalid UTF-8
// included). Skipped values can be megabytes (a whole answer repeated in
// a final event): runs between escapes are checked a word at a time.
func (p *Scanner) skipString() bool {
	if p.peek() != '"' {
		return false
	}
	s := p.s
	i := p.i + 1
	q := -1 // the next quote at or after i
	for {
		if q < i {
			k := strings.IndexByte(s[i:], '"')
			if k < 0 {
				return false
			}
			q = i + k
		}
		run := s[i:q]
		k := strings.IndexByte(run, '\\')
		if k >= 0 {
			run = run[:k]
		}
		if hasControl(run) {
			return false
		}
		i += len(run)
		if i == q {
			p.i = q + 1
			return true
		}
		if i+1 >= len(s) {
			return false
		}
		switch s[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if hex4(s, i+2) < 0 {
				return false
			}
			i += 6
		default:
			return false
		}
	}
}

// stringEnd returns the offset just past the string token starting with
// the quote at s[i], or -1 when it is not closed. The content is not
// validated.
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
	for ; i+16 <= len(s); i += 16 {
		w1 := word(s[i:])
		w2 := word(s[i+8:])
		if (w1|(w1-sp)|w2|(w2-sp))&hi != 0 {
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

// plainWord reports whether the 8 bytes of w are ASCII, not control
// characters and neither a quote nor a backslash: written as they are.
func plainWord(w uint64) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	hasZero := func(v uint64) uint64 { return (v - lo) & ^v & hi }
	return (w|(w-0x20*lo))&hi == 0 && (hasZero(w^('"'*lo))|hasZero(w^('\\'*lo))) == 0
}

// word loads the first 8 bytes of s, little-endian (one load on amd64).
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// hasControl reports whether s has a byte below 0x20.
func hasControl(s string) bool {
	const ones, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if (w-ones*0x20)&^w&hi != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 {
			return true
		}
	}
	return false
}

// appendEscape decodes the JSON escape sequence whose backslash is at
// s[i], appends what it stands for to b and returns the index just past
// it, agreeing with encoding/json: a valid \uXXXX surrogate pair makes one
// rune; a lone or mismatched half is U+FFFD and whatever follows it is
// read on its own. ok is false for an unknown escape or bad hex digits.
func appendEscape(b []byte, s string, i int) (_ []byte, next int, ok bool) {
	if i+1 >= len(s) {
		return b, i, false
	}
	e := s[i+1]
	i += 2
	switch e {
	case '"', '\\', '/':
		return append(b, e), i, true
	case 'b':
		return append(b, '\b'), i, true
	case 'f':
		return append(b, '\f'), i, true
	case 'n':
		return append(b, '\n'), i, true
	case 'r':
		return append(b, '\r'), i, true
	case 't':
		return append(b, '\t'), i, true
	case 'u':
	default:
		return b, i, false
	}
	r := hex4(s, i)
	if r < 0 {
		return b, i, false
	}
	i += 4
	if utf16.IsSurrogate(r) {
		r2 := rune(-1)
		if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
			r2 = hex4(s, i+2)
		}
		if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
			r = dec
			i += 6
		} else {
			r = utf8.RuneError
		}
	}
	return utf8.AppendRune(b, r), i, true
}

// hex4 decodes the four hex digits at s[i:], or returns -1.
func hex4(s string, i int) rune {
	if i+4 > len(s) {
		return -1
	}
	var r rune
	for k := i; k < i+4; k++ {
		c := s[k]
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return -1
		}
	}
	return r
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string exactly as encoding/json writes
// it with HTML escaping off (invalid UTF-8 becomes U+FFFD; U+2028 and
// U+2029 are escaped). Hot paths use it to skip reflection.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight plain bytes at a time: a request body is tens of
		// megabytes of mostly plain text.
		for i+8 <= len(s) && plainWord(word(s[i:])) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// escaped finishes a string that contains escapes (or invalid UTF-8 or a
// control character, which it rejects), from start just after the opening
// quote. A run between escapes is looked for byte by byte over its first
// shortRun bytes (a streamed delta's runs are a few bytes long, where a
// call to IndexByte costs more than it saves), then with IndexByte; it is
// checked 16 bytes at a time and copied whole; a run with non-ASCII bytes
// is copied rune by rune, invalid bytes becoming U+FFFD. The string is
// decoded after what the scratch buffer already holds (earlier StringView
// results stay valid) and returned aliasing it.
func (p *Scanner) escaped(start int) (string, bool) {
	base := len(p.buf)
	b := p.buf
	s := p.s
	i := start
	q := -1 // the next quote at or after i, once looked for
	for {
		k, end := i, min(len(s), i+shortRun)
		for k < end && s[k] != '"' && s[k] != '\\' {
			k++
		}
		if k == end {
			// A long run: the closing quote is looked for once per
			// string, so a long string with many escapes stays linear.
			if q < i {
				n := strings.IndexByte(s[i:], '"')
				if n < 0 {
					return "", false
				}
				q = i + n
			}
			k = q
			if n := strings.IndexByte(s[i:q], '\\'); n >= 0 {
				k = i + n
			}
		}
		run := s[i:k]
		if plainASCII(run) {
			b = append(b, run...)
		} else {
			var ok bool
			if b, ok = appendText(b, run); !ok {
				return "", false
			}
		}
		i = k
		if s[i] == '"' {
			p.i = i + 1
			p.buf = b
			if len(b) == base {
				return "", true
			}
			return unsafe.String(&b[base], len(b)-base), true
		}
		var ok bool
		if b, i, ok = appendEscape(b, s, i); !ok {
			return "", false
		}
	}
}

// shortRun is how far escaped looks for a run's end byte by byte.
const shortRun = 32

// appendText appends a run of string bytes without escapes, refusing
// control characters and replacing each invalid UTF-8 byte with U+FFFD as
// encoding/json does. The run ends before a quote or backslash, neither
// of which can continue a UTF-8 sequence, so decoding within it is the
// same as decoding within the whole string.
func appendText(b []byte, run string) ([]byte, bool) {
	for i := 0; i < len(run); {
		c := run[i]
		if c < utf8.RuneSelf {
			if c < 0x20 {
				return nil, false
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(run[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, run[i:i+size]...)
		}
		i += size
	}
	return b, true
}
