package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui/keymap"
)

// Configurator is optional: a Runtime that also implements it lets the UI
// save choices to settings and manage API keys (/login, /logout,
// /settings, /scoped-models, ctrl+s in the model and thinking selectors).
type Configurator interface {
	SaveDefaultModel(m *llm.Model) error
	SaveThinkingLevel(l llm.ThinkingLevel) error
	// Providers lists every known provider and whether it has credentials.
	Providers() []ProviderStatus
	Login(provider, key string) error
	Logout(provider string) error
	// EnabledModels is the enabledModels setting ("provider/id"; nil = all).
	EnabledModels() []string
	SaveEnabledModels(ids []string) error
	// Setting reads a setting by dotted key; SetSetting saves it (user scope).
	Setting(key string) any
	SetSetting(key string, value any) error
}

// ProviderStatus is one provider for /login and /logout.
type ProviderStatus struct {
	Name   string
	Source string // where its credentials come from ("" = none)
	Stored bool   // a key in auth.json that /logout can remove
}

func (m *Model) configurator() (Configurator, bool) {
	c, ok := m.rt.(Configurator)
	return c, ok
}

// inputOverlay asks for one line of text (masked for secrets).
type inputOverlay struct {
	note     string // shown above the title (a sign-in's page and code)
	title    string
	value    string
	mask     bool
	onSubmit func(m *Model, v string) tea.Cmd
}

func (in *inputOverlay) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	switch {
	case m.is(keymap.SelectCancel, k):
		m.overlay = nil
	case m.is(keymap.SelectConfirm, k):
		m.overlay = nil
		return in.onSubmit(m, strings.TrimSpace(in.value))
	case m.is(keymap.EditorDeleteCharBackward, k):
		if r := []rune(in.value); len(r) > 0 {
			in.value = string(r[:len(r)-1])
		}
	case m.is(keymap.EditorDeleteToLineStart, k):
		in.value = ""
	default:
		if k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
			in.value += k.Text
		}
	}
	return nil
}

func (in *inputOverlay) paste(m *Model, s string) tea.Cmd {
	in.value += strings.TrimSpace(s)
	return nil
}

func (in *inputOverlay) view(m *Model, w, h int) string {
	v := in.value
	if in.mask {
		v = strings.Repeat("•", len([]rune(v)))
	}
	note := ""
	if in.note != "" {
		// Hard-wrapped, not cut: the sign-in page URL must stay whole to
		// be copied.
		note = ansi.Hardwrap(in.note, max(w, 20), true) + "\n\n"
	}
	return note + m.th.Fg("accent", in.title) + "\n> " + v + "\x1b[7m \x1b[27m\n" +
		m.th.Fg("dim", "enter confirm · "+m.km.Label(keymap.SelectCancel)+" cancel")
}

func (m *Model) openLogin(provider string) {
	c, ok := m.configurator()
	if !ok {
		m.tr.AddError("/login is not available in this build")
		return
	}
	askKey := func(p string) {
		m.overlay = &inputOverlay{title: "API key for " + p, mask: true, onSubmit: func(m *Model, key string) tea.Cmd {
			if key == "" {
				return nil
			}
			return m.call(func() resultMsg {
				if err := c.Login(p, key); err != nil {
					return resultMsg{err: err}
				}
				return resultMsg{notice: "Saved the API key for " + p}
			})
		}}
	}
	// A provider with a subscription offers both ways in.
	ask := func(p string) {
		if sc, ok := m.rt.(signInChecker); !ok || !sc.SignInProvider(p) || m.opts.OnCommand == nil {
			askKey(p)
			return
		}
		m.overlay = newSelect("Log in to "+p, []selectItem{
			{label: "Sign in with a subscription", value: true},
			{label: "Enter an API key", value: false},
		}, func(m *Model, it selectItem) tea.Cmd {
			if it.value.(bool) {
				m.signIn(p)
			} else {
				askKey(p)
			}
			return nil
		})
	}
	// "/login <provider> <more>": a sign-in method, an Enterprise host, a
	// pasted code or a key; the registered command tells them apart.
	if p, rest, ok := strings.Cut(provider, " "); ok && strings.TrimSpace(rest) != "" && m.opts.OnCommand != nil {
		run := m.opts.OnCommand
		m.pending = m.call(func() resultMsg {
			out, err := run(context.Background(), "login", p+" "+strings.TrimSpace(rest))
			return resultMsg{notice: out, err: err}
		})
		return
	}
	if provider != "" {
		ask(provider)
		return
	}
	m.later(func() func(*Model) {
		providers := c.Providers()
		return func(m *Model) {
			var items []selectItem
			for _, p := range providers {
				d := "not configured"
				if p.Source != "" {
					d = "configured (" + p.Source + ")"
				}
				items = append(items, selectItem{label: p.Name, detail: d, value: p.Name})
			}
			m.overlay = newSelect("Log in to a provider", items, func(m *Model, it selectItem) tea.Cmd {
				ask(it.value.(string))
				return nil
			})
		}
	})
}

// signInChecker is optional: a Runtime whose /login signs in to
// subscriptions for some providers.
type signInChecker interface{ SignInProvider(provider string) bool }

// signIn runs the registered /login for a subscription: its answer (the
// page to open, a device code) goes to the transcript, and when the flow
// takes a pasted code or redirect URL an input asks for it (Esc when the
// browser finished; a notice says when it did).
func (m *Model) signIn(p string) {
	run := m.opts.OnCommand
	m.later(func() func(*Model) {
		out, err := run(context.Background(), "login", p)
		return func(m *Model) {
			if err != nil {
				m.tr.AddError(err.Error())
				return
			}
			m.tr.AddNotice(out)
			if !strings.Contains(out, "/login "+p+" <code>") {
				return
			}
			m.overlay = &inputOverlay{note: out, title: "Paste the code or redirect URL for " + p + " (Esc if the browser finished)",
				onSubmit: func(m *Model, code string) tea.Cmd {
					if code == "" {
						return nil
					}
					return m.call(func() resultMsg {
						out, err := run(context.Background(), "login", p+" "+code)
						return resultMsg{notice: out, err: err}
					})
				}}
		}
	})
}

func (m *Model) openLogout(provider string) {
	c, ok := m.configurator()
	if !ok {
		m.tr.AddError("/logout is not available in this build")
		return
	}
	logout := func(p string) tea.Cmd {
		return m.call(func() resultMsg {
			if err := c.Logout(p); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{notice: "Removed the stored credentials for " + p}
		})
	}
	if provider != "" {
		m.pending = logout(provider)
		return
	}
	m.later(func() func(*Model) {
		providers := c.Providers()
		return func(m *Model) {
			var items []selectItem
			for _, p := range providers {
				if p.Stored {
					items = append(items, selectItem{label: p.Name, value: p.Name})
				}
			}
			if len(items) == 0 {
				m.tr.AddNotice("No stored credentials")
				return
			}
			m.overlay = newSelect("Log out of a provider", items, func(m *Model, it selectItem) tea.Cmd {
				return logout(it.value.(string))
			})
		}
	})
}

// scopedModels is the /scoped-models selector: which models ctrl+p cycles
// through, and in which order.
type scopedModels struct {
	models   []*llm.Model
	enabled  map[string]bool
	filter   string
	shown    []int
	selected int
}

func (m *Model) openScopedModels() {
	c, ok := m.configurator()
	if !ok {
		m.tr.AddError("/scoped-models is not available in this build")
		return
	}
	rt := m.rt
	m.later(func() func(*Model) {
		all, ids := rt.AvailableModels(), c.EnabledModels()
		return func(m *Model) { m.scopedSelector(all, ids) }
	})
}

func (m *Model) scopedSelector(all []*llm.Model, ids []string) {
	enabled := map[string]bool{}
	order := map[string]int{}
	for i, id := range ids {
		enabled[id] = true
		order[id] = i
	}
	models := append([]*llm.Model(nil), all...)
	// Enabled models first, in their cycle order.
	sort.SliceStable(models, func(i, j int) bool {
		oi, iok := order[modelKey(models[i])]
		oj, jok := order[modelKey(models[j])]
		if iok != jok {
			return iok
		}
		return iok && oi < oj
	})
	if len(ids) == 0 {
		for _, md := range models {
			enabled[modelKey(md)] = true
		}
	}
	s := &scopedModels{models: models, enabled: enabled}
	s.refilter()
	m.overlay = s
}

func (s *scopedModels) refilter() {
	s.shown = s.shown[:0]
	q := strings.ToLower(s.filter)
	for i, md := range s.models {
		if q == "" || matchWords(strings.ToLower(modelKey(md)+" "+md.Name), q) {
			s.shown = append(s.shown, i)
		}
	}
	s.selected = max(0, min(s.selected, len(s.shown)-1))
}

func (s *scopedModels) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	cur := func() *llm.Model {
		if len(s.shown) == 0 {
			return nil
		}
		return s.models[s.shown[s.selected]]
	}
	switch {
	case m.is(keymap.SelectCancel, k):
		m.overlay = nil
	case m.is(keymap.AppModelsReorderUp, k), m.is(keymap.AppModelsReorderDown, k):
		d := 1
		if m.is(keymap.AppModelsReorderUp, k) {
			d = -1
		}
		if s.filter != "" || len(s.shown) == 0 {
			return nil
		}
		i, j := s.shown[s.selected], s.shown[s.selected]+d
		if j >= 0 && j < len(s.models) {
			s.models[i], s.models[j] = s.models[j], s.models[i]
			s.selected += d
		}
	case m.is(keymap.SelectUp, k):
		if n := len(s.shown); n > 0 {
			s.selected = (s.selected - 1 + n) % n
		}
	case m.is(keymap.SelectDown, k):
		if n := len(s.shown); n > 0 {
			s.selected = (s.selected + 1) % n
		}
	case m.is(keymap.SelectConfirm, k):
		if md := cur(); md != nil {
			s.enabled[modelKey(md)] = !s.enabled[modelKey(md)]
		}
	case m.is(keymap.AppModelsEnableAll, k), m.is(keymap.AppModelsClearAll, k):
		on := m.is(keymap.AppModelsEnableAll, k)
		for _, i := range s.shown {
			s.enabled[modelKey(s.models[i])] = on
		}
	case m.is(keymap.AppModelsToggleProvider, k):
		md := cur()
		if md == nil {
			return nil
		}
		on := !s.enabled[modelKey(md)]
		for _, x := range s.models {
			if x.Provider == md.Provider {
				s.enabled[modelKey(x)] = on
			}
		}
	case m.is(keymap.AppModelsSave, k):
		c, _ := m.configurator()
		var ids []string
		for _, md := range s.models {
			if s.enabled[modelKey(md)] {
				ids = append(ids, modelKey(md))
			}
		}
		if len(ids) == len(s.models) {
			ids = nil // all models: no restriction
		}
		m.overlay = nil
		return m.call(func() resultMsg {
			if err := c.SaveEnabledModels(ids); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{notice: fmt.Sprintf("Saved %d scoped models to settings", len(ids))}
		})
	case m.is(keymap.EditorDeleteCharBackward, k):
		if r := []rune(s.filter); len(r) > 0 {
			s.filter = string(r[:len(r)-1])
			s.refilter()
		}
	default:
		if k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
			s.filter += k.Text
			s.refilter()
		}
	}
	return nil
}

func (s *scopedModels) paste(m *Model, t string) tea.Cmd {
	s.filter += strings.TrimSpace(t)
	s.refilter()
	return nil
}

func (s *scopedModels) view(m *Model, w, h int) string {
	th := m.th
	n := 0
	for _, v := range s.enabled {
		if v {
			n++
		}
	}
	lines := []string{th.Fg("accent", "Scoped models") + th.Fg("muted", fmt.Sprintf("  %d enabled", n)),
		th.Fg("muted", "Filter: ") + s.filter}
	rows := max(1, h-len(lines)-2)
	lines = append(lines, listRows(m, w, rows, len(s.shown), s.selected, func(i int) (string, string) {
		md := s.models[s.shown[i]]
		box := "[ ] "
		if s.enabled[modelKey(md)] {
			box = "[x] "
		}
		return box + modelKey(md), md.Name
	})...)
	km := m.km
	lines = append(lines, th.Fg("dim", ansi.Truncate(fmt.Sprintf("enter toggle · %s all · %s none · %s provider · %s/%s reorder · %s save · esc close",
		km.Label(keymap.AppModelsEnableAll), km.Label(keymap.AppModelsClearAll), km.Label(keymap.AppModelsToggleProvider),
		km.Label(keymap.AppModelsReorderUp), km.Label(keymap.AppModelsReorderDown), km.Label(keymap.AppModelsSave)), w, "…")))
	return strings.Join(lines, "\n")
}

// settingDef is one entry of /settings: a key and the values it cycles
// through (nil values: a boolean).
type settingDef struct {
	key    string
	desc   string
	def    any // the value when the setting is not set
	values []any
	apply  func(m *Model, v any)
	// onRestart: the running UI cannot switch; the value is saved for the
	// next start, and the user is told so.
	onRestart bool
}

var settingDefs = []settingDef{
	{key: "theme", desc: "Built-in or custom theme name; system derives colours from the terminal", def: "system", values: []any{"system", "dark", "light", "light/dark"}, apply: func(m *Model, v any) {
		m.opts.ThemeSetting = fmt.Sprint(v)
		m.applyThemeSetting()
	}},
	{key: "hideThinkingBlock", desc: "Hide thinking blocks in the transcript", def: false, apply: func(m *Model, v any) { m.tr.SetThinkingHidden(v == true) }},
	{key: "tuiMode", desc: "Interactive terminal UI mode", def: "fullscreen", values: []any{"fullscreen", "regular"}, onRestart: true},
	{key: "fullscreenScrollbar", desc: "Fullscreen transcript scrollbar behaviour", def: "auto", values: []any{"auto", "always", "hidden"}, apply: func(m *Model, v any) { m.opts.FullscreenScrollbar = fmt.Sprint(v) }},
	{key: "doubleEscapeAction", desc: "Action for double Escape with an empty editor", def: "tree", values: []any{"tree", "fork", "none"}, apply: func(m *Model, v any) { m.opts.DoubleEscapeAction = fmt.Sprint(v) }},
	{key: "treeFilterMode", desc: "Initial filter used by /tree", def: "default", values: []any{"default", "no-tools", "user-only", "labeled-only", "all"}, apply: func(m *Model, v any) { m.opts.TreeFilterMode = fmt.Sprint(v) }},
	{key: "steeringMode", desc: "How queued steering messages are delivered", def: "one-at-a-time", values: []any{"one-at-a-time", "all"}},
	{key: "followUpMode", desc: "How queued follow-up messages are delivered", def: "one-at-a-time", values: []any{"one-at-a-time", "all"}},
	{key: "quietStartup", desc: "Hide the startup header and loaded-resource listing", def: false},
	{key: "showHardwareCursor", desc: "Show the terminal cursor for input methods", def: false, apply: func(m *Model, v any) { m.opts.ShowHardwareCursor = v == true }},
	{key: "outputPad", desc: "Horizontal transcript padding", def: 1, values: []any{0, 1}, onRestart: true},
	{key: "editorPaddingX", desc: "Horizontal editor padding, 0 to 3 cells", def: 0, values: []any{0, 1, 2, 3}, apply: func(m *Model, v any) { m.opts.EditorPaddingX, _ = v.(int) }},
	{key: "autocompleteMaxVisible", desc: "Visible autocomplete entries, 3 to 20", def: 5, values: []any{3, 5, 8, 10, 15, 20}, apply: func(m *Model, v any) {
		n, _ := v.(int)
		m.ed.SetMaxVisible(n)
	}},
	{key: "branchSummary.skipPrompt", desc: "Skip the branch-summary prompt and default to no summary", def: false, apply: func(m *Model, v any) { m.opts.BranchSummarySkip = v == true }},
	{key: "compaction.enabled", desc: "Enable automatic compaction", def: true},
	{key: "retry.enabled", desc: "Retry transient failures automatically", def: true},
	{key: "markdown.mermaid", desc: "Draw Mermaid diagrams: while streaming, once the answer is complete, or not", def: "streaming",
		values: []any{"streaming", "final", "off"}, apply: func(m *Model, v any) {
			m.opts.Mermaid = fmt.Sprint(v)
			m.setTheme(m.th) // a new renderer redraws the transcript
		}},
	{key: "collapseChangelog", desc: "Show one line instead of the changelog after an update", def: false},
	{key: "enableInstallTelemetry", desc: "Send provider attribution headers (OpenRouter, NVIDIA NIM, Cloudflare)", def: true, onRestart: true},
	{key: "warnings.anthropicExtraUsage", desc: "Warn when Anthropic subscription sign-in may use paid extra usage", def: true, onRestart: true},
}

func (m *Model) applyThemeSetting() {
	m.setTheme(themeSelect(m.opts))
}

func (m *Model) openSettings() {
	c, ok := m.configurator()
	if !ok {
		m.tr.AddError("/settings is not available in this build")
		return
	}
	var items []selectItem
	for i, d := range settingDefs {
		items = append(items, selectItem{label: d.key, detail: fmt.Sprint(settingValue(c, d)), desc: d.desc, value: i})
	}
	var s *selectList
	s = newSelect("Settings", items, func(m *Model, it selectItem) tea.Cmd {
		d := settingDefs[it.value.(int)]
		next := nextValue(d, settingValue(c, d))
		if d.apply != nil {
			d.apply(m, next)
		}
		// Keep the list open on the same row with the new value.
		s.items[it.value.(int)].detail = fmt.Sprint(next)
		m.overlay = s
		var note tea.Cmd
		if d.onRestart {
			note = m.showNotice(fmt.Sprintf("%s: %v takes effect the next time relay starts", d.key, next))
		}
		return tea.Batch(note, m.call(func() resultMsg {
			if err := c.SetSetting(d.key, next); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{}
		}))
	})
	s.hint = "enter changes the value (saved to your settings) · esc close"
	m.overlay = s
}

// settingValue is a setting's value, or its default when it is not set.
func settingValue(c Configurator, d settingDef) any {
	if v := c.Setting(d.key); v != nil {
		return v
	}
	return d.def
}

func nextValue(d settingDef, cur any) any {
	if d.values == nil {
		b, _ := cur.(bool)
		return !b
	}
	for i, v := range d.values {
		if fmt.Sprint(v) == fmt.Sprint(cur) {
			return d.values[(i+1)%len(d.values)]
		}
	}
	return d.values[0]
}
