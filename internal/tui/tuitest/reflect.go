package tuitest

import (
	"fmt"
	"reflect"

	tea "charm.land/bubbletea/v2"
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

// sequenceCmds returns the commands of tea.Sequence's unexported message,
// which are run one after the other.
func sequenceCmds(v any) ([]tea.Cmd, bool) {
	if typeName(v) != "tea.sequenceMsg" {
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return nil, false
	}
	cmds := make([]tea.Cmd, rv.Len())
	for i := range cmds {
		cmds[i], _ = rv.Index(i).Interface().(tea.Cmd)
	}
	return cmds, true
}
