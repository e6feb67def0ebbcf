package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/relay-agent/relay/internal/jsonc"
)

// Object is a JSON object that remembers its key order, so a settings file
// is validated in file order and written back with its keys where the user
// put them. Values are *Object, []any, string, json.Number, bool or nil.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Keys returns the keys in order.
func (o *Object) Keys() []string { return o.keys }

// Len is the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// Get returns the value of key.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// Put sets key, keeping its position when it exists and appending otherwise.
func (o *Object) Put(key string, v any) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// Delete removes key.
func (o *Object) Delete(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// clone copies o deeply.
func (o *Object) clone() *Object {
	c := &Object{keys: append([]string(nil), o.keys...), vals: make(map[string]any, len(o.vals))}
	for k, v := range o.vals {
		c.vals[k] = cloneValue(v)
	}
	return c
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case *Object:
		return x.clone()
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = cloneValue(e)
		}
		return c
	}
	return v
}

// MarshalJSON writes the keys in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := writeValue(&b, o, "", 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// marshalIndent renders v the way JSON.stringify(v, null, 2) does: two-space
// indentation, empty objects and arrays as {} and [], no HTML escaping.
func marshalIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeValue(&b, v, "  ", 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeValue writes v; an empty indent writes compact JSON.
func writeValue(b *bytes.Buffer, v any, indent string, depth int) error {
	newline := func(d int) {
		if indent != "" {
			b.WriteByte('\n')
			for range d {
				b.WriteString(indent)
			}
		}
	}
	switch x := v.(type) {
	case *Object:
		if x.Len() == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			writeString(b, k)
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			if err := writeValue(b, x.vals[k], indent, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		b.WriteByte('}')
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			if err := writeValue(b, e, indent, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		b.WriteByte(']')
	case string:
		writeString(b, x)
	default:
		enc, err := json.Marshal(x)
		if err != nil {
			return err
		}
		b.Write(enc)
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	var sb bytes.Buffer
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Write(bytes.TrimSuffix(sb.Bytes(), []byte("\n")))
}

// SyntaxError is invalid JSON with a 1-based line and column.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// parseOrdered parses a JSON document into ordered values. A leading UTF-8
// byte order mark is ignored. Errors are *SyntaxError.
func parseOrdered(data []byte) (any, error) {
	data = jsonc.TrimBOM(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err == nil {
		if _, err2 := dec.Token(); err2 != io.EOF {
			if err2 == nil {
				err = errors.New("unexpected data after the top-level value")
			} else {
				err = err2
			}
		}
	}
	if err != nil {
		off := dec.InputOffset()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		msg := err.Error()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			msg = "unexpected end of file"
			off = int64(len(data))
		}
		line, col := jsonc.LineCol(data, off)
		return nil, &SyntaxError{Line: line, Column: col, Msg: msg}
	}
	return v, nil
}

// decodeValue reads one value with objects as *Object. A duplicate key keeps
// the last value, as JSON.parse does.
func decodeValue(dec *json.Decoder) (any, error) {
	return jsonc.DecodeValue(dec, NewObject, (*Object).Put)
}

// toOrdered converts a Go value (from a caller of Set) into the ordered
// representation by round-tripping through encoding/json.
func toOrdered(v any) (any, error) {
	switch v.(type) {
	case *Object, nil, string, bool, json.Number:
		return v, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return parseOrdered(data)
}
