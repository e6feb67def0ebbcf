package tool

import (
	"context"
	"encoding/json"
)

// NestedCall is one tool call a tool makes while it runs: a codemode
// script's tools.<name>(args), an extension's ctx.executeTool.
type NestedCall struct {
	// Name is the name the tool is registered as; Tool runs it (callers
	// resolve it: nested calls may reach tools the model is not declared).
	Name string
	Tool Tool
	Args json.RawMessage
	// OnStart, when set, receives the call's id (<parent>/<n>) before it
	// runs; OnUpdate its partial results.
	OnStart  func(id string)
	OnUpdate func(Result)
}

// NestedOutcome is how a nested call ended: Result is what the tool
// returned after the tool_result hooks; Blocked says a tool_call hook
// refused it (Result then carries the reason as an error).
type NestedOutcome struct {
	ID      string
	Result  Result
	Blocked bool
}

// Nested runs nested calls the way the agent loop runs the model's calls:
// tool_execution events naming the parent call, the tool_call hooks (the
// harness authorization gate, extensions) that may block or change the
// input, the tool_result hooks, and a record on the parent's tool result.
// The parent is the call whose id CallID(ctx) returns.
type Nested interface {
	RunNested(ctx context.Context, call NestedCall) NestedOutcome
}

type nestedKey struct{}

// WithNested returns ctx carrying the runner of nested calls.
func WithNested(ctx context.Context, n Nested) context.Context {
	return context.WithValue(ctx, nestedKey{}, n)
}

// NestedFrom returns the runner WithNested stored, or nil outside a run
// (a tool executed directly, as in tests).
func NestedFrom(ctx context.Context) Nested {
	n, _ := ctx.Value(nestedKey{}).(Nested)
	return n
}
