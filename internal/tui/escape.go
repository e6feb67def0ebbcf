package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// A lone Escape may be the first half of an Alt combination whose second
// byte arrived late (over SSH keys are split across packets). bubbletea's
// reader joins ESC and a key that arrive within its own 50 ms; beyond that
// the UI holds a lone Escape for Options.EscTimeout and turns a following
// plain key into alt+key. With the kitty keyboard protocol Escape is
// unambiguous and is handled at once.

type escFlushMsg struct{ seq int }

// keyPress routes a key press through the Escape hold.
func (m *Model) keyPress(k tea.KeyPressMsg) tea.Cmd {
	if m.escHeld {
		m.escHeld = false
		if k.Mod == 0 && k.Text != "" && k.Code != tea.KeyEscape {
			return m.handleKey(tea.KeyPressMsg{Code: k.Code, Mod: tea.ModAlt})
		}
		first := m.handleKey(tea.KeyPressMsg{Code: tea.KeyEscape})
		return tea.Batch(first, m.keyPress(k))
	}
	if k.Code == tea.KeyEscape && k.Mod == 0 && m.opts.EscTimeout > 0 && !m.kittyKeys {
		m.escHeld = true
		m.escSeq++
		seq := m.escSeq
		return tea.Tick(m.opts.EscTimeout, func(time.Time) tea.Msg { return escFlushMsg{seq} })
	}
	return m.handleKey(k)
}

// flushEsc handles a held Escape once its wait is over.
func (m *Model) flushEsc(seq int) tea.Cmd {
	if !m.escHeld || seq != m.escSeq {
		return nil
	}
	m.escHeld = false
	return m.handleKey(tea.KeyPressMsg{Code: tea.KeyEscape})
}
