package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/relay-agent/relay/internal/jsonc"
)

// stripJSONC is the models.json reader's view of jsonc.Strip: comments and
// trailing commas blanked in place so decoder offsets keep their line and
// column.
func stripJSONC(src []byte) []byte { return jsonc.Strip(src) }

// object is a decoded JSON object that remembers member order, so custom
// providers and models keep the order the user wrote them in.
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// decodeOrdered parses one JSON document into nil, bool, string,
// json.Number, []any and *object values.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	return jsonc.DecodeValue(dec, func() *object { return &object{vals: map[string]any{}} }, (*object).put)
}

// put sets k, keeping the first position of a duplicate key and its last value.
func (o *object) put(k string, v any) {
	if _, dup := o.vals[k]; !dup {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// toPlain converts decodeOrdered output to the map[string]any form
// encoding/json produces, for values we store opaquely.
func toPlain(v any) any {
	switch t := v.(type) {
	case *object:
		m := make(map[string]any, len(t.keys))
		for _, k := range t.keys {
			m[k] = toPlain(t.vals[k])
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = toPlain(x)
		}
		return out
	}
	return v
}

// describeSyntaxError renders a decode error with its position.
func describeSyntaxError(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		l, c := jsonc.LineCol(data, se.Offset)
		msg := se.Error()
		if msg == "" {
			msg = "unexpected data after the top-level value"
		}
		return fmt.Sprintf("%s at line %d, column %d", msg, l, c)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "unexpected end of file"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
