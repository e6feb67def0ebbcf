package tui

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/relay-agent/relay/internal/tui/editor"
	"github.com/relay-agent/relay/internal/tui/keymap"
)

const (
	doubleEscapeWindow = 500 * time.Millisecond
	doubleClearWindow  = time.Second
)

func (m *Model) is(action keymap.ID, k tea.KeyPressMsg) bool { return m.km.Matches(action, k) }

// handleKey routes a key by the documented precedence: an open overlay;
// transcript search; the editor's dedicated history actions; fullscreen
// transcript actions; an open completion list; application actions; and
// finally the editor.
func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	// Extensions' terminal input listeners see every key first.
	keys, consumed := m.terminalInput(k)
	if consumed {
		return nil
	}
	if len(keys) == 1 {
		return m.routeKey(keys[0])
	}
	cmds := make([]tea.Cmd, 0, len(keys))
	for _, k := range keys {
		cmds = append(cmds, m.routeKey(k))
	}
	return tea.Batch(cmds...)
}

// routeKey is handleKey for one key; a focused extension component or a
// replacement editor comes right after the modal overlays.
func (m *Model) routeKey(k tea.KeyPressMsg) tea.Cmd {
	if m.overlay != nil {
		return m.overlay.key(m, k)
	}
	if m.extKey(k) {
		return nil
	}
	if m.searching {
		return m.searchKey(k)
	}
	if m.is(keymap.EditorHistoryPrevious, k) || m.is(keymap.EditorHistoryNext, k) {
		_, cmd := m.ed.HandleKey(k)
		return cmd
	}
	if m.fullscreen {
		if handled := m.altScreenKey(k); handled {
			return nil
		}
	}
	if m.ed.CompletionOpen() && m.is(keymap.AppClear, k) {
		// ctrl+c closes the list and still clears (or exits): the list
		// must not swallow the key people press to get out.
		m.ed.CloseCompletion()
	}
	if m.ed.CompletionOpen() {
		if out, cmd := m.ed.HandleKey(k); out != editor.Ignored {
			return m.afterEditor(out, cmd)
		}
	}
	if cmd, handled := m.appKey(k); handled {
		return cmd
	}
	if cmd, ok := m.shortcutKey(k); ok {
		return cmd
	}
	out, cmd := m.ed.HandleKey(k)
	return m.afterEditor(out, cmd)
}

// shortcutKey runs an extension's shortcut bound to k (relay's own
// bindings came first); the handler runs off the update loop.
func (m *Model) shortcutKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.cmds == nil {
		return nil, false
	}
	s, ok := m.cmds.Shortcut(k.Keystroke())
	if !ok || s.Run == nil {
		return nil, false
	}
	ctx := m.ctx
	return func() tea.Msg {
		if err := s.Run(ctx); err != nil {
			return statusMsg("Shortcut " + s.Key + " failed: " + err.Error())
		}
		return nil
	}, true
}

func (m *Model) afterEditor(out editor.Outcome, cmd tea.Cmd) tea.Cmd {
	if out == editor.Submitted {
		return tea.Batch(cmd, m.submit(m.ed.TakeSubmission()))
	}
	return cmd
}

func (m *Model) altScreenKey(k tea.KeyPressMsg) bool {
	tr := m.tr
	if !m.ed.Empty() && (m.is(keymap.EditorCursorLineStart, k) || m.is(keymap.EditorCursorLineEnd, k)) {
		// While typing, home and end move the cursor; the transcript
		// takes them when the editor is empty.
		return false
	}
	m.sel = selection{}
	switch {
	case m.is(keymap.AltScreenPageUp, k):
		tr.PageUp()
	case m.is(keymap.AltScreenPageDown, k):
		tr.PageDown()
	case m.is(keymap.AltScreenHalfPageUp, k):
		tr.HalfPageUp()
	case m.is(keymap.AltScreenHalfPageDown, k):
		tr.HalfPageDown()
	case m.is(keymap.AltScreenLineUp, k):
		tr.ScrollBy(-1)
	case m.is(keymap.AltScreenLineDown, k):
		tr.ScrollBy(1)
	case m.is(keymap.AltScreenPreviousPrompt, k):
		tr.PrevPrompt()
	case m.is(keymap.AltScreenNextPrompt, k):
		tr.NextPrompt()
	case m.is(keymap.AltScreenSearch, k):
		m.searching, m.search = true, ""
	case m.is(keymap.AltScreenTop, k):
		tr.Top()
	case m.is(keymap.AltScreenBottom, k):
		tr.Bottom()
	default:
		return false
	}
	return true
}

func (m *Model) searchKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case m.is(keymap.AltScreenSearchClose, k):
		m.searching = false
		m.tr.CloseSearch()
	case m.is(keymap.AltScreenSearchPrevious, k):
		m.tr.PrevMatch()
	case m.is(keymap.AltScreenSearchNext, k):
		m.tr.NextMatch()
	case m.is(keymap.EditorDeleteCharBackward, k):
		if r := []rune(m.search); len(r) > 0 {
			m.search = string(r[:len(r)-1])
			m.tr.Search(m.search)
		}
	default:
		if k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
			m.search += k.Text
			m.tr.Search(m.search)
		}
	}
	return nil
}

// appKey runs application actions; handled is false to let the editor
// have the key (ctrl+d with text, escape with nothing to abort, ...).
func (m *Model) appKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	rt := m.rt
	switch {
	case m.sel.active && m.is(keymap.InputCopy, k):
		cmd := m.copySelection()
		m.sel = selection{}
		return cmd, true
	case m.is(keymap.AppInterrupt, k):
		return m.interrupt(), true
	case m.is(keymap.AppClear, k):
		if !m.ed.Empty() {
			m.ed.Reset()
			m.images = nil
			m.lastClear = time.Time{}
			return nil, true
		}
		if time.Since(m.lastClear) < doubleClearWindow {
			m.quitting = true
			return nil, true
		}
		m.lastClear = time.Now()
		// The hint goes when the double-press window closes: left up, it
		// would promise an exit the next press does not do.
		hint := "Press " + m.km.Label(keymap.AppClear) + " again to exit"
		m.setStatus(hint, false)
		m.noticeSeq++
		m.noticeText = hint
		seq := m.noticeSeq
		return tea.Tick(doubleClearWindow, func(time.Time) tea.Msg { return noticeExpireMsg{seq} }), true
	case m.is(keymap.AppExit, k):
		if !m.ed.Empty() {
			return nil, false
		}
		m.quitting = true
		return nil, true
	case m.is(keymap.AppSuspend, k):
		if runtime.GOOS == "windows" {
			m.setStatus("Suspending is not supported on Windows terminals", true)
			return nil, true
		}
		return tea.Suspend, true
	case m.is(keymap.AppEditorExternal, k):
		return m.externalEditor(), true
	case m.is(keymap.AppClipboardPasteImage, k):
		t := m.opts.Env.Terminal
		return func() tea.Msg { return pasteImage(t) }, true
	case m.is(keymap.AppModelSelect, k):
		m.openModelSelector()
		return nil, true
	case m.is(keymap.AppModelCycleForward, k), m.is(keymap.AppModelCycleBackward, k):
		fwd := m.is(keymap.AppModelCycleForward, k)
		return m.call(func() resultMsg {
			md, lvl, _, ok := rt.CycleModel(fwd)
			if !ok || md == nil {
				return resultMsg{notice: "No other model to cycle to"}
			}
			return resultMsg{notice: "Model: " + md.Provider + "/" + md.ID + thinkingSuffix(md.Reasoning, string(lvl))}
		}), true
	case m.is(keymap.AppThinkingCycle, k):
		return m.call(func() resultMsg {
			lvl, ok := rt.CycleThinkingLevel()
			if !ok {
				return resultMsg{notice: "The current model does not support thinking"}
			}
			return resultMsg{notice: "Thinking level: " + string(lvl)}
		}), true
	case m.is(keymap.AppThinkingToggle, k):
		m.tr.SetThinkingHidden(!m.tr.ThinkingHidden())
		state := "shown"
		if m.tr.ThinkingHidden() {
			state = "hidden"
		}
		return m.showNotice(m.toggleNote("Thinking blocks " + state)), true
	case m.is(keymap.AppToolsExpand, k):
		m.tr.SetToolsExpanded(!m.tr.ToolsExpanded())
		state := "collapsed"
		if m.tr.ToolsExpanded() {
			state = "expanded"
		}
		return m.showNotice(m.toggleNote("Tool output " + state)), true
	case m.is(keymap.AppMessageCopy, k):
		if m.sel.active && !m.opts.CopyOnSelect {
			return m.copySelection(), true
		}
		text := m.tr.LastAssistantText()
		if text == "" {
			m.setStatus("Nothing to copy", false)
			return nil, true
		}
		m.setStatus("Copied the last answer", false)
		return tea.SetClipboard(text), true
	case m.is(keymap.AppMessageFollowUp, k):
		text := strings.TrimSpace(m.ed.Value())
		if text == "" {
			return nil, true
		}
		full := m.ed.Expand(m.ed.Value())
		m.ed.AddHistory(m.ed.Value())
		m.ed.Reset()
		if !m.busy {
			return m.submit(full), true
		}
		images := m.takeImages(full)
		return func() tea.Msg { rt.FollowUp(full, images); return nil }, true
	case m.is(keymap.AppMessageDequeue, k):
		return m.restoreQueue(false), true
	case m.is(keymap.AppSessionNew, k):
		c, _ := m.command("new", "")
		return c, true
	case m.is(keymap.AppSessionTree, k):
		m.openTree()
		return nil, true
	case m.is(keymap.AppSessionFork, k):
		m.openFork()
		return nil, true
	case m.is(keymap.AppSessionResume, k):
		return m.openResume(), true
	}
	return nil, false
}

func thinkingSuffix(reasoning bool, lvl string) string {
	if !reasoning || lvl == "" {
		return ""
	}
	return " · " + lvl
}

// toggleNote words the feedback of a display toggle. Regular mode printed
// earlier blocks into the terminal's scrollback for good, so there the
// toggle only reaches what comes next: say so rather than seem broken.
func (m *Model) toggleNote(s string) string {
	if m.fullscreen {
		return s
	}
	return s + " for new output (printed blocks stay; --tui-mode fullscreen redraws them)"
}

// interrupt aborts work; with nothing running, a double escape on an
// empty editor runs doubleEscapeAction.
func (m *Model) interrupt() tea.Cmd {
	if m.bashRunning {
		rt := m.rt
		m.setStatus(abortingStatus, false)
		return func() tea.Msg { rt.AbortBash(); return nil }
	}
	if m.busy {
		m.setStatus(abortingStatus, false)
		return m.restoreQueue(true)
	}
	if !m.ed.Empty() {
		return nil
	}
	if time.Since(m.lastEsc) < doubleEscapeWindow {
		m.lastEsc = time.Time{}
		switch m.opts.DoubleEscapeAction {
		case "fork":
			m.openFork()
		case "none":
		default:
			m.openTree()
		}
		return nil
	}
	m.lastEsc = time.Now()
	return nil
}

// restoreQueue empties the steering and follow-up queues into the editor,
// ahead of what is being typed, and with abort stops the run: a message
// queued behind an aborted run would otherwise go out with the next,
// unrelated prompt. The queue is taken before the abort so no queued
// message can start a turn in between.
func (m *Model) restoreQueue(abort bool) tea.Cmd {
	rt := m.rt
	return m.call(func() resultMsg {
		q := rt.Dequeue()
		if abort {
			rt.Abort()
		}
		return resultMsg{restored: q, dequeued: true}
	})
}

// externalEditor opens the prompt in $VISUAL/$EDITOR (externalEditor
// setting first) and reads it back when the editor exits.
func (m *Model) externalEditor() tea.Cmd {
	ed := m.opts.ExternalEditor
	if ed == "" {
		ed = m.opts.Env.Terminal.Editor
	}
	if ed == "" {
		ed = "nano"
	}
	text := m.ed.Value()
	return func() tea.Msg {
		f, err := os.CreateTemp("", "relay-prompt-*.md")
		if err != nil {
			return resultMsg{err: err}
		}
		_, _ = f.WriteString(text)
		f.Close()
		return startEditorMsg{path: f.Name(), argv: strings.Fields(ed)}
	}
}

type startEditorMsg struct {
	path string
	argv []string
}

func execEditor(msg startEditorMsg) tea.Cmd {
	c := exec.Command(msg.argv[0], append(msg.argv[1:], msg.path)...)
	return tea.ExecProcess(c, func(err error) tea.Msg {
		defer os.Remove(msg.path)
		if err != nil {
			return resultMsg{err: err}
		}
		b, rerr := os.ReadFile(msg.path)
		if rerr != nil {
			return resultMsg{err: rerr}
		}
		return resultMsg{editor: strings.TrimRight(string(b), "\n"), hasText: true}
	})
}
