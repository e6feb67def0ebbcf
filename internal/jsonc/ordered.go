package jsonc

import (
	"encoding/json"
	"fmt"
)

// DecodeValue reads one value from dec, which should have UseNumber set.
// Scalars come back as encoding/json tokens (nil, bool, string, json.Number
// or float64), arrays as []any, and objects as whatever newObject makes,
// filled in file order through put. Callers keep their own ordered object
// type (and its methods); this is only the walk over the token stream. A
// duplicate key is passed to put again; callers keep the last value, as
// JSON.parse does.
func DecodeValue[O any](dec *json.Decoder, newObject func() O, put func(o O, key string, v any)) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
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
				return nil, err
			}
			k, _ := kt.(string)
			v, err := DecodeValue(dec, newObject, put)
			if err != nil {
				return nil, err
			}
			put(o, k, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return o, nil
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := DecodeValue(dec, newObject, put)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return arr, nil
	}
	return nil, fmt.Errorf("unexpected %q", d)
}
