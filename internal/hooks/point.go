// Package hooks is the runtime's one seam. Every feature that takes part in
// a run — the harness core, the Laya router, compaction triggers, and later
// extensions, MCP and codemode — registers handlers on the typed points of a
// Set; the runtime calls the points and never a feature by name.
//
// The points are the extension events of upstream-spec-extras §14. Handlers
// of a point run in registration order. A handler that fails (returns an
// error or panics) is reported through Set.OnError and skipped, except where
// the spec gives the failure a meaning (a failing tool_call handler blocks
// the call). A point with no handler costs one atomic load.
package hooks

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// Handler handles one event of a point. It may change the event in place
// where the event documents a field as mutable, and returns the point's
// result (the zero value means "no opinion").
type Handler[E, R any] func(ctx context.Context, e *E) (R, error)

type entry[E, R any] struct {
	id     uint64
	source string
	fn     Handler[E, R]
}

// Point is one place of the run where handlers take part.
type Point[E, R any] struct {
	name string
	set  *Set
	mu   sync.Mutex // serialises registration; calls read list lock-free
	list atomic.Pointer[[]entry[E, R]]
}

// Name is the point's event name in the spec (e.g. "tool_call").
func (p *Point[E, R]) Name() string { return p.name }

// Has reports whether any handler is registered.
func (p *Point[E, R]) Has() bool {
	l := p.list.Load()
	return l != nil && len(*l) > 0
}

// On registers fn under source (the feature or extension path named in
// error reports) and returns a func that removes it.
func (p *Point[E, R]) On(source string, fn Handler[E, R]) (off func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	id := p.set.nextID.Add(1)
	var cur []entry[E, R]
	if l := p.list.Load(); l != nil {
		cur = *l
	}
	next := make([]entry[E, R], len(cur), len(cur)+1)
	copy(next, cur)
	next = append(next, entry[E, R]{id: id, source: source, fn: fn})
	p.list.Store(&next)
	return func() { p.remove(id) }
}

func (p *Point[E, R]) remove(id uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.list.Load()
	if l == nil {
		return
	}
	next := make([]entry[E, R], 0, len(*l))
	for _, e := range *l {
		if e.id != id {
			next = append(next, e)
		}
	}
	p.list.Store(&next)
}

// each calls the handlers in order with e. visit receives each successful
// result and returns true to stop. A failed handler is reported and
// skipped unless onErr is set, in which case onErr decides (true = stop).
func (p *Point[E, R]) each(ctx context.Context, e *E, visit func(source string, r R) bool, onErr func(source string, err error) bool) {
	l := p.list.Load()
	if l == nil {
		return
	}
	for _, h := range *l {
		r, err := p.call(ctx, h, e)
		if err != nil {
			if onErr != nil {
				if onErr(h.source, err) {
					return
				}
				continue
			}
			p.set.report(p.name, h.source, err)
			continue
		}
		if visit != nil && visit(h.source, r) {
			return
		}
	}
}

func (p *Point[E, R]) call(ctx context.Context, h entry[E, R], e *E) (r R, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return h.fn(ctx, e)
}

// Notify calls every handler for its side effects, ignoring results.
func (p *Point[E, R]) Notify(ctx context.Context, e *E) {
	if !p.Has() {
		return
	}
	p.each(ctx, e, nil, nil)
}

// HandlerError is a failed handler, as reported to Set.OnError.
type HandlerError struct {
	Event  string // the point's name
	Source string // who registered the handler
	Err    error
}

func (e *HandlerError) Error() string {
	return fmt.Sprintf("%s handler of %s: %v", e.Event, e.Source, e.Err)
}

func (e *HandlerError) Unwrap() error { return e.Err }
