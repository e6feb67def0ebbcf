package llm

import (
	"unicode/utf16"
	"unicode/utf8"
)

// appendEscape decodes the JSON escape sequence whose backslash is at
// s[i], appends what it stands for to b and returns the index just past
// it. It serves both the stream Scanner (over a string) and the message
// decoder (over bytes), so the two agree with encoding/json on escapes: a
// valid \uXXXX surrogate pair makes one rune; a lone or mismatched half is
// U+FFFD and whatever follows it is read on its own. ok is false for an
// unknown escape or bad hex digits.
func appendEscape[T string | []byte](b []byte, s T, i int) (_ []byte, next int, ok bool) {
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
func hex4[T string | []byte](s T, i int) rune {
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
