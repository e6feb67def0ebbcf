package tui

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/hooks"
)

// compRenderTimeout bounds one Render of a component that lives in the
// extension host; the previous lines stay on screen meanwhile.
const compRenderTimeout = 5 * time.Second

// maxCompLines bounds what one render may hand us.
const maxCompLines = 2000

// compView is a hooks.Component on screen: the lines of its last render
// and the render in flight. Render runs off the update loop; requests
// while one runs coalesce into one more.
type compView struct {
	c            hooks.Component
	lines        []string
	err          error
	width, want  int // rendered at / wanted at
	busy, dirty  bool
	gone         bool
	requested    atomic.Bool // a RequestRender is queued
	cursorRow    int         // CursorMarker's place in lines, -1 none
	cursorCol    int
	hasRendered  bool
	focusedState bool
}

type compRenderedMsg struct {
	v     *compView
	width int
	lines []string
	err   error
}

// surface is the front end's side of a shown component.
type surface struct {
	a *Approver
	v *compView
}

func (s surface) RequestRender() {
	if s.v.requested.CompareAndSwap(false, true) {
		s.a.post(func(m *Model) {
			s.v.requested.Store(false)
			m.renderComp(s.v, s.v.want)
		})
	}
}

// editorSurface is the surface of a replacement prompt editor.
type editorSurface struct{ surface }

func (s editorSurface) Submit(text string) {
	s.a.post(func(m *Model) {
		if m.ext.editor == s.v {
			m.pending = tea.Batch(m.pending, m.submit(text))
		}
	})
}

func (s editorSurface) AppKey(data string) bool {
	handled := false
	err := s.a.call(func(m *Model) error {
		for _, k := range decodeKeys(data) {
			if m.fullscreen && m.altScreenKey(k) {
				handled = true
				continue
			}
			if cmd, ok := m.appKey(k); ok {
				handled = true
				m.pending = tea.Batch(m.pending, cmd)
			}
		}
		return nil
	})
	return err == nil && handled
}

// attachComp starts showing c.
func (m *Model) attachComp(c hooks.Component) *compView {
	v := &compView{c: c, cursorRow: -1}
	c.Attach(surface{a: m.opts.Approver, v: v})
	return v
}

func (m *Model) attachEditorComp(e hooks.EditorComponent) *compView {
	v := &compView{c: e, cursorRow: -1}
	e.Attach(editorSurface{surface{a: m.opts.Approver, v: v}})
	return v
}

// replaceComp disposes old and attaches c (nil: none).
func (m *Model) replaceComp(old *compView, c hooks.Component) *compView {
	if old != nil {
		m.disposeComp(old)
	}
	if c == nil {
		return nil
	}
	return m.attachComp(c)
}

// disposeComp stops showing v for good; Dispose may block on the host, so
// it runs off the loop.
func (m *Model) disposeComp(v *compView) {
	if v == nil || v.gone {
		return
	}
	v.gone = true
	c := v.c
	m.pending = tea.Batch(m.pending, func() tea.Msg { c.Dispose(); return nil })
}

// renderComp asks v for its lines at width, off the loop.
func (m *Model) renderComp(v *compView, width int) {
	if v == nil || v.gone || width <= 0 {
		return
	}
	v.want = width
	if v.busy {
		v.dirty = true
		return
	}
	v.busy, v.dirty = true, false
	c, ctx := v.c, m.ctx
	m.pending = tea.Batch(m.pending, func() tea.Msg {
		rctx, cancel := context.WithTimeout(ctx, compRenderTimeout)
		defer cancel()
		lines, err := c.Render(rctx, width)
		return compRenderedMsg{v: v, width: width, lines: lines, err: err}
	})
}

func (m *Model) compRendered(msg compRenderedMsg) {
	v := msg.v
	v.busy = false
	if v.gone {
		return
	}
	if len(msg.lines) > maxCompLines {
		msg.lines = msg.lines[:maxCompLines]
	}
	v.err = msg.err
	if msg.err == nil {
		v.lines, v.width, v.hasRendered = msg.lines, msg.width, true
	}
	if v.dirty || v.want != msg.width {
		m.renderComp(v, v.want)
	}
}

// sizeComp renders v again when it is drawn at another width than its
// lines were made for (first show, resize).
func (m *Model) sizeComp(v *compView, width int) {
	if v != nil && !v.gone && width > 0 && (v.want != width || (!v.hasRendered && !v.busy && v.err == nil)) {
		m.renderComp(v, width)
	}
}

// draw returns v's lines cut to width, styling reset after each, at most
// maxRows of them (0: all). CursorMarker is removed; its place is kept.
func (v *compView) draw(m *Model, width, maxRows int) []string {
	if v.err != nil && !v.hasRendered {
		return []string{m.th.Fg("error", ansi.Truncate("component error: "+v.err.Error(), width, "…"))}
	}
	src := v.lines
	if maxRows > 0 && len(src) > maxRows {
		src = src[:maxRows]
	}
	v.cursorRow = -1
	out := make([]string, len(src))
	for i, l := range src {
		if j := strings.Index(l, hooks.CursorMarker); j >= 0 {
			v.cursorRow, v.cursorCol = i, ansi.StringWidth(l[:j])
			l = strings.ReplaceAll(l, hooks.CursorMarker, "")
		}
		l = lineBreaks.Replace(l)
		out[i] = ansi.Truncate(l, width, "") + "\x1b[0m"
	}
	return out
}

// lineBreaks keeps a component's line on one row.
var lineBreaks = strings.NewReplacer("\r", "", "\n", " ")

// customView is a component shown by ctx.ui.custom, inline (in place of
// the editor) or as an overlay.
type customView struct {
	*compView
	ctx     context.Context
	closed  chan struct{}
	overlay bool
	opts    hooks.OverlayOptions
	hidden  atomic.Bool
	focused atomic.Bool
}

// Custom shows c until ctx ends (hooks.Components).
func (a *Approver) Custom(ctx context.Context, c hooks.Component, o hooks.CustomOptions) error {
	if err := ctx.Err(); err != nil {
		return nil
	}
	cv := &customView{ctx: ctx, closed: make(chan struct{}), overlay: o.Overlay, opts: o.OverlayOptions}
	if !a.post(func(m *Model) { m.openCustom(cv, c) }) {
		return hooks.ErrUIClosed
	}
	if o.OnHandle != nil && o.Overlay {
		o.OnHandle(overlayHandle{a: a, cv: cv})
	}
	select {
	case <-ctx.Done():
	case <-a.done:
		return hooks.ErrUIClosed
	}
	if !a.post(func(m *Model) { m.closeCustom(cv) }) {
		return hooks.ErrUIClosed
	}
	select {
	case <-cv.closed:
		return nil
	case <-a.done:
		return hooks.ErrUIClosed
	}
}

func (m *Model) openCustom(cv *customView, c hooks.Component) {
	cv.compView = m.attachComp(c)
	if cv.ctx.Err() != nil {
		// Done before it was shown: still disposed, never drawn.
		m.disposeComp(cv.compView)
		close(cv.closed)
		return
	}
	// A non-capturing overlay shows without taking the keys from whoever
	// has them.
	if capture := !cv.overlay || !cv.opts.NonCapturing; capture {
		m.blurAll()
		cv.focused.Store(true)
	}
	m.ext.customs = append(m.ext.customs, cv)
	m.refocus()
}

func (m *Model) closeCustom(cv *customView) {
	for i, x := range m.ext.customs {
		if x == cv {
			m.ext.customs = append(m.ext.customs[:i], m.ext.customs[i+1:]...)
			break
		}
	}
	if cv.compView != nil {
		m.disposeComp(cv.compView)
	}
	select {
	case <-cv.closed:
	default:
		close(cv.closed)
	}
	m.refocus()
}

// blurAll takes focus from every custom component.
func (m *Model) blurAll() {
	for _, cv := range m.ext.customs {
		cv.focused.Store(false)
	}
}

// focusedCustom is the component keys go to: the newest visible focused
// one, nil when keys go to the editor.
func (m *Model) focusedCustom() *customView {
	for i := len(m.ext.customs) - 1; i >= 0; i-- {
		cv := m.ext.customs[i]
		if cv.focused.Load() && !cv.hidden.Load() && m.overlayFits(cv) {
			return cv
		}
	}
	return nil
}

// refocus tells components whether they have focus, after any change.
func (m *Model) refocus() {
	f := m.focusedCustom()
	for _, cv := range m.ext.customs {
		if cv.compView != nil && cv.focusedState != (cv == f) {
			cv.focusedState = cv == f
			cv.c.SetFocused(cv.focusedState)
		}
	}
	if e := m.ext.editor; e != nil && e.focusedState != (f == nil) {
		e.focusedState = f == nil
		e.c.SetFocused(e.focusedState)
	}
}

// inlineCustom is the newest inline component (drawn instead of the
// editor), nil when none.
func (m *Model) inlineCustom() *customView {
	for i := len(m.ext.customs) - 1; i >= 0; i-- {
		if cv := m.ext.customs[i]; !cv.overlay {
			return cv
		}
	}
	return nil
}

// overlayFits applies MinTermWidth/MinTermHeight.
func (m *Model) overlayFits(cv *customView) bool {
	return !cv.overlay || (m.width >= cv.opts.MinTermWidth && m.height >= cv.opts.MinTermHeight)
}

type overlayHandle struct {
	a  *Approver
	cv *customView
}

func (h overlayHandle) SetHidden(hidden bool) {
	h.cv.hidden.Store(hidden)
	h.a.post(func(m *Model) { m.refocus() })
}
func (h overlayHandle) Hidden() bool { return h.cv.hidden.Load() }
func (h overlayHandle) Focus() {
	h.a.post(func(m *Model) {
		m.blurAll()
		h.cv.focused.Store(true)
		m.refocus()
	})
}
func (h overlayHandle) Unfocus() {
	h.a.post(func(m *Model) {
		h.cv.focused.Store(false)
		m.refocus()
	})
}
func (h overlayHandle) Focused() bool { return h.cv.focused.Load() }

// extKey gives a key to the focused component or the replacement editor;
// false leaves it to the built-in handling.
func (m *Model) extKey(k tea.KeyPressMsg) bool {
	if cv := m.focusedCustom(); cv != nil {
		cv.c.HandleInput(keyData(k))
		return true
	}
	if e := m.ext.editor; e != nil && !m.searching {
		e.c.HandleInput(keyData(k))
		return true
	}
	return false
}

// extPaste is extKey for a paste.
func (m *Model) extPaste(s string) bool {
	if cv := m.focusedCustom(); cv != nil {
		cv.c.HandleInput(pasteData(s))
		return true
	}
	if e := m.ext.editor; e != nil {
		e.c.HandleInput(pasteData(s))
		return true
	}
	return false
}

// syncComps renders every shown component at the width it is drawn at
// (Update calls it last, so a resize or a new component gets lines).
func (m *Model) syncComps() {
	if m.width <= 0 {
		return
	}
	w := m.width
	m.sizeComp(m.ext.header, w)
	m.sizeComp(m.ext.footer, w)
	for _, k := range m.ext.widgetOrder {
		if ew := m.ext.widgets[k]; ew != nil {
			m.sizeComp(ew.comp, w)
		}
	}
	if m.ext.editor != nil {
		m.sizeComp(m.ext.editor, m.editorWidth(w))
	}
	for _, cv := range m.ext.customs {
		if cv.compView == nil {
			continue
		}
		if cv.overlay {
			ow, _ := m.overlaySize(cv)
			m.sizeComp(cv.compView, ow)
		} else {
			m.sizeComp(cv.compView, w)
		}
	}
	if h := m.ext.header; h != nil && h.hasRendered && !m.fullscreen && !m.ext.headerPrinted {
		// Regular mode: the header goes into the scrollback once, above
		// the conversation printed after it.
		m.ext.headerPrinted = true
		m.pending = tea.Batch(m.pending, m.queuePrint(h.draw(m, w, 0)))
	}
}

func (m *Model) editorWidth(w int) int {
	padX := max(0, min(3, m.opts.EditorPaddingX))
	return max(4, w-2*padX)
}

// overlaySize is an overlay's width and most rows on this screen.
func (m *Model) overlaySize(cv *customView) (w, h int) {
	o := cv.opts
	availW := max(1, m.width-o.Margin.Left-o.Margin.Right)
	availH := max(1, m.height-o.Margin.Top-o.Margin.Bottom)
	w = min(80, availW)
	if n, ok := o.Width.Cells(m.width); ok {
		w = n
	}
	w = max(w, o.MinWidth)
	w = max(1, min(w, availW))
	h = availH
	if n, ok := o.MaxHeight.Cells(m.height); ok {
		h = max(1, min(n, availH))
	}
	return w, h
}

// overlayPos places an overlay of w×h on a screen of sw×sh.
func overlayPos(o hooks.OverlayOptions, sw, sh, w, h int) (row, col int) {
	top, left := o.Margin.Top, o.Margin.Left
	bottom, right := sh-o.Margin.Bottom-h, sw-o.Margin.Right-w
	midR, midC := top+(bottom-top)/2, left+(right-left)/2
	switch o.Anchor {
	case hooks.AnchorTopLeft:
		row, col = top, left
	case hooks.AnchorTopRight:
		row, col = top, right
	case hooks.AnchorBottomLeft:
		row, col = bottom, left
	case hooks.AnchorBottomRight:
		row, col = bottom, right
	case hooks.AnchorTopCenter:
		row, col = top, midC
	case hooks.AnchorBottomCenter:
		row, col = bottom, midC
	case hooks.AnchorLeftCenter:
		row, col = midR, left
	case hooks.AnchorRightCenter:
		row, col = midR, right
	default:
		row, col = midR, midC
	}
	row += o.OffsetY
	col += o.OffsetX
	if n, ok := o.Row.Cells(sh); ok {
		row = n
	}
	if n, ok := o.Col.Cells(sw); ok {
		col = n
	}
	row = max(0, min(row, sh-h))
	col = max(0, min(col, sw-w))
	return row, col
}

// compositeOverlays draws the visible overlays over the frame, oldest
// first; the frame grows (regular mode) to hold them. It returns the
// frame and the cursor a focused overlay asks for (-1 none).
func (m *Model) compositeOverlays(frame []string) (out []string, curRow, curCol int) {
	curRow, curCol = -1, -1
	focused := m.focusedCustom()
	for _, cv := range m.ext.customs {
		if !cv.overlay || cv.compView == nil || cv.hidden.Load() || !m.overlayFits(cv) {
			continue
		}
		w, maxH := m.overlaySize(cv)
		lines := cv.draw(m, w, maxH)
		if len(lines) == 0 {
			continue
		}
		if need := len(lines) + cv.opts.Margin.Top + cv.opts.Margin.Bottom; len(frame) < need && !m.fullscreen {
			frame = append(make([]string, min(need, m.height-1)-len(frame)), frame...)
		}
		sh := len(frame)
		if m.fullscreen {
			sh = m.height
			for len(frame) < sh {
				frame = append(frame, "")
			}
		}
		if len(lines) > sh {
			lines = lines[:sh]
		}
		row, col := overlayPos(cv.opts, m.width, sh, w, len(lines))
		for i, l := range lines {
			frame[row+i] = splice(frame[row+i], l, col, w)
		}
		if cv == focused && cv.cursorRow >= 0 && cv.cursorRow < len(lines) {
			curRow, curCol = row+cv.cursorRow, col+cv.cursorCol
		}
	}
	return frame, curRow, curCol
}

// splice writes over (already cut to w columns) into base at column col.
func splice(base, over string, col, w int) string {
	left := ansi.Truncate(base, col, "")
	if pad := col - ansi.StringWidth(left); pad > 0 {
		left += strings.Repeat(" ", pad)
	}
	if pad := w - ansi.StringWidth(over); pad > 0 {
		over = strings.TrimSuffix(over, "\x1b[0m") + strings.Repeat(" ", pad) + "\x1b[0m"
	}
	right := ansi.TruncateLeft(base, col+w, "")
	return left + "\x1b[0m" + over + right
}

// widgetLines draws the widgets placed at p.
func (m *Model) widgetLines(p hooks.Placement, w int) []string {
	var out []string
	for _, k := range m.ext.widgetOrder {
		ew := m.ext.widgets[k]
		if ew == nil || (ew.placement == hooks.PlaceBelowEditor) != (p == hooks.PlaceBelowEditor) {
			continue
		}
		if ew.comp != nil {
			out = append(out, ew.comp.draw(m, w, 0)...)
			continue
		}
		for _, l := range ew.lines {
			out = append(out, ansi.Truncate(strings.ReplaceAll(l, "\n", " "), w, "")+"\x1b[0m")
		}
	}
	return out
}
