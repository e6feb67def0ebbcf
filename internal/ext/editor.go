package ext

import (
	"context"
	"encoding/json"
	"time"

	"github.com/relay-agent/relay/internal/hooks"
)

// terminalInputTimeout bounds one raw-input listener call: the front end
// asks on its loop (a listener may consume the key), so a listener that
// does not answer in time lets the key through.
const terminalInputTimeout = 200 * time.Millisecond

// hostEditor is a prompt editor that lives in the host
// (ctx.ui.setEditorComponent): a host component that also keeps a copy
// of its text, sent by the host on every change, so Text never waits.
type hostEditor struct{ *hostComponent }

var _ hooks.EditorComponent = hostEditor{}

func (e hostEditor) SetText(text string) {
	e.mu.Lock()
	e.text = text
	e.mu.Unlock()
	e.send("setEditorText", map[string]any{"id": e.id, "text": text})
}

func (e hostEditor) Text() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.text
}

func (c *hostComponent) editorSurface() hooks.EditorSurface {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, _ := c.surface.(hooks.EditorSurface)
	return s
}

// editorNote applies the host's editor_text and editor_submit
// notifications (on the reader goroutine, in order).
func (m *Manager) editorNote(method string, params json.RawMessage) {
	var p struct {
		ID   int64  `json:"id"`
		Text string `json:"text"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	m.mu.Lock()
	c := m.comps[p.ID]
	m.mu.Unlock()
	if c == nil {
		return
	}
	switch method {
	case "editor_text":
		c.mu.Lock()
		c.text = p.Text
		c.mu.Unlock()
	case "editor_submit":
		if s := c.editorSurface(); s != nil {
			s.Submit(p.Text)
		}
	}
}

// editorUICall is the Go side of setEditorComponent, the editor's keys
// for relay, and onTerminalInput; ok is false for other methods.
func (m *Manager) editorUICall(ui hooks.UI, method string, args []json.RawMessage) (res any, ok bool) {
	switch method {
	case "setEditorComponent":
		id := arg[int64](args, 0)
		if id <= 0 {
			ui.SetEditorComponent(nil)
			return nil, true
		}
		ui.SetEditorComponent(hostEditor{m.component(id)})
		return nil, true
	case "editorAppKey":
		m.mu.Lock()
		c := m.comps[arg[int64](args, 0)]
		m.mu.Unlock()
		if c == nil {
			return false, true
		}
		s := c.editorSurface()
		return s != nil && s.AppKey(arg[string](args, 1)), true
	case "onTerminalInput":
		m.onTerminalInput(ui, arg[int64](args, 0))
		return nil, true
	case "offTerminalInput":
		m.offTerminalInput(arg[int64](args, 0))
		return nil, true
	}
	return nil, false
}

// onTerminalInput subscribes host listener id to the front end's raw
// input. The calls arrive fire-and-forget, so an off may overtake its
// on: an id already switched off is not subscribed.
func (m *Manager) onTerminalInput(ui hooks.UI, id int64) {
	m.mu.Lock()
	m.resetInputs()
	if _, seen := m.inputs[id]; seen {
		m.mu.Unlock()
		return
	}
	m.synthetic--
	key := m.synthetic
	m.inputs[id] = key
	m.mu.Unlock()
	off := ui.OnTerminalInput(func(data string) (string, bool) {
		c, err := m.conn()
		if err != nil {
			return data, false
		}
		ctx, cancel := context.WithTimeout(context.Background(), terminalInputTimeout)
		defer cancel()
		raw, err := c.call(ctx, "terminalInput", map[string]any{"id": id, "data": data})
		if err != nil {
			return data, false
		}
		var r struct {
			Consume bool    `json:"consume"`
			Data    *string `json:"data"`
		}
		if json.Unmarshal(raw, &r) != nil {
			return data, false
		}
		if r.Data != nil {
			data = *r.Data
		}
		return data, r.Consume
	})
	m.mu.Lock()
	if m.inputs[id] != key {
		// Switched off (or the host restarted) while subscribing.
		m.mu.Unlock()
		off()
		return
	}
	m.regs[key] = off
	m.mu.Unlock()
}

func (m *Manager) offTerminalInput(id int64) {
	m.mu.Lock()
	m.resetInputs()
	key := m.inputs[id]
	m.inputs[id] = 0 // switched off: a late on is ignored
	off := m.regs[key]
	delete(m.regs, key)
	m.mu.Unlock()
	if off != nil {
		off()
	}
}

// resetInputs forgets the listener ids of an earlier host (a restarted
// host numbers its listeners again; their subscriptions went with the
// old host's registrations). Under m.mu.
func (m *Manager) resetInputs() {
	if m.inputs == nil || m.inputsConn != m.c {
		m.inputs, m.inputsConn = map[int64]int64{}, m.c
	}
}

// deferredUI are the display calls that wait for the front end: an
// extension's session_start handler runs before the TUI attaches its UI.
var deferredUI = map[string]bool{
	"notify": true, "setStatus": true, "setWidget": true, "setFooter": true, "setHeader": true, "setTitle": true,
	"setWorkingMessage": true, "setWorkingVisible": true, "setWorkingIndicator": true, "setHiddenThinkingLabel": true,
	"setEditorText": true, "pasteToEditor": true, "setToolsExpanded": true, "setEditorComponent": true,
	"onTerminalInput": true, "offTerminalInput": true,
}

// deferUI keeps a display call made before the front end attached its
// UI (in a mode that has one) and applies it once it is attached; false
// for calls that do not wait (dialogs answer their defaults).
func (m *Manager) deferUI(src, method string, args []json.RawMessage) bool {
	if !m.opts.HasUI || m.opts.Hooks == nil || !deferredUI[method] {
		return false
	}
	m.opts.Hooks.WhenUI(func(hooks.UI) {
		// BindUI's goroutine must not wait for the host.
		go func() { _, _ = m.uiCall(src, method, args) }()
	})
	return true
}
