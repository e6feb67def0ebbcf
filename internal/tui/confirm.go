package tui

import (
	"context"
	"errors"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/tui/keymap"
)

// Approver is the interactive authorization gate: the harness calls
// Confirm from the agent goroutine, the UI shows a y/n dialog, and Confirm
// returns the answer. It implements app.Approver.
type Approver struct {
	reqs     chan *confirmReq
	done     chan struct{} // closed when the UI has gone
	doneOnce sync.Once
}

// NewApprover returns an approver to install with rt.SetApprover and to
// hand to the UI in Options.Approver.
func NewApprover() *Approver {
	return &Approver{reqs: make(chan *confirmReq), done: make(chan struct{})}
}

// errUIClosed answers questions asked after the UI has exited.
var errUIClosed = errors.New("the interactive UI has closed")

// Close makes pending and later questions fail (Run calls it on exit).
func (a *Approver) Close() { a.doneOnce.Do(func() { close(a.done) }) }

type confirmReq struct {
	ctx            context.Context
	title, message string
	reply          chan bool // buffered: the UI never blocks on it
}

// Confirm asks the person and waits for the answer. It fails with the
// context's error when the run is aborted or the UI has gone.
func (a *Approver) Confirm(ctx context.Context, title, message string) (bool, error) {
	r := &confirmReq{ctx: ctx, title: title, message: message, reply: make(chan bool, 1)}
	select {
	case a.reqs <- r:
	case <-ctx.Done():
		return false, ctx.Err()
	case <-a.done:
		return false, errUIClosed
	}
	select {
	case ok := <-r.reply:
		return ok, nil
	case <-ctx.Done():
		return false, ctx.Err()
	case <-a.done:
		return false, errUIClosed
	}
}

type confirmMsg struct{ req *confirmReq }

// wait is the Cmd that delivers the next request to the update loop.
func (a *Approver) wait(ctx context.Context) tea.Cmd {
	return func() tea.Msg {
		select {
		case r := <-a.reqs:
			return confirmMsg{r}
		case <-ctx.Done():
			return nil
		}
	}
}

// confirmDialog is the modal y/n question; it hides (and keeps) whatever
// overlay was open and restores it when answered.
type confirmDialog struct {
	req  *confirmReq
	prev overlay
}

func (m *Model) openConfirm(r *confirmReq) {
	if _, ok := m.overlay.(*confirmDialog); ok {
		// One question at a time: a second one waits behind the first.
		m.confirmQueue = append(m.confirmQueue, r)
		return
	}
	m.overlay = &confirmDialog{req: r, prev: m.overlay}
	m.setStatus("", false)
}

func (c *confirmDialog) answer(m *Model, ok bool) {
	c.req.reply <- ok
	m.closeConfirm(c)
	if ok {
		m.setStatus("Allowed: "+c.req.title, false)
	} else {
		m.setStatus("Refused: "+c.req.title, true)
	}
}

func (m *Model) closeConfirm(c *confirmDialog) {
	m.overlay = c.prev
	if len(m.confirmQueue) > 0 {
		next := m.confirmQueue[0]
		m.confirmQueue = m.confirmQueue[1:]
		m.overlay = &confirmDialog{req: next, prev: c.prev}
	}
}

// dropStaleConfirm closes a dialog whose caller stopped waiting (the run
// was aborted).
func (m *Model) dropStaleConfirm() {
	for {
		c, ok := m.overlay.(*confirmDialog)
		if !ok || c.req.ctx.Err() == nil {
			break
		}
		m.closeConfirm(c)
	}
	live := m.confirmQueue[:0]
	for _, r := range m.confirmQueue {
		if r.ctx.Err() == nil {
			live = append(live, r)
		}
	}
	m.confirmQueue = live
}

func (c *confirmDialog) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	switch {
	case k.Text == "y" || k.Text == "Y" || m.is(keymap.SelectConfirm, k):
		c.answer(m, true)
	case k.Text == "n" || k.Text == "N" || m.is(keymap.SelectCancel, k) || m.is(keymap.AppInterrupt, k):
		c.answer(m, false)
	}
	return nil
}

func (c *confirmDialog) paste(*Model, string) tea.Cmd { return nil }

func (c *confirmDialog) view(m *Model, w, h int) string {
	var b strings.Builder
	b.WriteString("\x1b[1m" + m.th.Fg("warning", "⚠ "+c.req.title) + "\x1b[22m")
	b.WriteString("\n")
	lines := 0
	for _, l := range strings.Split(strings.TrimRight(c.req.message, "\n"), "\n") {
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

// approverUI is the TUI's hooks.UI while the rest of ctx.ui is being
// built: the confirm dialog, the documented defaults for the rest.
type approverUI struct {
	hooks.Headless
	a *Approver
}

func uiOf(a *Approver) hooks.UI { return approverUI{a: a} }

func (u approverUI) Confirm(ctx context.Context, title, message string) (bool, error) {
	return u.a.Confirm(ctx, title, message)
}
