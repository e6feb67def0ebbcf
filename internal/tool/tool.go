// Package tool defines what the agent loop calls: the Tool interface, an
// ordered registry, argument validation helpers that produce errors a model
// can act on, and the shared output truncation of the built-in tools.
package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/relay-agent/relay/internal/llm"
)

// Result is what one tool call returns to the model.
type Result struct {
	Content llm.Blocks // text and image blocks the model sees
	Details any        // tool-specific, JSON-marshalled into ToolResultMessage.Details; nil = none
	IsError bool
	// Structured is the value codemode scripts receive instead of the text
	// (spec §14 structuredContent): an MCP tool's whole CallToolResult,
	// never truncated, also when IsError. Nil: scripts get the text.
	Structured json.RawMessage
	// Terminate asks the agent to end the run after this batch of tool
	// calls instead of calling the model again; it takes effect only when
	// every call of the batch asks (an extension's "submit result" tool).
	Terminate bool
}

// Tool is one callable tool.
type Tool interface {
	// Spec is the declaration sent to models: name, description and the JSON
	// Schema of the parameters.
	Spec() llm.ToolSpec
	// Execute validates args (errors name the argument and what was
	// expected, as an IsError result), honours ctx cancellation (abort), and
	// may call onUpdate with throttled partial results. A failure is always
	// an IsError Result, never a panic.
	Execute(ctx context.Context, args json.RawMessage, onUpdate func(Result)) Result
}

// Text returns a successful result with one text block.
func Text(s string) Result {
	return Result{Content: llm.Blocks{&llm.TextContent{Text: s}}}
}

// Error returns an error result with one text block.
func Error(s string) Result {
	return Result{Content: llm.Blocks{&llm.TextContent{Text: s}}, IsError: true}
}

// Errorf formats an error result.
func Errorf(format string, a ...any) Result {
	return Error(fmt.Sprintf(format, a...))
}

// Registry is an ordered set of tools by name. It is safe for concurrent
// use: MCP servers add and remove tools while the agent reads them.
type Registry struct {
	mu    sync.RWMutex
	order []string
	tools map[string]Tool
}

// NewRegistry returns a registry holding ts in order.
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range ts {
		if err := r.Add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add appends t; a second tool with the same name is an error.
//
// Spec is called outside the lock, here and in Replace and Specs: a tool
// may read the registry to describe itself (codemode lists the tools its
// scripts can call).
func (r *Registry) Add(t Tool) error {
	name := t.Spec().Name
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.add(t, name)
}

func (r *Registry) add(t Tool, name string) error {
	if r.tools == nil {
		r.tools = map[string]Tool{}
	}
	if name == "" {
		return fmt.Errorf("add tool: empty name")
	}
	if _, dup := r.tools[name]; dup {
		return fmt.Errorf("add tool %s: already registered", name)
	}
	r.order = append(r.order, name)
	r.tools[name] = t
	return nil
}

// Replace adds t, or swaps it in place if its name is taken.
func (r *Registry) Replace(t Tool) {
	name := t.Spec().Name
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[name]; ok {
		r.tools[name] = t
		return
	}
	_ = r.add(t, name)
}

// Remove drops a tool by name; it reports whether one was removed.
func (r *Registry) Remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[name]; !ok {
		return false
	}
	delete(r.tools, name)
	for i, n := range r.order {
		if n == name {
			r.order = append(r.order[:i:i], r.order[i+1:]...)
			break
		}
	}
	return true
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Names lists the tool names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]string(nil), r.order...)
}

// Specs returns the specs of the named tools in the order given, skipping
// unknown names; with no names it returns every spec in registration order.
func (r *Registry) Specs(names ...string) []llm.ToolSpec {
	r.mu.RLock()
	if len(names) == 0 {
		names = r.order
	}
	ts := make([]Tool, 0, len(names))
	for _, n := range names {
		if t, ok := r.tools[n]; ok {
			ts = append(ts, t)
		}
	}
	r.mu.RUnlock()
	out := make([]llm.ToolSpec, len(ts))
	for i, t := range ts {
		out[i] = t.Spec()
	}
	return out
}
