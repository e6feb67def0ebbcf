package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// The loader does not run a full JSON decode over every record: a 50 MB
// session is mostly message bodies that only context building needs. This
// scanner finds the top-level members of one record and skips values by
// jumping from quote to quote, so the envelope of a record costs a few
// memchr calls however long its strings are. Bodies are decoded later.

// member is one top-level member of a JSON object.
type member struct {
	key      string
	keyStart int // index of the key's opening quote
	valStart int // first byte of the value
	valEnd   int // one past the last byte of the value
}

var errTruncated = errors.New("unexpected end of record")

// scanObject returns the top-level members of the JSON object in b. It
// checks structure (quotes, brackets, separators), not the contents of
// strings and numbers.
func scanObject(b []byte) ([]member, error) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		if j := skipWS(b, i+1); j != len(b) {
			return nil, fmt.Errorf("unexpected data after object at byte %d", j+1)
		}
		return nil, nil
	}
	members := make([]member, 0, 8)
	for {
		if i >= len(b) {
			return nil, errTruncated
		}
		if b[i] != '"' {
			return nil, fmt.Errorf("expected member name at byte %d", i+1)
		}
		ke, err := skipString(b, i)
		if err != nil {
			return nil, err
		}
		m := member{keyStart: i, key: decodeKey(b[i:ke])}
		i = skipWS(b, ke)
		if i >= len(b) {
			return nil, errTruncated
		}
		if b[i] != ':' {
			return nil, fmt.Errorf("expected ':' at byte %d", i+1)
		}
		i = skipWS(b, i+1)
		m.valStart = i
		ve, err := skipValue(b, i)
		if err != nil {
			return nil, err
		}
		m.valEnd = ve
		members = append(members, m)
		i = skipWS(b, ve)
		if i >= len(b) {
			return nil, errTruncated
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			if j := skipWS(b, i+1); j != len(b) {
				return nil, fmt.Errorf("unexpected data after object at byte %d", j+1)
			}
			return members, nil
		default:
			return nil, fmt.Errorf("expected ',' or '}' at byte %d", i+1)
		}
	}
}

func decodeKey(quoted []byte) string {
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(quoted, &s)
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

// skipString returns the index one past the closing quote of the string
// starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errTruncated
		}
		q := j + k
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipValue returns the index one past the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errTruncated
	}
	switch c := b[i]; c {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, err := skipString(b, j)
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
		return 0, errTruncated
	default:
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				goto done
			}
			j++
		}
	done:
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

// stringValue decodes a JSON string value; ok is false for any other kind.
func stringValue(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// find returns the value of the member named key.
func find(b []byte, ms []member, key string) ([]byte, bool) {
	for _, m := range ms {
		if m.key == key {
			return b[m.valStart:m.valEnd], true
		}
	}
	return nil, false
}

// rewriteObject rebuilds the object b with the members in drop removed, the
// values in set replaced (or appended at the end, in the order of addOrder,
// when absent), keeping every other member byte for byte.
func rewriteObject(b []byte, ms []member, drop []string, set map[string][]byte, addOrder []string) []byte {
	var out bytes.Buffer
	out.Grow(len(b) + 64)
	out.WriteByte('{')
	first := true
	done := map[string]bool{}
	isDropped := func(k string) bool {
		for _, d := range drop {
			if d == k {
				return true
			}
		}
		return false
	}
	for _, m := range ms {
		if isDropped(m.key) {
			continue
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		out.Write(b[m.keyStart:m.valStart])
		if v, ok := set[m.key]; ok {
			done[m.key] = true
			out.Write(v)
		} else {
			out.Write(b[m.valStart:m.valEnd])
		}
	}
	for _, k := range addOrder {
		if done[k] {
			continue
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		out.Write(kb)
		out.WriteByte(':')
		out.Write(set[k])
	}
	out.WriteByte('}')
	return out.Bytes()
}
