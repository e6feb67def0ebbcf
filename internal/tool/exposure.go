package tool

import (
	"context"
	"encoding/json"
)

// Exposure says how a tool reaches the model (upstream-spec-extras §14).
type Exposure string

// The exposures a tool may declare.
const (
	// ExposeDirect tools are declared to the model when active and are
	// callable from codemode scripts.
	ExposeDirect Exposure = "direct"
	// ExposeModelOnly tools are declared to the model but never reachable
	// from scripts.
	ExposeModelOnly Exposure = "model-only"
	// ExposeCodemode tools are never declared; scripts call them.
	ExposeCodemode Exposure = "codemode"
	// ExposeDeferred tools are declared only once tool_search finds them;
	// scripts call them too.
	ExposeDeferred Exposure = "deferred"
	// ExposeHidden tools are neither declared nor callable from scripts.
	ExposeHidden Exposure = "hidden"
)

// Exposed is implemented by tools whose exposure is not direct.
type Exposed interface {
	Exposure() Exposure
}

// Namespaced is implemented by tools that belong to a group, such as the
// tools of one MCP server.
type Namespaced interface {
	Namespace() string
}

// ResultSchemer is implemented by tools whose results carry a Structured
// value: ResultSchema is its JSON Schema (codemode declares the type
// scripts receive from it).
type ResultSchemer interface {
	ResultSchema() json.RawMessage
}

// ExposureOf returns t's exposure; tools that do not say are direct.
func ExposureOf(t Tool) Exposure {
	if e, ok := t.(Exposed); ok {
		if x := e.Exposure(); x != "" {
			return x
		}
	}
	return ExposeDirect
}

// NamespaceOf returns t's namespace, or "".
func NamespaceOf(t Tool) string {
	if n, ok := t.(Namespaced); ok {
		return n.Namespace()
	}
	return ""
}

// WithExposure returns t reporting exposure x (and t's namespace), for
// tools that do not say themselves.
func WithExposure(t Tool, x Exposure) Tool {
	if ExposureOf(t) == x {
		return t
	}
	return exposedTool{Tool: t, x: x}
}

type exposedTool struct {
	Tool
	x Exposure
}

func (e exposedTool) Exposure() Exposure { return e.x }
func (e exposedTool) Namespace() string  { return NamespaceOf(e.Tool) }

type callIDKey struct{}

// WithCallID returns ctx carrying the id of the tool call being executed,
// so a tool that runs nested calls (codemode) can name them <id>/<n>.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallID returns the tool call id WithCallID stored, or "".
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}
