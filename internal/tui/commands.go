package tui

import (
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui/editor"
	"github.com/relay-agent/relay/internal/tui/keymap"
)

// command runs a slash command; ok is false for an unknown name, which is
// then sent as a prompt.
func (m *Model) command(name, args string) (tea.Cmd, bool) {
	rt, ctx := m.rt, m.ctx
	switch name {
	case "quit", "exit":
		m.quitting = true
		return nil, true
	case "hotkeys":
		text := strings.TrimRight(m.km.HotkeysText(), "\n")
		if sc := m.cmds.Shortcuts(); len(sc) > 0 {
			sort.Slice(sc, func(i, j int) bool { return sc[i].Key < sc[j].Key })
			text += "\n\nExtensions"
			for _, s := range sc {
				text += fmt.Sprintf("\n  %-20s %s", s.Key, s.Description)
			}
		}
		m.tr.AddNotice(text)
		return nil, true
	case "model":
		if args != "" {
			return m.selectModelByName(args), true
		}
		m.openModelSelector()
		return nil, true
	case "thinking":
		if args != "" {
			lvl, ok := llm.ParseThinkingLevel(args)
			if !ok {
				m.tr.AddError("unknown thinking level " + args)
				return nil, true
			}
			return m.call(func() resultMsg {
				if err := rt.SetThinkingLevel(lvl); err != nil {
					return resultMsg{err: err}
				}
				return resultMsg{notice: "Thinking level: " + string(rt.ThinkingLevel())}
			}), true
		}
		m.openThinkingSelector()
		return nil, true
	case "new":
		if m.busy {
			m.tr.AddError("wait for the agent to finish or abort it first")
			return nil, true
		}
		return m.call(func() resultMsg {
			if err := rt.NewSession(); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{notice: "Started a new session", reload: true}
		}), true
	case "name":
		if args == "" {
			n := m.info.SessionName
			if n == "" {
				n = "(unnamed)"
			}
			m.tr.AddNotice("Session name: " + n)
			return nil, true
		}
		return m.call(func() resultMsg {
			if err := rt.SetSessionName(args); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{notice: "Session name: " + args}
		}), true
	case "session":
		if m.opts.OnCommand != nil {
			break // the runtime's own /session text
		}
		rt := m.rt
		return func() tea.Msg {
			in := rt.Info()
			return resultMsg{notice: sessionText(in), info: &in}
		}, true
	case "copy":
		text := m.tr.LastAssistantText()
		if text == "" {
			m.tr.AddNotice("Nothing to copy")
			return nil, true
		}
		m.tr.AddNotice("Copied the last answer to the clipboard")
		return tea.SetClipboard(text), true
	case "compact":
		if m.busy {
			m.tr.AddError("wait for the agent to finish or abort it first")
			return nil, true
		}
		m.busy = true
		ends := m.compactEnds
		return func() tea.Msg {
			before := ends.Load()
			_, err := rt.Compact(ctx, args)
			if err != nil && ends.Load() != before {
				err = nil // the CompactionEnd event already showed it
			}
			return promptDoneMsg{err: err}
		}, true
	case "clone":
		return m.call(func() resultMsg {
			if err := rt.Clone(); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{notice: "Cloned the active branch into a new session", reload: true}
		}), true
	case "fork":
		m.openFork()
		return nil, true
	case "tree":
		m.openTree()
		return nil, true
	case "resume":
		return m.openResume(), true
	case "bug":
		if m.openBug(args) {
			return nil, true
		}
	case "login":
		m.openLogin(args)
		return nil, true
	case "logout":
		m.openLogout(args)
		return nil, true
	case "scoped-models":
		m.openScopedModels()
		return nil, true
	case "settings":
		m.openSettings()
		return nil, true
	case "reload":
		if m.opts.Reload == nil {
			break
		}
		reload := m.opts.Reload
		return func() tea.Msg {
			r, err := reload()
			return reloadMsg{r, err}
		}, true
	}
	if c, ok := m.cmds.Get(name); ok && c.Source == commands.Extension && c.Run != nil {
		// An extension's command runs off the loop: it may wait for the
		// person (dialogs, custom components) or the agent.
		return m.call(func() resultMsg {
			out, err := c.Run(ctx, args)
			return resultMsg{notice: out.Text, err: err}
		}), true
	}
	if m.opts.OnCommand != nil && m.knownCommand(name) {
		run := m.opts.OnCommand
		return m.call(func() resultMsg {
			out, err := run(ctx, name, args)
			return resultMsg{notice: out, err: err, reload: name == "import"}
		}), true
	}
	if m.knownCommand(name) {
		m.tr.AddError("/" + name + " is not available in this build")
		return nil, true
	}
	return nil, false
}

type reloadMsg struct {
	r   ReloadResult
	err error
}

func (m *Model) applyReload(msg reloadMsg) {
	if msg.err != nil {
		m.tr.AddError("reload: " + msg.err.Error())
		return
	}
	var changed []string
	if msg.r.Keymap != nil {
		m.km = msg.r.Keymap
		m.ed.SetKeymap(m.km)
	}
	if msg.r.CustomThemes != nil {
		m.opts.CustomThemes = msg.r.CustomThemes
	}
	if msg.r.ThemeSetting != "" && msg.r.ThemeSetting != m.opts.ThemeSetting {
		m.opts.ThemeSetting = msg.r.ThemeSetting
		changed = append(changed, "theme")
	}
	if msg.r.Settings != nil {
		changed = append(changed, m.applyLive(msg.r.Settings)...)
	}
	if msg.r.Commands != nil {
		m.opts.Commands = msg.r.Commands
	}
	m.setTheme(themeSelect(m.opts))
	for _, w := range msg.r.Warnings {
		m.tr.AddError(w)
	}
	lines := []string{"Reloaded keybindings, themes, settings and resources"}
	if len(changed) > 0 {
		lines = append(lines, "Settings changed: "+strings.Join(changed, ", "))
	} else if msg.r.Settings != nil {
		lines = append(lines, "Settings: unchanged")
	}
	lines = append(lines, msg.r.Notes...)
	m.tr.AddNotice(strings.Join(lines, "\n"))
}

// knownCommand reports a built-in command of the registry (the runtime's
// and the UI's own); templates and skills are not commands here: they go
// to the runtime as prompts.
func (m *Model) knownCommand(name string) bool {
	c, ok := m.cmds.Get(name)
	return ok && c.Source == commands.Builtin
}

// registerUICommands puts the UI's own commands (dialogs, /quit,
// /hotkeys ...) on the shared registry; names the runtime registered keep
// the runtime's entry.
func registerUICommands(reg *commands.Registry) {
	for _, c := range builtinCommands {
		if _, taken := reg.Get(c.Name); !taken {
			_ = reg.Register(commands.Command{Name: c.Name, Description: c.Description, Source: commands.Builtin, Frontend: true})
		}
	}
}

func sessionText(in Info) string {
	file := in.SessionFile
	if file == "" {
		file = "(not saved)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s\nFile: %s\n", in.SessionID, file)
	if in.SessionName != "" {
		fmt.Fprintf(&b, "Name: %s\n", in.SessionName)
	}
	fmt.Fprintf(&b, "Messages: %d\nTokens: %d in, %d out, %d cache read, %d cache write\nCost: $%.4f",
		in.Messages, in.InputTokens, in.OutputTokens, in.CacheRead, in.CacheWrite, in.Cost)
	if in.ContextWindow > 0 {
		fmt.Fprintf(&b, "\nContext: %d of %d tokens (%.1f%%)", in.ContextTokens, in.ContextWindow,
			float64(in.ContextTokens)*100/float64(in.ContextWindow))
	}
	return b.String()
}

func modelKey(md *llm.Model) string { return md.Provider + "/" + md.ID }

func (m *Model) openModelSelector() {
	rt := m.rt
	m.later(func() func(*Model) {
		models, cur := rt.AvailableModels(), rt.Model()
		return func(m *Model) { m.modelSelector(models, cur) }
	})
}

func (m *Model) modelSelector(models []*llm.Model, cur *llm.Model) {
	var items []selectItem
	sel := 0
	for i, md := range models {
		detail := md.Name
		if md.ContextWindow > 0 {
			detail += fmt.Sprintf(" · %s ctx", compact(md.ContextWindow))
		}
		if cur != nil && modelKey(md) == modelKey(cur) {
			detail += " · current"
			sel = i
		}
		items = append(items, selectItem{label: modelKey(md), detail: detail, value: md})
	}
	rt := m.rt
	s := newSelect("Select model", items, func(m *Model, it selectItem) tea.Cmd {
		md := it.value.(*llm.Model)
		return m.call(func() resultMsg {
			if err := rt.SetModel(md); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{notice: "Model: " + modelKey(md)}
		})
	})
	s.selected = sel
	s.extra = func(m *Model, k tea.KeyPressMsg, it selectItem) (tea.Cmd, bool) {
		c, ok := m.configurator()
		if !ok || !m.is(keymap.AppModelsSave, k) {
			return nil, false
		}
		md := it.value.(*llm.Model)
		m.overlay = nil
		return m.call(func() resultMsg {
			if err := rt.SetModel(md); err != nil {
				return resultMsg{err: err}
			}
			if err := c.SaveDefaultModel(md); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{notice: "Default model saved: " + modelKey(md)}
		}), true
	}
	s.hint = fmt.Sprintf("enter select · %s save as default · %s cancel", m.km.Label(keymap.AppModelsSave), m.km.Label(keymap.SelectCancel))
	m.overlay = s
}

func (m *Model) selectModelByName(name string) tea.Cmd {
	rt := m.rt
	return func() tea.Msg {
		models, cur := rt.AvailableModels(), rt.Model()
		for _, md := range models {
			if modelKey(md) == name || md.ID == name {
				if err := rt.SetModel(md); err != nil {
					return resultMsg{err: err}
				}
				return resultMsg{notice: "Model: " + modelKey(md)}
			}
		}
		// No exact match: open the selector filtered by the name.
		return applyMsg(func(m *Model) {
			m.modelSelector(models, cur)
			if s, ok := m.overlay.(*selectList); ok {
				s.filter = name
				s.refilter()
			}
		})
	}
}

func (m *Model) openThinkingSelector() {
	var items []selectItem
	cur := m.rt.ThinkingLevel()
	sel := 0
	for i, l := range m.rt.AvailableThinkingLevels() {
		d := ""
		if l == cur {
			d, sel = "current", i
		}
		items = append(items, selectItem{label: string(l), detail: d, value: l})
	}
	rt := m.rt
	s := newSelect("Thinking level", items, func(m *Model, it selectItem) tea.Cmd {
		l := it.value.(llm.ThinkingLevel)
		return m.call(func() resultMsg {
			if err := rt.SetThinkingLevel(l); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{notice: "Thinking level: " + string(l)}
		})
	})
	s.selected, s.noFilter = sel, true
	s.extra = func(m *Model, k tea.KeyPressMsg, it selectItem) (tea.Cmd, bool) {
		c, ok := m.configurator()
		if !ok || !m.is(keymap.AppThinkingSave, k) {
			return nil, false
		}
		l := it.value.(llm.ThinkingLevel)
		m.overlay = nil
		return m.call(func() resultMsg {
			if err := rt.SetThinkingLevel(l); err != nil {
				return resultMsg{err: err}
			}
			if err := c.SaveThinkingLevel(l); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{notice: "Default thinking level saved: " + string(l)}
		}), true
	}
	s.hint = fmt.Sprintf("enter select · %s save as default · %s cancel", m.km.Label(keymap.AppThinkingSave), m.km.Label(keymap.SelectCancel))
	m.overlay = s
}

func (m *Model) openFork() {
	if m.busy {
		m.tr.AddError("wait for the agent to finish or abort it first")
		return
	}
	rt := m.rt
	m.later(func() func(*Model) {
		points := rt.ForkPoints()
		return func(m *Model) { m.forkSelector(points) }
	})
}

func (m *Model) forkSelector(points []ForkPoint) {
	if len(points) == 0 {
		m.tr.AddNotice("No user messages to fork from")
		return
	}
	var items []selectItem
	for _, p := range points {
		items = append(items, selectItem{label: oneLine(p.Text), value: p.EntryID})
	}
	rt := m.rt
	s := newSelect("Fork from message", items, func(m *Model, it selectItem) tea.Cmd {
		id := it.value.(string)
		return m.call(func() resultMsg {
			text, err := rt.Fork(id)
			if err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{notice: "Forked into a new session", reload: true, editor: text, hasText: true}
		})
	})
	s.selected = len(items) - 1
	m.overlay = s
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return s
}

// completer answers /command completion itself and forwards @file (and
// everything else) to the configured completer.
func (m *Model) completer() editor.Completer {
	return commandCompleter{m: m, next: m.opts.Completer}
}

type commandCompleter struct {
	m    *Model
	next editor.Completer
}

func (c commandCompleter) Complete(req editor.CompletionRequest) []editor.Completion {
	if req.Kind != editor.CompleteCommand {
		if c.next != nil {
			return c.next.Complete(req)
		}
		return nil
	}
	var all []Command
	seen := map[string]bool{}
	for _, rc := range c.m.cmds.All() {
		all = append(all, Command{Name: rc.Name, Description: rc.Description})
		seen[rc.Name] = true
	}
	for _, oc := range c.m.opts.Commands {
		if !seen[oc.Name] {
			all = append(all, oc)
		}
	}
	var out []editor.Completion
	p := strings.ToLower(req.Prefix)
	for _, cmd := range all {
		if strings.HasPrefix(strings.ToLower(cmd.Name), p) {
			out = append(out, editor.Completion{Value: cmd.Name, Description: cmd.Description})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Value) < len(out[j].Value) && out[i].Value == req.Prefix })
	return out
}
