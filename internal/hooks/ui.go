package hooks

import (
	"context"
	"errors"
	"time"
)

// UI is everything an extension's ctx.ui (and a built-in feature such as
// the harness's authorization gate) can ask of the person, implemented by
// the front end that is attached with BindUI: the TUI draws it, RPC mode
// forwards it as extension_ui_request records (rpc-extension-ui.md). Print
// and JSON modes attach none; callers then use Headless, which gives the
// documented defaults.
//
// Every method is safe to call from any goroutine. Dialogs block until
// answered; every other method returns at once (the front end applies the
// change on its own loop).
type UI interface {
	Dialogs
	Chrome
	EditorAccess
	Components
}

// Dialogs ask the person and wait for the answer.
//
// ctx bounds the wait: an extension's dialog `timeout` and `signal` arrive
// as ctx's deadline and cancellation (use WithDialogTimeout, which also
// records the nominal timeout so the TUI can count it down and RPC can send
// it as `timeout`). When ctx ends first, the dialog closes and the method
// returns ctx.Err(); the caller answers with the default (false for
// Confirm, undefined for the others). A nil error with ok false means the
// person dismissed the dialog (Escape; RPC `cancelled: true`). ErrUIClosed
// means the front end went away before an answer.
type Dialogs interface {
	// Confirm asks a yes/no question. Dismissing it is a "no".
	Confirm(ctx context.Context, title, message string) (bool, error)
	// Select offers options and returns the chosen one.
	Select(ctx context.Context, title string, options []string) (choice string, ok bool, err error)
	// Input asks for one line of text; placeholder is shown while it is empty.
	Input(ctx context.Context, title, placeholder string) (text string, ok bool, err error)
	// Editor asks for multi-line text, starting from prefill.
	Editor(ctx context.Context, title, prefill string) (text string, ok bool, err error)
}

// Level is a notification's severity.
type Level string

// Notification levels (rpc-extension-ui.md notifyType).
const (
	LevelInfo    Level = "info"
	LevelWarning Level = "warning"
	LevelError   Level = "error"
)

// Chrome is what an extension sets around the conversation. Each call
// replaces the previous value for its key; nothing here blocks.
type Chrome interface {
	// Notify shows a transient message ("" level = info).
	Notify(level Level, message string)
	// SetStatus sets the footer status entry for key; "" clears it.
	// Entries show in key order.
	SetStatus(key, text string)
	// SetWidget shows w above or below the editor under key; nil clears.
	SetWidget(key string, w *Widget)
	// SetFooter replaces the built-in footer with c; nil restores it.
	SetFooter(c Component)
	// SetHeader replaces the start-up header with c; nil restores it.
	SetHeader(c Component)
	// SetTitle sets the terminal window/tab title.
	SetTitle(title string)
	// SetWorkingMessage sets the text of the working row shown while the
	// agent streams; "" restores the default.
	SetWorkingMessage(message string)
	// SetWorkingVisible shows or hides the working row.
	SetWorkingVisible(visible bool)
	// SetWorkingIndicator sets the working row's animation; nil restores
	// the default spinner, empty Frames hide the indicator.
	SetWorkingIndicator(w *WorkingIndicator)
	// SetHiddenThinkingLabel sets the label of collapsed thinking blocks;
	// "" restores the default.
	SetHiddenThinkingLabel(label string)
	// ToolsExpanded and SetToolsExpanded read and set whether tool output
	// is shown expanded.
	ToolsExpanded() bool
	SetToolsExpanded(expanded bool)
	// Theme is the active theme's palette, for components that colour
	// their own lines.
	Theme() Theme
	// Themes lists the themes that can be selected.
	Themes() []ThemeRef
	// SetTheme switches to the named theme.
	SetTheme(name string) error
}

// EditorAccess reaches the prompt editor.
type EditorAccess interface {
	// SetEditorText replaces the editor's text.
	SetEditorText(text string)
	// EditorText returns the editor's text (a replacement editor's when
	// one is set). It never blocks on the front end's loop.
	EditorText() string
	// PasteToEditor inserts text as a paste (large pastes collapse).
	PasteToEditor(text string)
	// SetEditorComponent replaces the prompt editor with e; nil restores
	// the built-in editor.
	SetEditorComponent(e EditorComponent)
	// OnTerminalInput sees every key before the UI does, until the
	// returned func is called. fn runs on the UI loop and must be quick.
	OnTerminalInput(fn TerminalInputFunc) (unsubscribe func())
}

// TerminalInputFunc sees one key as terminal input data (see Component.
// HandleInput) and returns it, possibly replaced, and whether it is
// consumed (nobody else sees it).
type TerminalInputFunc func(data string) (out string, consume bool)

// Components shows components that live outside the front end.
type Components interface {
	// Custom shows c with keyboard focus, in place of the editor or, with
	// o.Overlay, drawn over the screen, until ctx ends; it then disposes
	// c and returns nil. The caller cancels ctx when the component is done
	// (its done(result) callback: the result stays with the caller) or the
	// interaction is aborted. ErrUnsupported: this front end cannot draw
	// components (RPC); ErrUIClosed: the UI went away first.
	Custom(ctx context.Context, c Component, o CustomOptions) error
}

// Component is a piece of UI whose state lives elsewhere, typically an
// extension's component in the extension host. The front end asks it for
// lines and forwards keys; the component asks for a new render through the
// Surface it was attached to. One instance belongs to one place on screen.
type Component interface {
	// Attach is called once, before the first Render, with the surface
	// the component is shown on. For a component passed to
	// SetEditorComponent the surface is also an EditorSurface.
	Attach(s Surface)
	// Render returns the component's lines for width columns. Lines may
	// carry SGR styling; the front end resets styling after each line and
	// cuts lines wider than width. A line may hold CursorMarker where a
	// focused component wants the terminal cursor. Render may block (a
	// round trip to the host): front ends call it off their UI loop, under
	// ctx, and keep showing the previous lines meanwhile.
	Render(ctx context.Context, width int) ([]string, error)
	// HandleInput delivers one key press or paste as terminal input data,
	// the bytes a terminal sends: text as typed, "\r" Enter, "\x1b"
	// Escape, "\x7f" Backspace, "\t" Tab, "\x1b[A" Up (B down, C right, D
	// left), "\x1b[H" Home, "\x1b[F" End, "\x1b[5~"/"\x1b[6~" PageUp/Down,
	// "\x1b[3~" Delete, control keys as C0 bytes ("\x03" Ctrl+C), Alt as
	// an ESC prefix, modified keys and keys without a legacy encoding in
	// the kitty keyboard protocol form ("\x1b[13;2u" Shift+Enter,
	// "\x1b[1;5A" Ctrl+Up); a paste is bracketed ("\x1b[200~"…"\x1b[201~").
	// Only components with focus get input; it must not block.
	HandleInput(data string)
	// SetFocused tells a component whether it has keyboard focus (a
	// component that draws a cursor shows it only then).
	SetFocused(focused bool)
	// Dispose is called once when the front end stops showing the
	// component for good (a Render may still be in flight).
	Dispose()
}

// CursorMarker, placed in a rendered line right before the cursor of a
// focused component, is where the front end puts the terminal cursor (for
// input methods). It is removed before drawing. Same value as the original
// TUI library's CURSOR_MARKER.
const CursorMarker = "\x1b_pi:c\x07"

// Surface is the front end's side of a shown component. Safe from any
// goroutine.
type Surface interface {
	// RequestRender asks the front end to call Render again; requests
	// coalesce.
	RequestRender()
}

// EditorComponent replaces the prompt editor (SetEditorComponent).
type EditorComponent interface {
	Component
	// SetText replaces the editor's text (SetEditorText, history recall,
	// clearing after submit). It must not block.
	SetText(text string)
	// Text returns the editor's current text without blocking (the
	// implementation keeps a copy).
	Text() string
}

// EditorSurface is the surface of an EditorComponent: what relay's own
// editor would do for keys the replacement leaves to it.
type EditorSurface interface {
	Surface
	// Submit sends text as the prompt, as Enter in the built-in editor.
	Submit(text string)
	// AppKey runs relay's keybinding for a key the replacement editor does
	// not handle itself (escape/abort, Ctrl+C, Ctrl+D, model cycling, ...)
	// and reports whether one ran. It waits for the front end's loop, so
	// it must not be called from HandleInput itself.
	AppKey(data string) bool
}

// Placement is where a widget goes.
type Placement string

// Widget placements; the zero value is PlaceAboveEditor.
const (
	PlaceAboveEditor Placement = "aboveEditor"
	PlaceBelowEditor Placement = "belowEditor"
)

// Widget is a block drawn next to the editor: fixed lines or a live
// component (which wins when both are set). Front ends that cannot draw
// components (RPC) show Lines only.
type Widget struct {
	Lines     []string
	Component Component
	Placement Placement
}

// WorkingIndicator is the working row's animation.
type WorkingIndicator struct {
	// Frames are drawn verbatim in turn; one frame is static, none hides
	// the indicator.
	Frames []string
	// Interval between frames (0: the front end's default).
	Interval time.Duration
}

// Theme is a palette a component can style its lines with: for each theme
// token ("accent", "muted", "success", "warning", "error", "border",
// "toolSuccessBg", ...) the SGR sequence that sets it as foreground and
// the one that undoes it, and the background sequence.
type Theme struct {
	Name       string
	Appearance string // "dark" or "light"
	Fg, FgEnd  map[string]string
	Bg         map[string]string
}

// ThemeRef names a selectable theme; Path is empty for built-in ones.
type ThemeRef struct {
	Name string
	Path string
}

// CustomOptions says where Custom draws its component.
type CustomOptions struct {
	// Overlay draws the component over the screen instead of in place of
	// the editor.
	Overlay bool
	// OverlayOptions position an overlay.
	OverlayOptions OverlayOptions
	// OnHandle, when set, receives the overlay's handle once it is shown.
	OnHandle func(OverlayHandle)
}

// Anchor is the point of the screen an overlay is placed against.
type Anchor string

// Overlay anchors; the zero value is AnchorCenter.
const (
	AnchorCenter       Anchor = "center"
	AnchorTopLeft      Anchor = "top-left"
	AnchorTopRight     Anchor = "top-right"
	AnchorBottomLeft   Anchor = "bottom-left"
	AnchorBottomRight  Anchor = "bottom-right"
	AnchorTopCenter    Anchor = "top-center"
	AnchorBottomCenter Anchor = "bottom-center"
	AnchorLeftCenter   Anchor = "left-center"
	AnchorRightCenter  Anchor = "right-center"
)

// Size is a number of cells or, with Percent, a percentage of the
// screen's size. The zero value is unset.
type Size struct {
	Value   float64
	Percent bool
}

// Cells resolves s against a screen dimension; ok is false when unset.
func (s Size) Cells(ref int) (n int, ok bool) {
	if s.Value <= 0 {
		return 0, false
	}
	if s.Percent {
		return int(float64(ref) * s.Value / 100), true
	}
	return int(s.Value), true
}

// Margin keeps an overlay away from the screen's edges, in cells.
type Margin struct{ Top, Right, Bottom, Left int }

// OverlayOptions size and position an overlay (the original's
// OverlayOptions). Row/Col, when set, beat Anchor and the offsets.
type OverlayOptions struct {
	Width     Size
	MinWidth  int
	MaxHeight Size
	Anchor    Anchor
	OffsetX   int
	OffsetY   int
	Row, Col  Size
	Margin    Margin
	// MinTermWidth and MinTermHeight hide the overlay while the screen is
	// smaller (the original's visible(termWidth, termHeight) for the usual
	// case; OverlayHandle.SetHidden covers the rest).
	MinTermWidth, MinTermHeight int
	// NonCapturing shows the overlay without taking keyboard focus.
	NonCapturing bool
}

// OverlayHandle controls a shown overlay. Safe from any goroutine.
type OverlayHandle interface {
	// SetHidden hides or shows the overlay while the interaction goes on.
	SetHidden(hidden bool)
	Hidden() bool
	// Focus gives the overlay keyboard focus; Unfocus returns it to the
	// editor while the overlay stays visible.
	Focus()
	Unfocus()
	Focused() bool
}

var (
	// ErrUIClosed: the front end went away before answering.
	ErrUIClosed = errors.New("the UI has closed")
	// ErrUnsupported: this front end cannot do that (custom components in
	// RPC mode, everything interactive in print and JSON modes).
	ErrUnsupported = errors.New("not supported in this mode")
)

type dialogTimeoutKey struct{}

// WithDialogTimeout bounds a dialog by d (an extension's `timeout` option)
// and records d so front ends can show it: the TUI counts down, RPC sends
// it as `timeout` in milliseconds. d <= 0 returns ctx unchanged.
func WithDialogTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return context.WithValue(ctx, dialogTimeoutKey{}, d), cancel
}

// DialogTimeout returns the timeout WithDialogTimeout recorded in ctx, 0
// when none.
func DialogTimeout(ctx context.Context) time.Duration {
	d, _ := ctx.Value(dialogTimeoutKey{}).(time.Duration)
	return d
}

// Headless is the UI of print and JSON modes, and the base of front ends
// that support only part of UI: every method gives the documented default
// (dialogs answer false or undefined at once, chrome calls are ignored,
// the editor is empty, Custom is ErrUnsupported). Embed it and override
// what the front end supports.
type Headless struct{}

var _ UI = Headless{}

func (Headless) Confirm(context.Context, string, string) (bool, error) { return false, nil }
func (Headless) Select(context.Context, string, []string) (string, bool, error) {
	return "", false, nil
}
func (Headless) Input(context.Context, string, string) (string, bool, error) { return "", false, nil }
func (Headless) Editor(context.Context, string, string) (string, bool, error) {
	return "", false, nil
}
func (Headless) Notify(Level, string)                     {}
func (Headless) SetStatus(string, string)                 {}
func (Headless) SetWidget(string, *Widget)                {}
func (Headless) SetFooter(Component)                      {}
func (Headless) SetHeader(Component)                      {}
func (Headless) SetTitle(string)                          {}
func (Headless) SetWorkingMessage(string)                 {}
func (Headless) SetWorkingVisible(bool)                   {}
func (Headless) SetWorkingIndicator(*WorkingIndicator)    {}
func (Headless) SetHiddenThinkingLabel(string)            {}
func (Headless) ToolsExpanded() bool                      { return false }
func (Headless) SetToolsExpanded(bool)                    {}
func (Headless) Theme() Theme                             { return Theme{} }
func (Headless) Themes() []ThemeRef                       { return nil }
func (Headless) SetEditorText(string)                     {}
func (Headless) EditorText() string                       { return "" }
func (Headless) PasteToEditor(string)                     {}
func (Headless) SetEditorComponent(EditorComponent)       {}
func (Headless) OnTerminalInput(TerminalInputFunc) func() { return func() {} }
func (Headless) SetTheme(string) error {
	return errors.New("theme switching is not supported in this mode")
}
func (Headless) Custom(context.Context, Component, CustomOptions) error { return ErrUnsupported }

type uiBox struct{ ui UI }

// BindUI attaches the front end's UI until the returned func is called.
func (s *Set) BindUI(ui UI) (unbind func()) {
	b := &uiBox{ui: ui}
	s.ui.Store(b)
	s.uiBound(ui)
	return func() { s.ui.CompareAndSwap(b, nil) }
}

// UI returns the attached UI, nil when none (print and JSON modes: use
// Headless for the defaults).
func (s *Set) UI() UI {
	if b := s.ui.Load(); b != nil {
		return b.ui
	}
	return nil
}
