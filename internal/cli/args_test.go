package cli

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(*Args) bool
	}{
		{"print consumes next", []string{"-p", "hello", "world"}, func(a *Args) bool {
			return a.Print && reflect.DeepEqual(a.Messages, []string{"hello", "world"})
		}},
		{"print does not consume flag", []string{"-p", "--model", "x"}, func(a *Args) bool { return a.Print && a.Model == "x" && len(a.Messages) == 0 }},
		{"print consumes ---", []string{"-p", "---x"}, func(a *Args) bool { return reflect.DeepEqual(a.Messages, []string{"---x"}) }},
		{"print does not consume @file", []string{"-p", "@a.txt"}, func(a *Args) bool { return len(a.Messages) == 0 && reflect.DeepEqual(a.Files, []string{"a.txt"}) }},
		{"double dash", []string{"--", "--model", "@f"}, func(a *Args) bool {
			return a.Model == "" && reflect.DeepEqual(a.Messages, []string{"--model"}) && reflect.DeepEqual(a.Files, []string{"f"})
		}},
		{"list models search", []string{"--list-models", "sonnet"}, func(a *Args) bool { return a.ListModels && a.ListSearch == "sonnet" }},
		{"list models no search", []string{"--list-models", "--verbose"}, func(a *Args) bool { return a.ListModels && a.ListSearch == "" && a.Verbose }},
		{"extension flag with value", []string{"--my-flag", "v", "msg"}, func(a *Args) bool {
			return a.ExtFlags["my-flag"] == "v" && reflect.DeepEqual(a.Messages, []string{"msg"})
		}},
		{"extension bool flag", []string{"--my-flag", "-p"}, func(a *Args) bool { return a.ExtFlags["my-flag"] == "true" && a.Print }},
		{"inline value", []string{"--model=openai/gpt-5:high"}, func(a *Args) bool { return a.Model == "openai/gpt-5:high" }},
		{"models csv", []string{"--models", "a, b,c"}, func(a *Args) bool { return reflect.DeepEqual(a.Models, []string{"a", "b", "c"}) }},
		{"silently ignored missing value", []string{"--model"}, func(a *Args) bool { return a.Model == "" }},
		{"approve", []string{"-na"}, func(a *Args) bool { return a.Approve != nil && !*a.Approve }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := ParseArgs(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(a) {
				t.Errorf("unexpected parse: %+v", a)
			}
		})
	}
}

func TestParseArgsErrors(t *testing.T) {
	tests := [][]string{
		{"-x"},
		{"--mode"},
		{"--mode", "xml"},
		{"--name"},
		{"--name", "  "},
		{"--fork", "a", "--continue"},
		{"--session-id", "a", "--session", "b"},
		{"--provider", "openai"},
		{"--api-key", "k"},
		{"--tools", "+grep"},
		{"--tui-mode", "tiny"},
	}
	for _, args := range tests {
		_, err := ParseArgs(args)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%v: error %v, want usage error", args, err)
		}
	}
}
