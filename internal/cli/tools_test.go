package cli

import (
	"reflect"
	"testing"
)

func TestSelectTools(t *testing.T) {
	known := []string{"read", "bash", "edit", "write", "grep"}
	defaults := []string{"read", "bash", "edit", "write"}
	tests := []struct {
		name   string
		args   Args
		want   []string
		nWarns int
	}{
		{"defaults", Args{}, defaults, 0},
		{"allowlist", Args{ToolsSet: true, Tools: []string{"grep", "read"}}, []string{"grep", "read"}, 0},
		{"no tools", Args{NoTools: true}, nil, 0},
		{"no builtin tools", Args{NoBuiltin: true, ToolsSet: true, Tools: []string{"read"}}, nil, 0},
		{"exclude after allowlist", Args{ToolsSet: true, Tools: []string{"read", "bash"}, ExcludeTools: []string{"bash"}}, []string{"read"}, 0},
		{"unknown warns", Args{ToolsSet: true, Tools: []string{"nosuch", "read", "read"}}, []string{"read"}, 1},
		{"only unknown", Args{ToolsSet: true, Tools: []string{"nosuch"}}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warns := selectTools(&tt.args, defaults, known)
			if !reflect.DeepEqual(got, tt.want) || len(warns) != tt.nWarns {
				t.Errorf("got %v warnings %v, want %v and %d warnings", got, warns, tt.want, tt.nWarns)
			}
		})
	}
}
