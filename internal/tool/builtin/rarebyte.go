package builtin

import "bytes"

// byteRank estimates how common a byte is in source code (higher = more
// common), so searches anchor on the rarest byte of a needle, as ripgrep
// does: memchr for a rare byte skips far more text than for a space or "e".
func byteRank(b byte) int {
	switch {
	case b == ' ' || b == '\t' || b == '\n':
		return 255
	case b >= 'a' && b <= 'z':
		return 180 + int(lowerFreq[b-'a'])
	case b == '(' || b == ')' || b == ';' || b == ',' || b == '.' || b == '=' || b == '"' || b == '_' || b == '/' || b == ':' || b == '{' || b == '}':
		return 170
	case b >= '0' && b <= '9':
		return 140
	case b >= 'A' && b <= 'Z':
		return 100 + int(lowerFreq[b-'A'])/2
	case b < 0x80:
		return 80
	}
	return 40
}

// lowerFreq is a rough English/code letter frequency, 0..60.
var lowerFreq = [26]byte{
	'a' - 'a': 50, 'b' - 'a': 15, 'c' - 'a': 30, 'd' - 'a': 30, 'e' - 'a': 60, 'f' - 'a': 20, 'g' - 'a': 15,
	'h' - 'a': 25, 'i' - 'a': 48, 'j' - 'a': 2, 'k' - 'a': 8, 'l' - 'a': 32, 'm' - 'a': 20, 'n' - 'a': 48,
	'o' - 'a': 45, 'p' - 'a': 20, 'q' - 'a': 1, 'r' - 'a': 45, 's' - 'a': 45, 't' - 'a': 55, 'u' - 'a': 25,
	'v' - 'a': 10, 'w' - 'a': 10, 'x' - 'a': 4, 'y' - 'a': 12, 'z' - 'a': 2,
}

// rareFinder finds a needle by scanning for its rarest byte.
type rareFinder struct {
	needle []byte
	k      int  // offset of the rare byte in needle
	b      byte // the rare byte
}

func newRareFinder(needle []byte) rareFinder {
	f := rareFinder{needle: needle}
	best := 1 << 30
	for i, c := range needle {
		if r := byteRank(c); r < best {
			best, f.k, f.b = r, i, c
		}
	}
	return f
}

// rarity scores a needle for choosing among literals: lower is better.
func (f rareFinder) rarity() int { return byteRank(f.b)*64 - min(len(f.needle), 63) }

// index returns the first index of the needle in h, or -1.
func (f rareFinder) index(h []byte) int {
	n := len(f.needle)
	if n == 0 {
		return 0
	}
	for off := 0; off+n <= len(h); {
		i := bytes.IndexByte(h[off+f.k:len(h)-n+f.k+1], f.b)
		if i < 0 {
			return -1
		}
		start := off + i
		if bytes.Equal(h[start:start+n], f.needle) {
			return start
		}
		off = start + 1
	}
	return -1
}
