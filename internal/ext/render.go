package ext

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/relay-agent/relay/internal/hooks"
)

// Renderers: registerMessageRenderer, registerEntryRenderer and a tool's
// renderCall / renderResult live in the host; relay registers a
// hooks.Renderer for each that asks the host for the component's lines.
// The front end calls it off its loop with its own deadline.

// addRenderer registers a message or entry renderer on the seam.
func (m *Manager) addRenderer(src string, it regItem) error {
	var p struct {
		Target     string `json:"target"`
		CustomType string `json:"customType"`
	}
	if err := json.Unmarshal(it.Raw, &p); err != nil {
		return fmt.Errorf("renderer: %w", err)
	}
	var target hooks.RenderTarget
	switch p.Target {
	case "message":
		target = hooks.RenderMessage
	case "entry":
		target = hooks.RenderEntry
	default:
		return fmt.Errorf("renderer: unknown target %q", p.Target)
	}
	m.addRenderFn(src, target, p.CustomType)
	return nil
}

// addToolRenderers registers the renderCall / renderResult of a tool.
func (m *Manager) addToolRenderers(src string, it regItem) {
	var p struct {
		Call   bool `json:"renderCall"`
		Result bool `json:"renderResult"`
	}
	if json.Unmarshal(it.Raw, &p) != nil {
		return
	}
	if p.Call {
		m.addRenderFn(src, hooks.RenderToolCall, it.Name)
	}
	if p.Result {
		m.addRenderFn(src, hooks.RenderToolResult, it.Name)
	}
}

func (m *Manager) addRenderFn(src string, target hooks.RenderTarget, name string) {
	if m.opts.Hooks == nil {
		return
	}
	var reported atomic.Bool
	fn := func(ctx context.Context, req hooks.RenderRequest) ([]string, bool, error) {
		lines, ok, err := m.render(ctx, req)
		// A renderer that throws is drawn by relay instead, at every
		// redraw: report it once, not on every frame.
		if err != nil && ctx.Err() == nil && reported.CompareAndSwap(false, true) {
			m.report(src, fmt.Sprintf("render:%s:%s", target, name), err)
		}
		return lines, ok, err
	}
	off := m.opts.Hooks.RegisterRenderer(target, name, src, fn)
	m.mu.Lock()
	m.synthetic--
	m.regs[m.synthetic] = off
	m.mu.Unlock()
}

// render asks the host for the lines of one renderer call.
func (m *Manager) render(ctx context.Context, req hooks.RenderRequest) ([]string, bool, error) {
	c, err := m.conn()
	if err != nil {
		return nil, false, err
	}
	m.syncTheme()
	data := req.Data
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	raw, err := c.call(ctx, "renderItem", map[string]any{"target": req.Target, "name": req.Name, "width": req.Width,
		"expanded": req.Expanded, "data": data})
	if err != nil {
		return nil, false, err
	}
	var res struct {
		OK    bool     `json:"ok"`
		Lines []string `json:"lines"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, false, fmt.Errorf("renderer answer: %w", err)
	}
	return res.Lines, res.OK, nil
}

// syncTheme sends the front end's palette to the host when it changed
// (or the host is new), ahead of a render, so components and renderers
// colour with theme.fg / theme.bg as in the original.
func (m *Manager) syncTheme() {
	ui := m.ui()
	if ui == nil {
		return
	}
	th := ui.Theme()
	if len(th.Fg) == 0 {
		return
	}
	raw, err := json.Marshal(map[string]any{"name": th.Name, "fg": th.Fg, "fgEnd": th.FgEnd, "bg": th.Bg})
	if err != nil {
		return
	}
	m.mu.Lock()
	c := m.c
	if c == nil || (m.themeConn == c && m.themeSent == string(raw)) {
		m.mu.Unlock()
		return
	}
	m.themeConn, m.themeSent = c, string(raw)
	m.mu.Unlock()
	_ = c.notify("state", map[string]json.RawMessage{"theme": raw})
}
