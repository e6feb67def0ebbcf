package ext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
)

// regItem is one registration the host reports.
type regItem struct {
	Kind string `json:"kind"`
	// handler
	ID    int64  `json:"id"`
	Event string `json:"event"`
	// tool, command, flag, provider
	Name        string          `json:"name"`
	Label       string          `json:"label"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Snippet     string          `json:"promptSnippet"`
	Guidelines  []string        `json:"promptGuidelines"`
	Exposure    string          `json:"exposure"`
	Active      *bool           `json:"defaultActive"`
	Mode        string          `json:"executionMode"`
	Completions bool            `json:"completions"`
	Type        string          `json:"type"`
	Default     any             `json:"default"`
	Key         string          `json:"key"`
	// Raw is the whole registration (virtual models read their fields).
	Raw json.RawMessage `json:"-"`
}

// handle receives every host message that is not an answer. It runs on
// the reader goroutine so registrations and tool updates keep their
// order; anything that may wait (a dialog, the runtime) moves to its own
// goroutine.
func (m *Manager) handle(msg message) {
	switch msg.Method {
	case "register":
		var p struct {
			Ext   int               `json:"ext"`
			Items []json.RawMessage `json:"items"`
		}
		if json.Unmarshal(msg.Params, &p) == nil {
			items := make([]regItem, 0, len(p.Items))
			for _, raw := range p.Items {
				var it regItem
				if json.Unmarshal(raw, &it) == nil {
					it.Raw = raw
					items = append(items, it)
				}
			}
			m.register(p.Ext, items)
		}
	case "unregister":
		var p struct {
			Kind string `json:"kind"`
			ID   int64  `json:"id"`
			Name string `json:"name"`
		}
		if json.Unmarshal(msg.Params, &p) == nil && p.Kind == "provider" {
			m.unregisterProvider(p.Name)
		}
		if json.Unmarshal(msg.Params, &p) == nil && p.Kind == "handler" {
			m.mu.Lock()
			off := m.regs[p.ID]
			delete(m.regs, p.ID)
			for ev, hs := range m.async {
				m.async[ev] = slicesDeleteID(hs, p.ID)
			}
			m.mu.Unlock()
			if off != nil {
				off()
			}
		}
	case "tool_update", "stream_event":
		var p struct {
			Req     int64           `json:"req"`
			Partial json.RawMessage `json:"partial"`
			Event   json.RawMessage `json:"ev"`
		}
		if json.Unmarshal(msg.Params, &p) == nil {
			if msg.Method == "stream_event" {
				p.Partial = p.Event
			}
			m.mu.Lock()
			fn := m.updates[p.Req]
			m.mu.Unlock()
			if fn != nil {
				fn(p.Partial)
			}
		}
	case "error":
		var p struct {
			Ext     any    `json:"ext"`
			Event   string `json:"event"`
			Message string `json:"message"`
		}
		if json.Unmarshal(msg.Params, &p) == nil {
			m.report(m.extPath(p.Ext), p.Event, errors.New(p.Message))
		}
	case "editor_text", "editor_submit":
		m.editorNote(msg.Method, msg.Params)
	case "component_render", "component_done":
		var p struct {
			ID int64 `json:"id"`
		}
		if json.Unmarshal(msg.Params, &p) == nil {
			if msg.Method == "component_done" {
				m.componentDone(p.ID)
			} else {
				m.component(p.ID).requestRender()
			}
		}
	case "api", "call":
		if msg.ID != nil {
			go m.api(msg)
			return
		}
		// Fire-and-forget calls (setSessionName, appendEntry, ...) are
		// counted so a command's end or Close waits for their effects.
		m.inflight.Add(1)
		go func() {
			defer m.inflight.Done()
			m.api(msg)
		}()
	default:
		if m.handleLib(msg) {
			return
		}
		if c, err := m.conn(); err == nil {
			c.reply(msg.ID, nil, fmt.Errorf("unknown method %s", msg.Method))
		}
	}
}

// settle waits (a few seconds at most) for the fire-and-forget API calls
// received so far to take effect.
func (m *Manager) settle() {
	done := make(chan struct{})
	go func() {
		m.inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}

func slicesDeleteID(hs []asyncHandler, id int64) []asyncHandler {
	out := hs[:0:0]
	for _, h := range hs {
		if h.id != id {
			out = append(out, h)
		}
	}
	return out
}

// extPath names extension i (an index into Options.Paths).
func (m *Manager) extPath(i any) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := i.(float64); ok && int(f) >= 0 && int(f) < len(m.opts.Paths) {
		return m.opts.Paths[int(f)]
	}
	return "extension host"
}

// register applies one extension's registrations to the seams. A refused
// one (a duplicate tool or command name) is reported by path and the
// rest stay.
func (m *Manager) register(ext int, items []regItem) {
	src := m.extPath(float64(ext))
	m.mu.Lock()
	m.dropStale()
	m.mu.Unlock()
	var newTools []string
	for _, it := range items {
		var err error
		switch it.Kind {
		case "handler":
			err = m.onEvent(src, it.ID, it.Event)
		case "tool":
			err = m.addTool(src, it)
			if err == nil {
				m.addToolRenderers(src, it)
				if it.Active == nil || *it.Active {
					newTools = append(newTools, it.Name)
				} else {
					m.mu.Lock()
					m.inactive[it.Name] = true
					m.mu.Unlock()
				}
			}
		case "command":
			err = m.addCommand(src, it)
		case "virtualModel":
			err = m.addVirtualModel(src, it)
		case "provider":
			err = m.addProvider(src, it)
		case "mcpServer":
			err = m.addMCPServer(src, it)
		case "shortcut":
			err = m.addShortcut(src, it)
		case "renderer":
			err = m.addRenderer(src, it)
		case "flag":
			m.mu.Lock()
			m.flags[it.Name] = flagDecl{Ext: src, Description: it.Description, Type: it.Type, Default: it.Default}
			m.mu.Unlock()
		}
		if err != nil {
			m.regError(&LoadError{Path: src, Err: err})
		}
	}
	m.activate(newTools)
}

// addMCPServer hands a server an extension registered to the MCP feature
// through the seam; it goes away with the extension's registrations (a
// host restart re-registers it first, so a connected server stays up).
func (m *Manager) addMCPServer(src string, it regItem) error {
	var p struct {
		Name   string          `json:"name"`
		Config json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(it.Raw, &p); err != nil {
		return fmt.Errorf("registerMcpServer: %w", err)
	}
	if strings.TrimSpace(p.Name) == "" {
		return errors.New("registerMcpServer: the server needs a name")
	}
	if c := strings.TrimSpace(string(p.Config)); !strings.HasPrefix(c, "{") {
		return fmt.Errorf("registerMcpServer %q: config must be an object like an mcp.json entry", p.Name)
	}
	if m.opts.Hooks == nil {
		return nil
	}
	off := m.opts.Hooks.RegisterMCPServer(hooks.MCPServer{Name: p.Name, Config: p.Config, Source: src})
	m.mu.Lock()
	m.synthetic--
	m.regs[m.synthetic] = off
	m.mu.Unlock()
	return nil
}

// addShortcut binds an extension's key on the command registry; the TUI
// runs it when the key is not one of relay's bindings.
func (m *Manager) addShortcut(src string, it regItem) error {
	if m.opts.Commands == nil {
		return nil
	}
	key := it.Key
	off, err := m.opts.Commands.RegisterShortcut(commands.Shortcut{Key: key, Description: it.Description,
		Source: commands.Extension, SourceInfo: map[string]string{"path": src},
		Run: func(ctx context.Context) error {
			c, err := m.conn()
			if err != nil {
				return err
			}
			_, err = c.call(ctx, "shortcut", map[string]any{"key": key, "state": m.state()})
			m.settle()
			if err != nil {
				m.report(src, "shortcut:"+key, err)
			}
			return err
		}})
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.synthetic--
	m.regs[m.synthetic] = off
	m.mu.Unlock()
	return nil
}

// regError records a refused registration: returned by Wait during the
// first load, reported as extension_error afterwards.
func (m *Manager) regError(err error) {
	select {
	case <-m.readyCh():
		m.report(pathOf(err), "register", err)
	default:
		m.mu.Lock()
		m.regErrs = append(m.regErrs, err)
		m.mu.Unlock()
	}
}

// takeRegErrs returns and clears the recorded registration errors (under
// m.mu).
func (m *Manager) takeRegErrs() []error {
	out := m.regErrs
	m.regErrs = nil
	return out
}

func (m *Manager) addCommand(src string, it regItem) error {
	name := it.Name
	c := commands.Command{Name: name, Description: it.Description, Source: commands.Extension,
		SourceInfo: map[string]string{"path": src},
		Run: func(ctx context.Context, args string) (commands.Output, error) {
			c, err := m.conn()
			if err != nil {
				return commands.Output{}, err
			}
			// A command runs as long as it needs (it may wait for the
			// person or the agent); ctx (the front end's) bounds it.
			_, err = c.call(ctx, "command", map[string]any{"name": name, "args": args, "state": m.state()})
			m.settle()
			if err != nil {
				m.report(src, "command:"+name, err)
				return commands.Output{}, fmt.Errorf("/%s (%s): %w", name, src, err)
			}
			return commands.Output{}, nil
		}}
	if it.Completions {
		c.Complete = func(prefix string) []commands.Completion {
			raw, err := m.callTimed(context.Background(), "complete", map[string]any{"name": name, "prefix": prefix})
			if err != nil {
				return nil
			}
			var items []struct {
				Value       string `json:"value"`
				Label       string `json:"label"`
				Description string `json:"description"`
			}
			_ = json.Unmarshal(raw, &items)
			out := make([]commands.Completion, 0, len(items))
			for _, i := range items {
				v := i.Value
				if v == "" {
					v = i.Label
				}
				out = append(out, commands.Completion{Value: v, Description: i.Description})
			}
			return out
		}
	}
	if old, ok := m.opts.Commands.Get(name); ok && m.ours(old, src) {
		// A restarted host registers its commands again.
		m.opts.Commands.Unregister(name)
	} else if ok {
		by := string(old.Source)
		if info, ok := old.SourceInfo.(map[string]string); ok && info["path"] != "" {
			by = info["path"]
		}
		return fmt.Errorf("command /%s: already registered by %s", name, by)
	}
	if err := m.opts.Commands.Register(c); err != nil {
		return err
	}
	m.mu.Lock()
	if !slices.Contains(m.cmds, name) {
		m.cmds = append(m.cmds, name)
	}
	m.mu.Unlock()
	return nil
}

// ours reports a command extension src registered through this manager
// (a restarted host registering it again).
func (m *Manager) ours(c commands.Command, src string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	info, _ := c.SourceInfo.(map[string]string)
	return c.Source == commands.Extension && slices.Contains(m.cmds, c.Name) && info["path"] == src
}

// api runs one extension API call from the host: a notification (fire
// and forget) or a request answered with its result.
func (m *Manager) api(msg message) {
	var p struct {
		Ext    any               `json:"ext"`
		Method string            `json:"method"`
		Args   []json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(msg.Params, &p); err != nil {
		return
	}
	src := m.extPath(p.Ext)
	res, err := m.apiCall(src, p.Method, p.Args)
	if msg.ID == nil {
		if err != nil {
			m.report(src, p.Method, err)
		}
		return
	}
	if c, cerr := m.conn(); cerr == nil {
		c.reply(msg.ID, res, err)
	}
}

func arg[T any](args []json.RawMessage, i int) T {
	var v T
	if i < len(args) {
		_ = json.Unmarshal(args[i], &v)
	}
	return v
}

// apiCall is the Go side of the ExtensionAPI and ctx methods that need
// relay.
func (m *Manager) apiCall(src, method string, args []json.RawMessage) (any, error) {
	m.mu.Lock()
	rt := m.rt
	m.mu.Unlock()
	if strings.HasPrefix(method, "ui.") {
		return m.uiCall(src, strings.TrimPrefix(method, "ui."), args)
	}
	if rt == nil {
		return nil, fmt.Errorf("%s: not available before the session starts", method)
	}
	switch method {
	case "setSessionName":
		return nil, rt.SetSessionName(arg[string](args, 0))
	case "setActiveTools":
		if lo := m.loadout(); lo != nil {
			lo.Set(arg[[]string](args, 0))
		}
		return nil, nil
	case "setThinkingLevel":
		return nil, rt.SetThinkingLevel(llm.ThinkingLevel(arg[string](args, 0)))
	case "appendEntry":
		var data any
		if len(args) > 1 {
			data = args[1]
		}
		id, err := rt.Session().AppendCustom(arg[string](args, 0), data)
		if err == nil && m.opts.Hooks != nil {
			raw, _ := data.(json.RawMessage)
			m.opts.Hooks.Show(hooks.Shown{EntryID: id, CustomType: arg[string](args, 0), Data: raw})
		}
		return nil, err
	case "setLabel":
		_, err := rt.Session().AppendLabel(arg[string](args, 0), arg[string](args, 1))
		return nil, err
	case "abort":
		rt.Abort()
		return nil, nil
	case "waitForIdle":
		rt.WaitIdle()
		return nil, nil
	case "shutdown":
		// ctx.shutdown(): the front end quits once idle (print and JSON
		// modes end on their own: no-op there).
		if m.opts.Shutdown != nil {
			m.opts.Shutdown()
		}
		return nil, nil
	}
	if res, ok, err := m.sessionAPI(rt, src, method, args); ok {
		return res, err
	}
	return nil, fmt.Errorf("%s is not supported by relay yet", method)
}

func (m *Manager) ui() hooks.UI {
	if m.opts.Hooks == nil || !m.opts.HasUI {
		return nil
	}
	return m.opts.Hooks.UI()
}
