package hooks

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/relay-agent/relay/internal/llm"
)

// RenderTarget is what a renderer an extension registered draws.
type RenderTarget string

// Render targets: registerMessageRenderer, registerEntryRenderer and a
// tool's renderCall / renderResult.
const (
	RenderMessage    RenderTarget = "message"    // a custom message, by customType
	RenderEntry      RenderTarget = "entry"      // a custom session entry, by customType
	RenderToolCall   RenderTarget = "toolCall"   // a tool call's header, by tool name
	RenderToolResult RenderTarget = "toolResult" // a tool call's result, by tool name
)

// RenderRequest asks a renderer for the lines of one transcript block.
type RenderRequest struct {
	Target   RenderTarget
	Name     string // customType or tool name
	Width    int
	Expanded bool
	// Data is what the renderer receives: the custom message (role
	// "custom"), the custom entry (type "custom"), or for tools a
	// RenderTool object.
	Data json.RawMessage
}

// RenderTool is a tool block's state as tool renderers receive it.
type RenderTool struct {
	ToolCallID       string          `json:"toolCallId"`
	Args             json.RawMessage `json:"args"`
	ArgsComplete     bool            `json:"argsComplete"`
	ExecutionStarted bool            `json:"executionStarted"`
	// Result is {content, details} (nil before any output).
	Result    json.RawMessage `json:"result,omitempty"`
	IsPartial bool            `json:"isPartial"`
	IsError   bool            `json:"isError"`
}

// Renderer draws req. ok false means the renderer declined (it returned
// nothing): the front end draws its own rendering. It may block (a round
// trip to the extension host): front ends call it off their UI loop,
// bounded by ctx, and fall back to their own rendering on an error.
type Renderer func(ctx context.Context, req RenderRequest) (lines []string, ok bool, err error)

type renderKey struct {
	target RenderTarget
	name   string
}

type renderReg struct {
	id     uint64
	source string
	fn     Renderer
}

type renderRegistry struct {
	mu   sync.Mutex
	next uint64
	regs map[renderKey][]renderReg
}

// RegisterRenderer adds source's renderer for target and name; the newest
// registration for a name is the one used. off removes it.
func (s *Set) RegisterRenderer(target RenderTarget, name, source string, fn Renderer) (off func()) {
	r := &s.renderers
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.regs == nil {
		r.regs = map[renderKey][]renderReg{}
	}
	r.next++
	id := r.next
	k := renderKey{target, name}
	r.regs[k] = append(r.regs[k], renderReg{id: id, source: source, fn: fn})
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		regs := r.regs[k]
		for i, g := range regs {
			if g.id == id {
				r.regs[k] = append(regs[:i:i], regs[i+1:]...)
				break
			}
		}
		if len(r.regs[k]) == 0 {
			delete(r.regs, k)
		}
	}
}

// Renderer returns the renderer for target and name, nil when none.
func (s *Set) Renderer(target RenderTarget, name string) Renderer {
	r := &s.renderers
	r.mu.Lock()
	defer r.mu.Unlock()
	regs := r.regs[renderKey{target, name}]
	if len(regs) == 0 {
		return nil
	}
	return regs[len(regs)-1].fn
}

// Shown is something a feature recorded in the session outside a run
// that front ends draw in the transcript: a custom message sent while
// idle (Message) or a custom entry (EntryID, CustomType, Data).
type Shown struct {
	Message    llm.Message
	EntryID    string
	CustomType string
	Data       json.RawMessage
}

type shownSubs struct {
	mu   sync.Mutex
	next int
	subs map[int]func(Shown)
}

// Show hands sh to the subscribers from the calling goroutine
// (subscribers must not block).
func (s *Set) Show(sh Shown) {
	s.shown.mu.Lock()
	fns := make([]func(Shown), 0, len(s.shown.subs))
	for i := 0; i < s.shown.next; i++ {
		if fn, ok := s.shown.subs[i]; ok {
			fns = append(fns, fn)
		}
	}
	s.shown.mu.Unlock()
	for _, fn := range fns {
		fn(sh)
	}
}

// SubscribeShown delivers everything Show receives to fn until the
// returned func is called.
func (s *Set) SubscribeShown(fn func(Shown)) (unsubscribe func()) {
	s.shown.mu.Lock()
	defer s.shown.mu.Unlock()
	if s.shown.subs == nil {
		s.shown.subs = map[int]func(Shown){}
	}
	id := s.shown.next
	s.shown.next++
	s.shown.subs[id] = fn
	return func() {
		s.shown.mu.Lock()
		delete(s.shown.subs, id)
		s.shown.mu.Unlock()
	}
}
