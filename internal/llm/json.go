package llm

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// Extra holds object members we do not model, so that a record written by a
// newer or foreign relay survives a read/write cycle untouched.
type Extra map[string]json.RawMessage

var knownKeysCache sync.Map // reflect.Type -> map[string]bool

func knownKeys(t reflect.Type) map[string]bool {
	if v, ok := knownKeysCache.Load(t); ok {
		return v.(map[string]bool)
	}
	keys := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		keys[name] = true
	}
	knownKeysCache.Store(t, keys)
	return keys
}

// unmarshalKnown decodes data into the struct pointed to by v and returns the
// members v does not declare. The extra pass only runs when the object has
// members outside v's fields, so common records decode once.
func unmarshalKnown(data []byte, v any) (Extra, error) {
	if err := json.Unmarshal(data, v); err != nil {
		return nil, err
	}
	known := knownKeys(reflect.TypeOf(v).Elem())
	unknown := false
	forEachTopLevelKey(data, func(k string) bool {
		if !known[k] {
			unknown = true
			return false
		}
		return true
	})
	if !unknown {
		return nil, nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	for k := range all {
		if known[k] {
			delete(all, k)
		}
	}
	return Extra(all), nil
}

// marshalKnown encodes v (a struct without custom marshalers) and appends the
// extra members in sorted order. HTML escaping is off to match the original.
func marshalKnown(v any, extra Extra) ([]byte, error) {
	b, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(extra) == 0 {
		return b, nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sortStrings(keys)
	var buf bytes.Buffer
	buf.Grow(len(b) + 64)
	buf.Write(b[:len(b)-1])
	empty := len(b) == 2
	for _, k := range keys {
		if !empty {
			buf.WriteByte(',')
		}
		empty = false
		kb, _ := Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(extra[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Marshal is json.Marshal without HTML escaping and without a trailing newline.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return b[:len(b)-1], nil
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// forEachTopLevelKey calls fn with each member name of the JSON object in
// data, without decoding values. It stops when fn returns false. Malformed
// input simply ends the scan; the real decoder reports errors.
func forEachTopLevelKey(data []byte, fn func(string) bool) {
	depth := 0
	expectKey := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case '{':
			depth++
			if depth == 1 {
				expectKey = true
			}
		case '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 1 {
				expectKey = true
			}
		case '"':
			start := i + 1
			esc := false
			j := start
			for ; j < len(data); j++ {
				if esc {
					esc = false
					continue
				}
				if data[j] == '\\' {
					esc = true
					continue
				}
				if data[j] == '"' {
					break
				}
			}
			if depth == 1 && expectKey {
				expectKey = false
				raw := data[start:j]
				var key string
				if bytes.IndexByte(raw, '\\') >= 0 {
					_ = json.Unmarshal(data[start-1:j+1], &key)
				} else {
					key = string(raw)
				}
				if !fn(key) {
					return
				}
			}
			i = j
		}
	}
}

// PeekString returns the top-level string member name of a JSON object
// without a full decode; ok is false when absent or not a string.
func PeekString(data []byte, name string) (string, bool) {
	depth := 0
	expectKey := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case '{':
			depth++
			if depth == 1 {
				expectKey = true
			}
		case '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 1 {
				expectKey = true
			}
		case '"':
			end := skipString(data, i)
			if depth == 1 && expectKey {
				expectKey = false
				if string(data[i+1:end]) == name {
					k := end + 1
					for k < len(data) && (data[k] == ' ' || data[k] == ':' || data[k] == '\t' || data[k] == '\n' || data[k] == '\r') {
						k++
					}
					if k < len(data) && data[k] == '"' {
						ve := skipString(data, k)
						if ve >= len(data) {
							return "", false
						}
						var s string
						if err := json.Unmarshal(data[k:ve+1], &s); err != nil {
							return "", false
						}
						return s, true
					}
					return "", false
				}
			}
			i = end
		}
	}
	return "", false
}

// skipString returns the index of the closing quote of the string starting at i.
func skipString(data []byte, i int) int {
	esc := false
	for j := i + 1; j < len(data); j++ {
		if esc {
			esc = false
			continue
		}
		switch data[j] {
		case '\\':
			esc = true
		case '"':
			return j
		}
	}
	return len(data)
}
