package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/tui/keymap"
)

// dialog is a modal question of hooks.UI (confirm, select, input,
// editor). One shows at a time; the others wait behind it. A dialog whose
// caller stopped waiting (its ctx ended: timeout or abort) goes away.
type dialog interface {
	overlay
	base() *dialogBase
}

// dialogBase is what every dialog shares: the caller's context, the reply
// channel (buffered: the UI never blocks on it) and the overlay it hides.
type dialogBase struct {
	ctx   context.Context
	reply chan dialogAnswer
	prev  overlay
	title string
}

func (d *dialogBase) base() *dialogBase { return d }

type dialogAnswer struct {
	text string
	ok   bool
}

// ask shows the dialog open builds and waits for the answer, ctx's end or
// the UI's exit.
func (a *Approver) ask(ctx context.Context, open func(b dialogBase) dialog) (dialogAnswer, error) {
	if err := ctx.Err(); err != nil {
		return dialogAnswer{}, err
	}
	reply := make(chan dialogAnswer, 1)
	d := open(dialogBase{ctx: ctx, reply: reply})
	if !a.post(func(m *Model) { m.openDialog(d) }) {
		return dialogAnswer{}, hooks.ErrUIClosed
	}
	select {
	case r := <-reply:
		return r, nil
	case <-ctx.Done():
		// The dialog closes as soon as its caller stops waiting, not at
		// the next key press.
		a.post(func(m *Model) { m.dropStaleDialogs() })
		return dialogAnswer{}, ctx.Err()
	case <-a.done:
		return dialogAnswer{}, hooks.ErrUIClosed
	}
}

// Confirm asks a yes/no question (the harness's authorization gate, an
// extension's ctx.ui.confirm). It fails with the context's error when the
// run is aborted or the dialog times out, ErrUIClosed when the UI has gone.
func (a *Approver) Confirm(ctx context.Context, title, message string) (bool, error) {
	r, err := a.ask(ctx, func(b dialogBase) dialog {
		b.title = title
		return &confirmDialog{dialogBase: b, message: message}
	})
	return r.ok, err
}

func (m *Model) openDialog(d dialog) {
	if d.base().ctx.Err() != nil {
		return
	}
	if _, ok := m.overlay.(dialog); ok {
		// One question at a time: a second one waits behind the first.
		m.dialogQueue = append(m.dialogQueue, d)
		return
	}
	d.base().prev = m.overlay
	m.overlay = d
	m.setStatus("", false)
}

// answer replies once and closes the dialog.
func (m *Model) answer(d dialog, r dialogAnswer) {
	select {
	case d.base().reply <- r:
	default:
	}
	m.closeDialog(d)
}

func (m *Model) closeDialog(d dialog) {
	prev := d.base().prev
	m.overlay = prev
	for len(m.dialogQueue) > 0 {
		next := m.dialogQueue[0]
		m.dialogQueue = m.dialogQueue[1:]
		if next.base().ctx.Err() == nil {
			next.base().prev = prev
			m.overlay = next
			break
		}
	}
}

// dropStaleDialogs closes dialogs whose caller stopped waiting.
func (m *Model) dropStaleDialogs() {
	live := m.dialogQueue[:0]
	for _, d := range m.dialogQueue {
		if d.base().ctx.Err() == nil {
			live = append(live, d)
		}
	}
	clear(m.dialogQueue[len(live):])
	m.dialogQueue = live
	for {
		d, ok := m.overlay.(dialog)
		if !ok || d.base().ctx.Err() == nil {
			break
		}
		m.closeDialog(d)
	}
}

// heading is the dialog's title with the time left when it has a timeout.
func (d *dialogBase) heading(m *Model, role, prefix string) string {
	h := "\x1b[1m" + m.th.Fg(role, prefix+d.title) + "\x1b[22m"
	if hooks.DialogTimeout(d.ctx) > 0 {
		if dl, ok := d.ctx.Deadline(); ok {
			left := max(0, time.Until(dl).Round(time.Second))
			h += m.th.Fg("dim", fmt.Sprintf(" (%ds)", int(left/time.Second)))
		}
	}
	return h
}

// confirmDialog is the modal y/n question.
type confirmDialog struct {
	dialogBase
	message string
}

func (c *confirmDialog) reply(m *Model, ok bool) {
	m.answer(c, dialogAnswer{ok: ok})
	if ok {
		m.setStatus("Allowed: "+c.title, false)
	} else {
		m.setStatus("Refused: "+c.title, true)
	}
}

func (c *confirmDialog) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	switch {
	case k.Text == "y" || k.Text == "Y" || m.is(keymap.SelectConfirm, k):
		c.reply(m, true)
	case k.Text == "n" || k.Text == "N" || m.is(keymap.SelectCancel, k) || m.is(keymap.AppInterrupt, k):
		c.reply(m, false)
	}
	return nil
}

func (c *confirmDialog) paste(*Model, string) tea.Cmd { return nil }

func (c *confirmDialog) view(m *Model, w, h int) string {
	var b strings.Builder
	b.WriteString(c.heading(m, "warning", "⚠ "))
	b.WriteString("\n")
	lines := 0
	for _, l := range strings.Split(strings.TrimRight(c.message, "\n"), "\n") {
		if lines >= max(1, h-3) {
			b.WriteString(m.th.Fg("dim", "…") + "\n")
			break
		}
		b.WriteString(ansi.Wrap(l, max(10, w-2), "") + "\n")
		lines++
	}
	b.WriteString(m.th.Fg("dim", "y allow · n refuse ("+m.km.Label(keymap.SelectConfirm)+" / "+m.km.Label(keymap.SelectCancel)+")"))
	return b.String()
}
