package jsonx

import (
	"bytes"
	"errors"
	"fmt"
	"unsafe"
)

// The structure-only scan. A session loader does not decode every record:
// a 50 MB session is mostly message bodies that only context building
// needs. Members finds the top-level members of one record and skips
// values by jumping from quote to quote, so the envelope of a record costs
// a few memchr calls however long its strings are. It checks structure
// (quotes, brackets, separators), not the contents of strings and numbers;
// bodies are decoded later (Scanner, Table).

// Member is one top-level member of a JSON object.
type Member struct {
	Key      string
	KeyStart int // index of the key's opening quote
	ValStart int // first byte of the value
	ValEnd   int // one past the last byte of the value
}

// ErrTruncated reports a record that ends inside its object.
var ErrTruncated = errors.New("unexpected end of record")

// Members returns the top-level members of the JSON object in b.
func Members(b []byte) ([]Member, error) {
	members := make([]Member, 0, 8)
	err := EachMember(b, func(m Member) bool {
		members = append(members, m)
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(members) == 0 {
		return nil, nil
	}
	return members, nil
}

// EachMember calls fn with the top-level members of the JSON object in b,
// in order, until fn returns false. The error reports where the structure
// is broken; members before that point have been passed to fn.
func EachMember(b []byte, fn func(Member) bool) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return fmt.Errorf("not a JSON object")
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		if j := skipWS(b, i+1); j != len(b) {
			return fmt.Errorf("unexpected data after object at byte %d", j+1)
		}
		return nil
	}
	for {
		if i >= len(b) {
			return ErrTruncated
		}
		if b[i] != '"' {
			return fmt.Errorf("expected member name at byte %d", i+1)
		}
		ke, err := skipQuoted(b, i)
		if err != nil {
			return err
		}
		m := Member{KeyStart: i, Key: decodeKey(b[i:ke])}
		i = skipWS(b, ke)
		if i >= len(b) {
			return ErrTruncated
		}
		if b[i] != ':' {
			return fmt.Errorf("expected ':' at byte %d", i+1)
		}
		i = skipWS(b, i+1)
		m.ValStart = i
		ve, err := SkipValue(b, i)
		if err != nil {
			return err
		}
		m.ValEnd = ve
		if !fn(m) {
			return nil
		}
		i = skipWS(b, ve)
		if i >= len(b) {
			return ErrTruncated
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			if j := skipWS(b, i+1); j != len(b) {
				return fmt.Errorf("unexpected data after object at byte %d", j+1)
			}
			return nil
		default:
			return fmt.Errorf("expected ',' or '}' at byte %d", i+1)
		}
	}
}

// decodeKey returns a member name (quotes included in quoted) as a new
// string.
func decodeKey(quoted []byte) string {
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	s, _ := StringValue(quoted)
	return s
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipQuoted returns the index one past the closing quote of the string
// starting at b[i] == '"'.
func skipQuoted(b []byte, i int) (int, error) {
	end := stringEnd(unsafe.String(unsafe.SliceData(b), len(b)), i)
	if end < 0 {
		return 0, ErrTruncated
	}
	return end, nil
}

// SkipValue returns the index one past the JSON value starting at b[i],
// checking structure only.
func SkipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, ErrTruncated
	}
	switch c := b[i]; c {
	case '"':
		return skipQuoted(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, err := skipQuoted(b, j)
				if err != nil {
					return 0, err
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, ErrTruncated
	default:
		j := i
	scan:
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				break scan
			}
			j++
		}
		if j == i {
			return 0, fmt.Errorf("expected a value at byte %d", i+1)
		}
		switch lit := b[i:j]; {
		case c == 't' && string(lit) != "true",
			c == 'f' && string(lit) != "false",
			c == 'n' && string(lit) != "null":
			return 0, fmt.Errorf("invalid literal at byte %d", i+1)
		case c != 't' && c != 'f' && c != 'n' && c != '-' && (c < '0' || c > '9'):
			return 0, fmt.Errorf("invalid character %q at byte %d", c, i+1)
		}
		return j, nil
	}
}

// StringValue decodes a JSON string token (a new string); ok is false for
// any other kind of value or a malformed string.
func StringValue(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if inner := v[1 : len(v)-1]; bytes.IndexByte(inner, '\\') < 0 && bytes.IndexByte(inner, '"') < 0 {
		if s := string(inner); plainASCII(s) || validText(s) {
			return s, true
		}
	}
	var p Scanner
	p.ResetBytes(v)
	s, ok := p.Text()
	if !ok || !p.End() {
		return "", false
	}
	return s, true
}

// PeekString returns the top-level string member name of a JSON object
// without decoding the rest; ok is false when absent or not a string (or
// when the object is broken before it).
func PeekString(data []byte, name string) (string, bool) {
	var s string
	found := false
	_ = EachMember(data, func(m Member) bool {
		if m.Key != name {
			return true
		}
		s, found = StringValue(data[m.ValStart:m.ValEnd])
		return false
	})
	return s, found
}
