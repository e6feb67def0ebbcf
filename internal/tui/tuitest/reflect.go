package tuitest

import (
	"fmt"
	"reflect"
)

func typeName(v any) string { return reflect.TypeOf(v).String() }

// extractField returns the first string field of an unexported message.
func extractField(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Struct {
		for i := 0; i < rv.NumField(); i++ {
			if rv.Field(i).Kind() == reflect.String {
				return rv.Field(i).String()
			}
		}
	}
	return fmt.Sprint(v)
}
