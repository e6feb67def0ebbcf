package llm

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/relay-agent/relay/internal/jsonx"
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
// members neither v nor tags (a discriminator such as "role") declare. The
// extra pass only runs when the object has members outside v's fields, so
// common records decode once.
func unmarshalKnown(data []byte, v any, tags ...string) (Extra, error) {
	if err := json.Unmarshal(data, v); err != nil {
		return nil, err
	}
	fields := knownKeys(reflect.TypeOf(v).Elem())
	known := func(k string) bool {
		for _, t := range tags {
			if k == t {
				return true
			}
		}
		return fields[k]
	}
	unknown := false
	// data is valid JSON (encoding/json just decoded it): the member
	// scan cannot fail.
	_ = jsonx.EachMember(data, func(m jsonx.Member) bool {
		unknown = !known(m.Key)
		return !unknown
	})
	if !unknown {
		return nil, nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	for k := range all {
		if known(k) {
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

// marshalTagged encodes a message or block type: the discriminator member
// tag:value first, as the original writes it, then plain (a method-less
// conversion of the type) and the extra members as marshalKnown writes
// them.
func marshalTagged(tag, value string, plain any, extra Extra) ([]byte, error) {
	b, err := marshalKnown(plain, extra)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(tag)+len(value)+len(b)+6)
	out = append(out, '{')
	out = jsonx.AppendString(out, tag)
	out = append(out, ':')
	out = jsonx.AppendString(out, value)
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
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
