package tool

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaFor generates the JSON Schema of T's fields (json tags name them,
// jsonschema tags describe them, omitempty/omitzero makes them optional).
// Callers build it lazily, once per tool type, to keep start-up cheap.
func SchemaFor[T any]() json.RawMessage {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("tool schema: %v", err)) // a programming error in a static struct
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool schema: %v", err))
	}
	return b
}
