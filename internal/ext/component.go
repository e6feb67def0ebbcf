package ext

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/relay-agent/relay/internal/hooks"
)

// hostComponent is a component that lives in the host (ctx.ui.custom,
// setWidget/setFooter/setHeader with a factory): the front end draws the
// lines its render(width) returns and forwards keys to it.
type hostComponent struct {
	m  *Manager
	id int64

	mu      sync.Mutex
	surface hooks.Surface
	text    string // a host editor's text (editor.go)
}

// component returns the Go side of host component id, creating it once.
func (m *Manager) component(id int64) *hostComponent {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.comps == nil {
		m.comps = map[int64]*hostComponent{}
	}
	c := m.comps[id]
	if c == nil {
		c = &hostComponent{m: m, id: id}
		m.comps[id] = c
	}
	return c
}

func (c *hostComponent) Attach(s hooks.Surface) {
	c.mu.Lock()
	c.surface = s
	c.mu.Unlock()
}

func (c *hostComponent) requestRender() {
	c.mu.Lock()
	s := c.surface
	c.mu.Unlock()
	if s != nil {
		s.RequestRender()
	}
}

// Render asks the host for the component's lines (bounded like a
// handler: a component that never answers shows its previous lines).
func (c *hostComponent) Render(ctx context.Context, width int) ([]string, error) {
	c.m.syncTheme()
	raw, err := c.m.callTimed(ctx, "render", map[string]any{"id": c.id, "width": width})
	if err != nil {
		return nil, err
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return nil, err
	}
	return lines, nil
}

func (c *hostComponent) send(method string, params map[string]any) {
	if conn, err := c.m.conn(); err == nil {
		_ = conn.notify(method, params)
	}
}

func (c *hostComponent) HandleInput(data string) {
	c.send("input", map[string]any{"id": c.id, "data": data})
}

func (c *hostComponent) SetFocused(focused bool) {
	c.send("focus", map[string]any{"id": c.id, "focused": focused})
}

func (c *hostComponent) Dispose() {
	c.send("dispose", map[string]any{"id": c.id})
	c.m.mu.Lock()
	delete(c.m.comps, c.id)
	c.m.mu.Unlock()
}

// custom shows host component id until the extension calls done() (the
// host's component_done) or the front end ends it.
func (m *Manager) custom(ui hooks.UI, args []json.RawMessage) (any, error) {
	id := arg[int64](args, 0)
	opts := arg[struct {
		Overlay bool `json:"overlay"`
	}](args, 1)
	c := m.component(id)
	ctx, cancel := context.WithCancel(context.Background())
	m.mu.Lock()
	if m.doneComps == nil {
		m.doneComps = map[int64]func(){}
	}
	m.doneComps[id] = cancel
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.doneComps, id)
		m.mu.Unlock()
		cancel()
	}()
	m.asked.Add(1)
	defer m.asked.Add(-1)
	err := ui.Custom(ctx, c, hooks.CustomOptions{Overlay: opts.Overlay})
	if err == hooks.ErrUnsupported {
		return nil, nil
	}
	return nil, err
}

// componentDone ends the custom() call showing component id.
func (m *Manager) componentDone(id int64) {
	m.mu.Lock()
	cancel := m.doneComps[id]
	m.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
