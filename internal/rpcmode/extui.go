package rpcmode

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/relay-agent/relay/internal/hooks"
)

// rpcUI is RPC mode's hooks.UI: the extension-UI sub-protocol of
// rpc-extension-ui.md. Dialogs (select, confirm, input, editor) write an
// extension_ui_request and wait for the client's extension_ui_response
// with the same id; notify, setStatus, setWidget, setTitle and
// set_editor_text are written and forgotten. What needs a terminal gets
// the documented RPC defaults from hooks.Headless: custom components are
// unsupported, the editor reads as "", tools are never expanded, theme
// switching fails.
type rpcUI struct {
	hooks.Headless
	s *Server
}

var _ hooks.UI = rpcUI{}

// The request records, one per method, in the field order of
// rpc-extension-ui.md. Optional fields are left out when absent.
type (
	uiHead struct {
		Type   string `json:"type"`
		ID     string `json:"id"`
		Method string `json:"method"`
	}
	selectRequest struct {
		uiHead
		Title   string   `json:"title"`
		Options []string `json:"options"`
		Timeout int64    `json:"timeout,omitempty"`
	}
	confirmRequest struct {
		uiHead
		Title   string `json:"title"`
		Message string `json:"message"`
		Timeout int64  `json:"timeout,omitempty"`
	}
	inputRequest struct {
		uiHead
		Title       string `json:"title"`
		Placeholder string `json:"placeholder,omitempty"`
		Timeout     int64  `json:"timeout,omitempty"`
	}
	editorRequest struct {
		uiHead
		Title   string `json:"title"`
		Prefill string `json:"prefill,omitempty"`
		Timeout int64  `json:"timeout,omitempty"`
	}
	notifyRequest struct {
		uiHead
		Message    string `json:"message"`
		NotifyType string `json:"notifyType"`
	}
	statusRequest struct {
		uiHead
		StatusKey  string  `json:"statusKey"`
		StatusText *string `json:"statusText,omitempty"`
	}
	widgetRequest struct {
		uiHead
		WidgetKey       string    `json:"widgetKey"`
		WidgetLines     *[]string `json:"widgetLines,omitempty"`
		WidgetPlacement string    `json:"widgetPlacement,omitempty"`
	}
	titleRequest struct {
		uiHead
		Title string `json:"title"`
	}
	editorTextRequest struct {
		uiHead
		Text string `json:"text"`
	}
)

// head numbers a new request. Ids are unique per connection.
func (s *Server) head(method string) uiHead {
	s.mu.Lock()
	s.nextUI++
	id := "ui-" + strconv.Itoa(s.nextUI)
	s.mu.Unlock()
	return uiHead{Type: "extension_ui_request", ID: id, Method: method}
}

// timeoutMS is the dialog's nominal timeout for the request's `timeout`
// field (the client may show it; relay enforces it through ctx).
func timeoutMS(ctx context.Context) int64 { return hooks.DialogTimeout(ctx).Milliseconds() }

// ask writes a dialog request and waits for its answer. ok is false when
// nothing will answer any more: stdin has closed (the dialog resolves as
// cancelled). ctx ending first returns its error; a late answer to that id
// is then ignored.
func (s *Server) ask(ctx context.Context, h uiHead, req any) (uiResponse, error) {
	if err := ctx.Err(); err != nil {
		return uiResponse{}, err
	}
	ch := make(chan uiResponse, 1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return uiResponse{Cancelled: true}, nil
	}
	s.pending[h.ID] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, h.ID)
		s.mu.Unlock()
	}()
	if err := s.out.Write(req, true); err != nil {
		return uiResponse{}, err
	}
	select {
	case <-ctx.Done():
		return uiResponse{}, ctx.Err()
	case r := <-ch:
		return r, nil
	}
}

// Confirm asks a confirm dialog (also the harness's authorization gate).
// A cancelled dialog, or one that can no longer be answered because stdin
// closed, is a refusal.
func (u rpcUI) Confirm(ctx context.Context, title, message string) (bool, error) {
	h := u.s.head("confirm")
	r, err := u.s.ask(ctx, h, confirmRequest{uiHead: h, Title: title, Message: message, Timeout: timeoutMS(ctx)})
	if err != nil || r.Cancelled {
		return false, err
	}
	if r.Confirmed != nil {
		return *r.Confirmed, nil
	}
	// Lenient: a client answering {"value": true} means yes too.
	var b bool
	_ = json.Unmarshal(r.Value, &b)
	return b, nil
}

// value reads a string answer; anything else (null, a number, absent) is
// undefined.
func value(r uiResponse) (string, bool) {
	if r.Cancelled || len(r.Value) == 0 || string(r.Value) == "null" {
		return "", false
	}
	var v string
	if json.Unmarshal(r.Value, &v) != nil {
		return "", false
	}
	return v, true
}

func (u rpcUI) Select(ctx context.Context, title string, options []string) (string, bool, error) {
	if options == nil {
		options = []string{}
	}
	h := u.s.head("select")
	r, err := u.s.ask(ctx, h, selectRequest{uiHead: h, Title: title, Options: options, Timeout: timeoutMS(ctx)})
	if err != nil {
		return "", false, err
	}
	v, ok := value(r)
	return v, ok, nil
}

func (u rpcUI) Input(ctx context.Context, title, placeholder string) (string, bool, error) {
	h := u.s.head("input")
	r, err := u.s.ask(ctx, h, inputRequest{uiHead: h, Title: title, Placeholder: placeholder, Timeout: timeoutMS(ctx)})
	if err != nil {
		return "", false, err
	}
	v, ok := value(r)
	return v, ok, nil
}

func (u rpcUI) Editor(ctx context.Context, title, prefill string) (string, bool, error) {
	h := u.s.head("editor")
	r, err := u.s.ask(ctx, h, editorRequest{uiHead: h, Title: title, Prefill: prefill, Timeout: timeoutMS(ctx)})
	if err != nil {
		return "", false, err
	}
	v, ok := value(r)
	return v, ok, nil
}

func (u rpcUI) Notify(level hooks.Level, message string) {
	u.s.notify(message, string(level))
}

// notify sends a fire-and-forget notification ("" kind = info).
func (s *Server) notify(message, kind string) {
	if kind == "" {
		kind = string(hooks.LevelInfo)
	}
	h := s.head("notify")
	_ = s.out.Write(notifyRequest{uiHead: h, Message: message, NotifyType: kind}, true)
}

func (u rpcUI) SetStatus(key, text string) {
	h := u.s.head("setStatus")
	req := statusRequest{uiHead: h, StatusKey: key}
	if text != "" {
		req.StatusText = &text
	}
	_ = u.s.out.Write(req, true)
}

// SetWidget forwards a widget's lines; nil clears it. A component-only
// widget cannot be drawn by a client and is ignored, as in the original.
func (u rpcUI) SetWidget(key string, w *hooks.Widget) {
	if w != nil && w.Lines == nil {
		return
	}
	h := u.s.head("setWidget")
	req := widgetRequest{uiHead: h, WidgetKey: key}
	if w != nil {
		req.WidgetLines, req.WidgetPlacement = &w.Lines, string(w.Placement)
	}
	_ = u.s.out.Write(req, true)
}

func (u rpcUI) SetTitle(title string) {
	h := u.s.head("setTitle")
	_ = u.s.out.Write(titleRequest{uiHead: h, Title: title}, true)
}

func (u rpcUI) SetEditorText(text string) {
	h := u.s.head("set_editor_text")
	_ = u.s.out.Write(editorTextRequest{uiHead: h, Text: text}, true)
}

// PasteToEditor has no terminal paste handling in RPC: it sets the text.
func (u rpcUI) PasteToEditor(text string) { u.SetEditorText(text) }

func (rpcUI) SetTheme(string) error {
	return errors.New("Theme switching not supported in RPC mode")
}

// resolveUI delivers a client answer to the dialog waiting for it. Answers
// to unknown or already answered dialogs are ignored; no response record
// is written for them.
func (s *Server) resolveUI(c *command) {
	if c.ID == nil {
		return
	}
	s.mu.Lock()
	ch := s.pending[*c.ID]
	delete(s.pending, *c.ID)
	s.mu.Unlock()
	if ch != nil {
		ch <- uiResponse{Value: c.Value, Confirmed: c.Confirmed, Cancelled: c.Cancelled}
	}
}

// shutdownDialogs cancels every open dialog once stdin has closed.
func (s *Server) shutdownDialogs() {
	s.mu.Lock()
	s.closed = true
	open := s.pending
	s.pending = map[string]chan uiResponse{}
	s.mu.Unlock()
	for _, ch := range open {
		ch <- uiResponse{Cancelled: true}
	}
}
