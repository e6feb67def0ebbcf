package tui

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/tui/theme"
)

// Approver is the TUI's side of hooks.UI (named for its first user, the
// harness's authorization gate): extensions and features call it from any
// goroutine; each call becomes an operation the update loop applies, so
// the model is only ever touched there. Dialogs wait for their answer;
// everything else returns at once. What callers may read without the loop
// (the editor's text, tool expansion, the theme) is mirrored here after
// every update.
type Approver struct {
	mu   sync.Mutex
	ops  []func(*Model)
	wake chan struct{}

	done     chan struct{} // closed when the UI has gone
	doneOnce sync.Once

	editorText    atomic.Pointer[string]
	editorComp    atomic.Pointer[hooks.EditorComponent]
	toolsExpanded atomic.Bool
	theme         atomic.Pointer[hooks.Theme]
	themes        atomic.Pointer[[]hooks.ThemeRef]

	inMu   sync.Mutex
	inputs []*inputSub
}

type inputSub struct{ fn hooks.TerminalInputFunc }

var _ hooks.UI = (*Approver)(nil)

// NewApprover returns the UI bridge to bind on the hook seam and to hand
// to the UI in Options.Approver.
func NewApprover() *Approver {
	return &Approver{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Close makes pending and later questions fail with hooks.ErrUIClosed (Run
// calls it on exit).
func (a *Approver) Close() { a.doneOnce.Do(func() { close(a.done) }) }

// maxPendingOps bounds the operations waiting for the loop: a caller that
// floods (a widget updated in a tight loop) loses its oldest updates
// rather than growing memory without end.
const maxPendingOps = 4096

// post queues op for the update loop; false when the UI has gone.
func (a *Approver) post(op func(*Model)) bool {
	select {
	case <-a.done:
		return false
	default:
	}
	a.mu.Lock()
	if len(a.ops) >= maxPendingOps {
		a.ops = slices.Delete(a.ops, 0, len(a.ops)-maxPendingOps+1)
	}
	a.ops = append(a.ops, op)
	a.mu.Unlock()
	select {
	case a.wake <- struct{}{}:
	default:
	}
	return true
}

type uiOpsMsg []func(*Model)

// wait is the Cmd that delivers the queued operations to the update loop.
func (a *Approver) wait(ctx context.Context) tea.Cmd {
	return func() tea.Msg {
		for {
			a.mu.Lock()
			ops := a.ops
			a.ops = nil
			a.mu.Unlock()
			if len(ops) > 0 {
				return uiOpsMsg(ops)
			}
			select {
			case <-a.wake:
			case <-ctx.Done():
				return nil
			case <-a.done:
				return nil
			}
		}
	}
}

// call runs fn on the loop and waits (bounded) for its result: for the few
// methods that return something only the loop knows.
func (a *Approver) call(fn func(*Model) error) error {
	res := make(chan error, 1)
	if !a.post(func(m *Model) { res <- fn(m) }) {
		return hooks.ErrUIClosed
	}
	select {
	case err := <-res:
		return err
	case <-a.done:
		return hooks.ErrUIClosed
	case <-time.After(5 * time.Second):
		return errors.New("the UI did not answer in time")
	}
}

// extState is what extensions set on the screen; the loop owns it.
type extState struct {
	statuses      map[string]string
	widgets       map[string]*extWidget
	widgetOrder   []string
	footer        *compView
	header        *compView
	headerPrinted bool
	title         string
	workingMsg    string
	workingHidden bool
	indicator     *hooks.WorkingIndicator
	customs       []*customView // inline and overlay components, oldest first
	editor        *compView     // replacement prompt editor
	edText        string        // last mirrored editor text
}

type extWidget struct {
	lines     []string
	comp      *compView
	placement hooks.Placement
}

// mirror publishes what callers read without the loop; Update calls it
// last.
func (m *Model) mirror() {
	a := m.opts.Approver
	if a == nil {
		return
	}
	if v := m.ed.Value(); v != m.ext.edText || a.editorText.Load() == nil {
		m.ext.edText = v
		a.editorText.Store(&v)
	}
	a.toolsExpanded.Store(m.tr.ToolsExpanded())
}

// publishTheme mirrors the active theme for components (setTheme calls it).
func (m *Model) publishTheme() {
	a := m.opts.Approver
	if a == nil || m.th == nil {
		return
	}
	t := hooks.Theme{Name: m.th.Name, Appearance: m.th.Appearance,
		Fg: map[string]string{}, FgEnd: map[string]string{}, Bg: map[string]string{}}
	for _, r := range theme.Roles() {
		t.Fg[r], t.FgEnd[r], t.Bg[r] = m.th.FgSeq(r), m.th.FgEnd(r), m.th.BgSeq(r)
	}
	a.theme.Store(&t)
	refs := []hooks.ThemeRef{{Name: "dark"}, {Name: "light"}, {Name: "system"}}
	names := make([]string, 0, len(m.opts.CustomThemes))
	for n := range m.opts.CustomThemes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		refs = append(refs, hooks.ThemeRef{Name: n, Path: m.opts.CustomThemes[n].Source})
	}
	a.themes.Store(&refs)
}

// Dialogs.

func (a *Approver) Select(ctx context.Context, title string, options []string) (string, bool, error) {
	r, err := a.ask(ctx, func(b dialogBase) dialog { b.title = title; return newSelectDialog(b, options) })
	return r.text, r.ok, err
}

func (a *Approver) Input(ctx context.Context, title, placeholder string) (string, bool, error) {
	r, err := a.ask(ctx, func(b dialogBase) dialog { b.title = title; return newTextDialog(b, placeholder, "", false) })
	return r.text, r.ok, err
}

func (a *Approver) Editor(ctx context.Context, title, prefill string) (string, bool, error) {
	r, err := a.ask(ctx, func(b dialogBase) dialog { b.title = title; return newTextDialog(b, "", prefill, true) })
	return r.text, r.ok, err
}

// Chrome.

func (a *Approver) Notify(level hooks.Level, message string) {
	a.post(func(m *Model) {
		switch level {
		case hooks.LevelError:
			m.tr.AddError(message)
		case hooks.LevelWarning:
			m.tr.AddNotice(m.th.Fg("warning", "Warning: "+message))
		default:
			m.tr.AddNotice(message)
		}
	})
}

func (a *Approver) SetStatus(key, text string) {
	a.post(func(m *Model) {
		if text == "" {
			delete(m.ext.statuses, key)
			return
		}
		if m.ext.statuses == nil {
			m.ext.statuses = map[string]string{}
		}
		m.ext.statuses[key] = text
	})
}

func (a *Approver) SetWidget(key string, w *hooks.Widget) {
	a.post(func(m *Model) {
		if old := m.ext.widgets[key]; old != nil && old.comp != nil {
			m.disposeComp(old.comp)
		}
		if w == nil {
			delete(m.ext.widgets, key)
			m.ext.widgetOrder = slices.DeleteFunc(m.ext.widgetOrder, func(k string) bool { return k == key })
			return
		}
		if m.ext.widgets == nil {
			m.ext.widgets = map[string]*extWidget{}
		}
		if _, ok := m.ext.widgets[key]; !ok {
			m.ext.widgetOrder = append(m.ext.widgetOrder, key)
		}
		ew := &extWidget{lines: slices.Clone(w.Lines), placement: w.Placement}
		if w.Component != nil {
			ew.comp = m.attachComp(w.Component)
		}
		m.ext.widgets[key] = ew
	})
}

func (a *Approver) SetFooter(c hooks.Component) {
	a.post(func(m *Model) { m.ext.footer = m.replaceComp(m.ext.footer, c) })
}

func (a *Approver) SetHeader(c hooks.Component) {
	a.post(func(m *Model) {
		m.ext.header = m.replaceComp(m.ext.header, c)
		m.ext.headerPrinted = false
	})
}

func (a *Approver) SetTitle(title string) { a.post(func(m *Model) { m.ext.title = title }) }

func (a *Approver) SetWorkingMessage(message string) {
	a.post(func(m *Model) { m.ext.workingMsg = message })
}

func (a *Approver) SetWorkingVisible(visible bool) {
	a.post(func(m *Model) { m.ext.workingHidden = !visible })
}

func (a *Approver) SetWorkingIndicator(w *hooks.WorkingIndicator) {
	if w != nil {
		w = &hooks.WorkingIndicator{Frames: slices.Clone(w.Frames), Interval: w.Interval}
		if w.Frames == nil {
			w.Frames = []string{}
		}
	}
	a.post(func(m *Model) { m.ext.indicator = w })
}

func (a *Approver) SetHiddenThinkingLabel(label string) {
	a.post(func(m *Model) { m.tr.SetThinkingLabel(label) })
}

func (a *Approver) ToolsExpanded() bool { return a.toolsExpanded.Load() }

func (a *Approver) SetToolsExpanded(expanded bool) {
	a.toolsExpanded.Store(expanded)
	a.post(func(m *Model) { m.tr.SetToolsExpanded(expanded) })
}

func (a *Approver) Theme() hooks.Theme {
	if t := a.theme.Load(); t != nil {
		return *t
	}
	return hooks.Theme{}
}

func (a *Approver) Themes() []hooks.ThemeRef {
	if t := a.themes.Load(); t != nil {
		return slices.Clone(*t)
	}
	return nil
}

func (a *Approver) SetTheme(name string) error {
	return a.call(func(m *Model) error {
		if theme.Builtin(name) == nil && name != "system" && m.opts.CustomThemes[name] == nil {
			return errors.New("theme not found: " + name)
		}
		m.opts.ThemeSetting = name
		m.setTheme(themeSelect(m.opts))
		return nil
	})
}

// Editor access.

func (a *Approver) SetEditorText(text string) {
	a.post(func(m *Model) {
		if m.ext.editor != nil {
			if e, ok := m.ext.editor.c.(hooks.EditorComponent); ok {
				e.SetText(text)
				return
			}
		}
		m.ed.SetValue(text)
	})
}

func (a *Approver) EditorText() string {
	if e := a.editorComp.Load(); e != nil {
		return (*e).Text()
	}
	if s := a.editorText.Load(); s != nil {
		return *s
	}
	return ""
}

func (a *Approver) PasteToEditor(text string) {
	a.post(func(m *Model) {
		if m.ext.editor != nil {
			m.ext.editor.c.HandleInput(pasteData(text))
			return
		}
		m.ed.Paste(text)
	})
}

func (a *Approver) SetEditorComponent(e hooks.EditorComponent) {
	if e == nil {
		a.editorComp.Store(nil)
	} else {
		a.editorComp.Store(&e)
	}
	a.post(func(m *Model) {
		if old := m.ext.editor; old != nil {
			// The draft moves back to whichever editor comes next.
			if oe, ok := old.c.(hooks.EditorComponent); ok && e == nil {
				m.ed.SetValue(oe.Text())
			}
			m.disposeComp(old)
			m.ext.editor = nil
		}
		if e == nil {
			return
		}
		m.ext.editor = m.attachEditorComp(e)
		// The replacement starts from the draft, and is told it has focus.
		e.SetText(m.ed.Value())
		m.refocus()
	})
}

func (a *Approver) OnTerminalInput(fn hooks.TerminalInputFunc) func() {
	sub := &inputSub{fn: fn}
	a.inMu.Lock()
	a.inputs = append(a.inputs, sub)
	a.inMu.Unlock()
	return func() {
		a.inMu.Lock()
		a.inputs = slices.DeleteFunc(a.inputs, func(s *inputSub) bool { return s == sub })
		a.inMu.Unlock()
	}
}

// terminalInput runs the listeners over a key: consumed, or the keys to
// handle (the same one unless a listener replaced its data).
func (m *Model) terminalInput(k tea.KeyPressMsg) (keys []tea.KeyPressMsg, consumed bool) {
	a := m.opts.Approver
	if a == nil {
		return []tea.KeyPressMsg{k}, false
	}
	a.inMu.Lock()
	subs := slices.Clone(a.inputs)
	a.inMu.Unlock()
	if len(subs) == 0 {
		return []tea.KeyPressMsg{k}, false
	}
	orig := keyData(k)
	data := orig
	for _, s := range subs {
		out, consume := s.fn(data)
		if consume {
			return nil, true
		}
		data = out
	}
	if data == orig {
		return []tea.KeyPressMsg{k}, false
	}
	return decodeKeys(data), false
}

// workingRow is the status line's text while the agent works.
func (m *Model) workingRow() (frame, text string, show bool) {
	if m.ext.workingHidden {
		return "", "", false
	}
	text = "Working…"
	if m.ext.workingMsg != "" {
		text = m.ext.workingMsg
	}
	frame = spinner[m.spin%len(spinner)]
	if ind := m.ext.indicator; ind != nil {
		frame = ""
		if n := len(ind.Frames); n > 0 {
			// The tick is 120ms; a custom interval steps frames by time.
			i := m.spin
			if ind.Interval > 0 {
				i = int(time.Duration(m.spin) * 120 * time.Millisecond / ind.Interval)
			}
			frame = ind.Frames[i%n]
		}
	}
	return frame, text, true
}

// statusEntries is the extensions' status line, entries in key order.
func (m *Model) statusEntries() []string {
	if len(m.ext.statuses) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m.ext.statuses))
	for k := range m.ext.statuses {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, m.ext.statuses[k])
	}
	return out
}
