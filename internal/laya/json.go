package laya

import (
	"bytes"
	"encoding/json"
)

// marshalJSON encodes without HTML escaping (design.md) and without the
// encoder's trailing newline.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// marshalIndent is marshalJSON, indented by two spaces, newline-terminated.
func marshalIndent(v any) ([]byte, error) {
	raw, err := marshalJSON(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
