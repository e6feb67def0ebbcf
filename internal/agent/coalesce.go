package agent

import (
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// Coalescer merges consecutive deltas of one content block (text,
// thinking or tool-call arguments) that arrive within a short window into
// one message_update. Concatenated deltas carry exactly the same content,
// so protocol streams (JSON and RPC modes) stay linear and small even when
// a provider sends tiny chunks; every other event passes straight through
// after any pending delta, so ordering is kept.
type Coalescer struct {
	mu     sync.Mutex
	out    func(Event)
	window time.Duration
	// pending is held by value: a pointer to Push's argument moved every
	// pushed event (hundreds of bytes) to the heap, one per token delta.
	pending    Event
	hasPending bool
	delta      strings.Builder
	started    time.Time
	timer      *time.Timer
}

// NewCoalescer forwards to out; window bounds how long a delta may wait.
func NewCoalescer(window time.Duration, out func(Event)) *Coalescer {
	return &Coalescer{out: out, window: window}
}

func mergeable(e Event) bool {
	if e.Type != MessageUpdate || e.AssistantEvent == nil {
		return false
	}
	switch e.AssistantEvent.Type {
	case llm.EventTextDelta, llm.EventThinkingDelta, llm.EventToolCallDelta:
		return true
	}
	return false
}

// Push handles one event.
func (c *Coalescer) Push(e Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if mergeable(e) {
		if p := &c.pending; c.hasPending && p.AssistantEvent.Type == e.AssistantEvent.Type &&
			p.AssistantEvent.ContentIndex == e.AssistantEvent.ContentIndex && time.Since(c.started) < c.window {
			c.delta.WriteString(e.AssistantEvent.Delta)
			p.Usage = e.Usage
			return
		}
		c.flushLocked()
		ae := *e.AssistantEvent
		ae.Partial, ae.PartialArgs = nil, nil
		c.pending, c.hasPending = e, true
		c.pending.AssistantEvent = &ae
		c.delta.Reset()
		c.delta.WriteString(ae.Delta)
		c.started = time.Now()
		if c.timer == nil {
			c.timer = time.AfterFunc(c.window, c.Flush)
		} else {
			c.timer.Reset(c.window)
		}
		return
	}
	c.flushLocked()
	c.out(e)
}

// Flush emits a pending delta now.
func (c *Coalescer) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
}

func (c *Coalescer) flushLocked() {
	if !c.hasPending {
		return
	}
	p := c.pending
	c.pending, c.hasPending = Event{}, false
	p.AssistantEvent.Delta = c.delta.String()
	c.delta.Reset()
	c.out(p)
}
