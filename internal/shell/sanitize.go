package shell

import (
	"unicode/utf8"
)

// Sanitizer cleans a byte stream for display to a model: ANSI escape
// sequences (CSI, OSC, two-byte ESC), carriage returns, NUL and other C0/C1
// control characters except tab and newline, invalid UTF-8, and the Unicode
// interlinear annotation characters are dropped. It keeps state across
// chunks, so sequences split between writes are handled.
type Sanitizer struct {
	state   int
	pending []byte // an incomplete UTF-8 sequence from the last chunk
}

const (
	stNormal = iota
	stEsc
	stCSI
	stOSC    // ESC ] ... BEL | ESC \ (also DCS, APC, PM, SOS)
	stOSCEsc // ESC seen inside OSC
)

// Clean returns the sanitized form of chunk, appended to dst.
func (s *Sanitizer) Clean(dst, chunk []byte) []byte {
	if len(s.pending) > 0 {
		buf := append(s.pending, chunk...)
		s.pending = nil
		chunk = buf
	}
	for i := 0; i < len(chunk); {
		c := chunk[i]
		switch s.state {
		case stEsc:
			i++
			switch c {
			case '[':
				s.state = stCSI
			case ']', 'P', '_', '^', 'X':
				s.state = stOSC
			case '(', ')', '*', '+', '#', '%':
				// designator: one more byte follows
				if i < len(chunk) {
					i++
				}
				s.state = stNormal
			default:
				s.state = stNormal
			}
			continue
		case stCSI:
			i++
			if c >= 0x40 && c <= 0x7e {
				s.state = stNormal
			}
			continue
		case stOSC:
			i++
			if c == 0x07 {
				s.state = stNormal
			} else if c == 0x1b {
				s.state = stOSCEsc
			}
			continue
		case stOSCEsc:
			i++
			if c == '\\' {
				s.state = stNormal
			} else {
				s.state = stOSC
			}
			continue
		}
		if c < 0x80 {
			i++
			switch {
			case c == 0x1b:
				s.state = stEsc
			case c == '\n' || c == '\t':
				dst = append(dst, c)
			case c < 0x20 || c == 0x7f:
				// control character (CR, NUL, BEL, backspace...): dropped
			default:
				dst = append(dst, c)
			}
			continue
		}
		if !utf8.FullRune(chunk[i:]) {
			s.pending = append([]byte(nil), chunk[i:]...)
			break
		}
		r, size := utf8.DecodeRune(chunk[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			// invalid byte: dropped
		case r == 0x9b: // C1 CSI
			s.state = stCSI
		case r >= 0x80 && r < 0xa0: // other C1 controls
		case r >= 0xfff9 && r <= 0xfffb:
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return dst
}

// Flush ends the stream, dropping an incomplete trailing sequence.
func (s *Sanitizer) Flush() {
	s.pending = nil
	s.state = stNormal
}

// Sanitize cleans a whole string at once.
func Sanitize(b []byte) string {
	var s Sanitizer
	return string(s.Clean(nil, b))
}
