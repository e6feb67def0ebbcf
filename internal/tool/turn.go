package tool

import (
	"context"
	"slices"
	"sync"

	"github.com/relay-agent/relay/internal/llm"
)

// Active is the selection of tools declared to the model. The
// composition root makes it with the initial selection and hands it to
// the runtime, which reads it for every request, and to what reads or
// changes it (tool_search, codemode, MCP, Laya's tool retrieval,
// extensions); a change holds from the next request on.
type Active struct {
	mu    sync.Mutex
	names []string
}

// NewActive holds names (nil = no tool declared).
func NewActive(names []string) *Active { return &Active{names: slices.Clone(names)} }

// Names returns the selected tools' names (nil on a nil selection).
func (a *Active) Names() []string {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.names)
}

// Set replaces the selection.
func (a *Active) Set(names []string) {
	a.mu.Lock()
	a.names = slices.Clone(names)
	a.mu.Unlock()
}

// Turn is what the runtime tells a tool about the run that calls it; it
// travels on the call's context (WithTurn, TurnFrom), so nothing built
// before the runtime has to reach into it.
type Turn struct {
	Model         *llm.Model // the selected model (nil when none)
	ThinkingLevel llm.ThinkingLevel
	SessionID     string
	SessionFile   string // "" for a session that is not persisted
}

type turnKey struct{}

// WithTurn returns ctx carrying t.
func WithTurn(ctx context.Context, t Turn) context.Context {
	return context.WithValue(ctx, turnKey{}, t)
}

// TurnFrom returns the Turn WithTurn stored; ok is false outside a run (a
// tool executed directly, as in tests).
func TurnFrom(ctx context.Context) (t Turn, ok bool) {
	t, ok = ctx.Value(turnKey{}).(Turn)
	return t, ok
}
