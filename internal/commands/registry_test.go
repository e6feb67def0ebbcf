package commands

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	r := New()
	ran := ""
	run := func(name string) Handler {
		return func(_ context.Context, args string) (Output, error) {
			ran = name + ":" + args
			return Output{Text: name}, nil
		}
	}
	for _, c := range []Command{
		{Name: "/session", Source: Builtin, Run: run("session")},
		{Name: "model", Source: Builtin, Frontend: true},
		{Name: "fail", Source: Extension, Run: func(context.Context, string) (Output, error) { return Output{}, errors.New("broken") }},
	} {
		if err := r.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		c       Command
		wantErr string
	}{
		{"duplicate names both sources", Command{Name: "session", Source: Extension}, "already registered by builtin"},
		{"empty", Command{Name: " "}, "invalid name"},
		{"space inside", Command{Name: "a b"}, "invalid name"},
	}
	for _, tt := range tests {
		if err := r.Register(tt.c); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	out, handled, err := r.Run(context.Background(), "  /session   some args ")
	if !handled || err != nil || out.Text != "session" || ran != "session:some args" {
		t.Fatalf("run: %+v %v %v %q", out, handled, err, ran)
	}
	if _, handled, _ := r.Run(context.Background(), "/model gpt"); handled {
		t.Error("a front-end command without a handler must be left to the caller")
	}
	if _, handled, _ := r.Run(context.Background(), "/nope"); handled {
		t.Error("unknown command handled")
	}
	if _, handled, err := r.Run(context.Background(), "/fail"); !handled || err == nil {
		t.Errorf("handler error lost: %v %v", handled, err)
	}
}

func TestReplaceKeepsOtherSourcesAndOrder(t *testing.T) {
	r := New()
	_ = r.Register(Command{Name: "session", Source: Builtin})
	errs := r.Replace(Prompt, []Command{{Name: "review"}, {Name: "session"}, {Name: "fix"}})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "/session") {
		t.Fatalf("a template named like a built-in must be refused: %v", errs)
	}
	r.Replace(Skill, []Command{{Name: "skill:go"}})
	names := func(cs []Command) string {
		var s []string
		for _, c := range cs {
			s = append(s, c.Name+"("+string(c.Source)+")")
		}
		return strings.Join(s, " ")
	}
	if got := names(r.All()); got != "session(builtin) review(prompt) fix(prompt) skill:go(skill)" {
		t.Fatalf("all: %s", got)
	}
	r.Replace(Prompt, []Command{{Name: "new"}})
	if got := names(r.All(Prompt, Skill)); got != "skill:go(skill) new(prompt)" {
		t.Fatalf("after reload: %s", got)
	}
	r.Unregister("skill:go")
	if _, ok := r.Get("skill:go"); ok {
		t.Error("unregister")
	}
	if got := r.All(Extension); got == nil || len(got) != 0 {
		t.Errorf("no extension commands must be an empty list, got %#v", got)
	}
}

func TestComplete(t *testing.T) {
	r := New()
	for _, n := range []string{"resume", "reload", "re", "model"} {
		_ = r.Register(Command{Name: n, Source: Builtin, Description: n + "!"})
	}
	_ = r.Register(Command{Name: "laya", Source: Builtin, Complete: func(p string) []Completion {
		var out []Completion
		for _, s := range []string{"status", "setup", "start"} {
			if strings.HasPrefix(s, p) {
				out = append(out, Completion{Value: s})
			}
		}
		return out
	}})
	got := r.Complete("re")
	if len(got) != 3 || got[0].Value != "re" || got[0].Description != "re!" {
		t.Fatalf("exact match first: %+v", got)
	}
	if got := r.Complete("laya st"); len(got) != 2 {
		t.Fatalf("argument completion: %+v", got)
	}
	if got := r.Complete("model x"); got != nil {
		t.Fatalf("no argument completer: %+v", got)
	}
}
