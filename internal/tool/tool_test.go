package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

type fake struct{ name string }

func (f fake) Spec() llm.ToolSpec { return llm.ToolSpec{Name: f.name} }
func (f fake) Execute(context.Context, json.RawMessage, func(Result)) Result {
	return Text(f.name)
}

func TestRegistry(t *testing.T) {
	r, err := NewRegistry(fake{"b"}, fake{"a"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Add(fake{"a"}); err == nil {
		t.Error("duplicate name accepted")
	}
	if got := strings.Join(r.Names(), ","); got != "b,a" {
		t.Errorf("names %s", got)
	}
	if specs := r.Specs("a", "zz", "b"); len(specs) != 2 || specs[0].Name != "a" || specs[1].Name != "b" {
		t.Errorf("specs %+v", specs)
	}
	if len(r.Specs()) != 2 {
		t.Error("all specs")
	}
	if !r.Remove("b") || r.Remove("b") {
		t.Error("remove")
	}
	if _, ok := r.Get("a"); !ok {
		t.Error("get")
	}
}

func TestArgs(t *testing.T) {
	a := ParseArgs("read", json.RawMessage(`{"path":3,"offset":"7","limit":2.5,"flag":"true","n":null}`))
	a.String("path", true)
	if v, ok := a.Int("offset"); !ok || v != 7 {
		t.Errorf("offset %d %v", v, ok)
	}
	a.Int("limit")
	if !a.Bool("flag") {
		t.Error("flag")
	}
	if a.Has("n") {
		t.Error("null is absent")
	}
	a.String("missing", true)
	r := a.Err()
	if r == nil || !r.IsError {
		t.Fatal("want error")
	}
	text := r.Content.PlainText()
	for _, want := range []string{
		`Validation failed for tool "read":`,
		"  - path: expected a string, got a number",
		"  - limit: expected an integer, got 2.5",
		"  - missing: required string is missing",
		"Received arguments:\n{\"flag\":\"true\",",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	if ParseArgs("x", json.RawMessage(`[1]`)).Err() == nil {
		t.Error("array accepted as arguments")
	}
	if ParseArgs("x", nil).Err() != nil {
		t.Error("empty arguments rejected")
	}
}

type schemaArgs struct {
	Path  string  `json:"path" jsonschema:"Path to the file"`
	Limit float64 `json:"limit,omitempty" jsonschema:"Maximum"`
}

func TestSchemaFor(t *testing.T) {
	s := string(SchemaFor[schemaArgs]())
	for _, want := range []string{`"required":["path"]`, `"limit":{"type":"number","description":"Maximum"}`} {
		if !strings.Contains(s, want) {
			t.Errorf("schema %s lacks %s", s, want)
		}
	}
}

// Run with -race: MCP servers change the registry while the agent reads it.
func TestRegistryConcurrentUse(t *testing.T) {
	r, _ := NewRegistry(fake{"read"})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			r.Replace(fake{"mcp__s__t"})
			r.Remove("mcp__s__t")
		}
	}()
	for i := 0; i < 200; i++ {
		_ = r.Specs()
		_, _ = r.Get("mcp__s__t")
		_ = r.Names()
	}
	<-done
	if names := r.Names(); len(names) != 1 || names[0] != "read" {
		t.Fatalf("names = %v", names)
	}
}

func TestWithExposure(t *testing.T) {
	base := Tool(fake{name: "x"})
	if ExposureOf(base) != ExposeDirect {
		t.Fatalf("default exposure %q", ExposureOf(base))
	}
	if WithExposure(base, ExposeDirect) != base {
		t.Error("a tool already reporting the exposure must not be wrapped")
	}
	w := WithExposure(base, ExposeDeferred)
	if ExposureOf(w) != ExposeDeferred || w.Spec().Name != "x" {
		t.Errorf("wrapped: %q %q", ExposureOf(w), w.Spec().Name)
	}
	ctx := WithCallID(context.Background(), "call_7")
	if CallID(ctx) != "call_7" || CallID(context.Background()) != "" {
		t.Error("call id round trip")
	}
}

// introspective describes itself from the registry it is in, as codemode
// does; Add, Replace and Specs must not hold the lock while asking.
type introspective struct{ reg *Registry }

func (i introspective) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "meta", Description: strings.Join(i.reg.Names(), ",")}
}
func (i introspective) Execute(context.Context, json.RawMessage, func(Result)) Result {
	return Text("")
}

func TestSpecMayReadTheRegistry(t *testing.T) {
	reg, _ := NewRegistry(fake{name: "a"})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = reg.Add(introspective{reg})
		reg.Replace(introspective{reg})
		_ = reg.Specs()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("deadlock: the registry called Spec while holding its lock")
	}
	if s := reg.Specs("meta"); len(s) != 1 || s[0].Description != "a,meta" {
		t.Errorf("specs %+v", s)
	}
}
