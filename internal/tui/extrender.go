package tui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui/transcript"
)

// extRenderTimeout bounds one extension renderer call; past it the block
// shows relay's own rendering (and regular mode prints it).
const extRenderTimeout = 3 * time.Second

// maxRenderLines bounds what one renderer answer may hand us.
const maxRenderLines = 2000

// Renderers finds the renderers extensions registered (hooks.Set).
type Renderers interface {
	Renderer(target hooks.RenderTarget, name string) hooks.Renderer
}

// extQueue carries what arrives for the transcript from outside the
// update loop: custom messages and entries recorded outside a run, and
// the wake-up of blocks that want a renderer's lines (recorded while
// drawing, in View).
type extQueue struct {
	mu    sync.Mutex
	shown []hooks.Shown
	wake  chan struct{}
}

type extWakeMsg struct{ shown []hooks.Shown }

type extRenderedMsg struct {
	want  transcript.RenderWant
	lines []string
	ok    bool
}

func newExtQueue() *extQueue { return &extQueue{wake: make(chan struct{}, 1)} }

func (q *extQueue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Show draws a custom message or entry a feature recorded outside a run
// (an extension's sendMessage while idle, appendEntry); safe from any
// goroutine and never blocks.
func (m *Model) Show(sh hooks.Shown) {
	m.xq.mu.Lock()
	if len(m.xq.shown) < maxPendingOps {
		m.xq.shown = append(m.xq.shown, sh)
	}
	m.xq.mu.Unlock()
	m.xq.poke()
}

// waitExt is the Cmd that wakes the loop for the extension queue.
func (m *Model) waitExt() tea.Msg {
	select {
	case <-m.xq.wake:
	case <-m.ctx.Done():
		return nil
	}
	m.xq.mu.Lock()
	sh := m.xq.shown
	m.xq.shown = nil
	m.xq.mu.Unlock()
	return extWakeMsg{sh}
}

// initRenderers connects the transcript to the extension renderers.
func (m *Model) initRenderers() {
	r := m.opts.Renderers
	if r == nil {
		return
	}
	m.tr.SetRenderers(func(t hooks.RenderTarget, name string) bool { return r.Renderer(t, name) != nil }, m.xq.poke)
}

// extWake adds what was shown and asks the renderers blocks wait for.
func (m *Model) extWake(msg extWakeMsg) {
	for _, sh := range msg.shown {
		switch {
		case sh.Message != nil:
			if cm, ok := sh.Message.(*llm.CustomMessage); ok {
				m.tr.AddMessage(cm)
			}
		case sh.CustomType != "":
			if m.opts.Renderers != nil && m.opts.Renderers.Renderer(hooks.RenderEntry, sh.CustomType) != nil {
				m.tr.AddEntry(sh.EntryID, sh.CustomType, sh.Data)
			}
		}
	}
	m.askRenderers()
}

// askRenderers calls, off the loop, the renderers blocks wait for.
func (m *Model) askRenderers() {
	for _, w := range m.tr.TakeRenderWants() {
		var fn hooks.Renderer
		if m.opts.Renderers != nil {
			fn = m.opts.Renderers.Renderer(w.Req.Target, w.Req.Name)
		}
		if fn == nil {
			m.tr.SetRendered(w, nil, false)
			continue
		}
		ctx := m.ctx
		m.pending = tea.Batch(m.pending, func() tea.Msg {
			rctx, cancel := context.WithTimeout(ctx, extRenderTimeout)
			defer cancel()
			lines, ok, err := fn(rctx, w.Req)
			if err != nil {
				ok = false
			}
			if len(lines) > maxRenderLines {
				lines = lines[:maxRenderLines]
			}
			return extRenderedMsg{want: w, lines: lines, ok: ok}
		})
	}
}
