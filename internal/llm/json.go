package llm

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
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
// them. plain is encoded after room left for the tag member, whose bytes
// then replace plain's opening brace: a megabyte text is not copied once
// more to put the tag in front of it.
func marshalTagged(tag, value string, plain any, extra Extra) ([]byte, error) {
	var head [64]byte
	pre := append(head[:0], '{')
	pre = jsonx.AppendString(pre, tag)
	pre = append(pre, ':')
	pre = jsonx.AppendString(pre, value)
	if len(extra) > 0 {
		b, err := marshalKnown(plain, extra)
		if err != nil {
			return nil, err
		}
		out := make([]byte, 0, len(pre)+len(b)+1)
		out = append(out, pre...)
		if len(b) > 2 {
			out = append(out, ',')
		}
		return append(out, b[1:]...), nil
	}
	buf := bytes.NewBuffer(make([]byte, len(pre), 256))
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plain); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	b = b[:len(b)-1] // Encode's newline
	copy(b, pre)
	if len(b) == len(pre)+2 { // plain is {}
		return append(b[:len(pre)], '}'), nil
	}
	b[len(pre)] = ','
	return b, nil
}

// AppendJSON appends v as Marshal encodes it: relay's message and block
// types are appended as their MarshalJSON writes them, without
// encoding/json's second pass over a Marshaler's output (a copy and a
// re-scan of a megabyte answer at every level it is nested in); anything
// else goes through Marshal.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case *SystemMessage, *UserMessage, *AssistantMessage, *ToolResultMessage, *BashExecutionMessage,
		*CustomMessage, *BranchSummaryMessage, *CompactionSummaryMessage,
		*TextContent, *ImageContent, *ThinkingContent, *ToolCall:
		if reflect.ValueOf(v).IsNil() {
			return append(dst, "null"...), nil
		}
		b, err := v.(json.Marshaler).MarshalJSON()
		if err != nil {
			return dst, err
		}
		// Room for the closing bytes of the record around a long value,
		// which would otherwise copy it once more.
		return append(slices.Grow(dst, len(b)+16), b...), nil
	case Blocks:
		return appendArray(dst, v == nil, len(v), func(dst []byte, i int) ([]byte, error) { return AppendJSON(dst, v[i]) })
	case []Block:
		if v == nil {
			return append(dst, "null"...), nil
		}
		return AppendJSON(dst, Blocks(v))
	case Messages:
		return appendArray(dst, v == nil, len(v), func(dst []byte, i int) ([]byte, error) { return AppendJSON(dst, v[i]) })
	case []Message:
		if v == nil {
			return append(dst, "null"...), nil
		}
		return AppendJSON(dst, Messages(v))
	}
	b, err := Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// appendArray appends [elem(0),...] ("[]" for a nil Blocks or Messages,
// as their MarshalJSON writes it).
func appendArray(dst []byte, isNil bool, n int, elem func(dst []byte, i int) ([]byte, error)) ([]byte, error) {
	if isNil {
		return append(dst, "[]"...), nil
	}
	dst = append(dst, '[')
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = elem(dst, i); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
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
