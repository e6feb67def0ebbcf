package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/relay-agent/relay/internal/jsonc"
)

// object is a JSON object that keeps its keys in file order and the line of
// each key, so mcp.json errors name a line and edits rewrite the file
// without reordering what the user wrote.
type object struct {
	keys  []string
	vals  map[string]any
	lines map[string]int
}

func newObject() *object { return &object{vals: map[string]any{}, lines: map[string]int{}} }

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) bool {
	if _, ok := o.vals[k]; !ok {
		return false
	}
	delete(o.vals, k)
	for i, n := range o.keys {
		if n == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
	return true
}

// line is the 1-based line of key k, or 0 when it was not read from a file.
func (o *object) line(k string) int { return o.lines[k] }

func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := marshalNoEscape(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := marshalNoEscape(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// parseJSON reads one JSON document: objects become *object, numbers
// json.Number. Errors carry "line N, column M".
func parseJSON(data []byte) (any, error) {
	data = jsonc.TrimBOM(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, data)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		line, col := jsonc.LineCol(data, dec.InputOffset())
		return nil, fmt.Errorf("line %d, column %d: unexpected data after the top-level value", line, col)
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, data []byte) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, positioned(dec, data, err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		o := newObject()
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, positioned(dec, data, err)
			}
			k, _ := kt.(string)
			line, _ := jsonc.LineCol(data, dec.InputOffset())
			v, err := decodeValue(dec, data)
			if err != nil {
				return nil, err
			}
			o.set(k, v) // a duplicate key keeps the last value, as JSON.parse does
			o.lines[k] = line
		}
		if _, err := dec.Token(); err != nil {
			return nil, positioned(dec, data, err)
		}
		return o, nil
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := decodeValue(dec, data)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, positioned(dec, data, err)
		}
		return arr, nil
	}
	return nil, positioned(dec, data, fmt.Errorf("unexpected %q", d))
}

func positioned(dec *json.Decoder, data []byte, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if errors.Is(err, io.EOF) {
		err = errors.New("unexpected end of JSON input")
		off = int64(len(data))
	}
	line, col := jsonc.LineCol(data, off)
	return fmt.Errorf("line %d, column %d: %v", line, col, err)
}
