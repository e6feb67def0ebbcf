package ext

import (
	"context"
	"encoding/json"
	"time"

	"github.com/relay-agent/relay/internal/hooks"
)

// uiCall forwards one ctx.ui call to the front end's UI (hooks.UI). With
// no UI (print and JSON modes, hasUI false) dialogs answer their
// documented defaults and display calls do nothing; notify still reaches
// the seam's notice subscribers.
func (m *Manager) uiCall(src, method string, args []json.RawMessage) (any, error) {
	ui := m.ui()
	if ui == nil && m.deferUI(src, method, args) {
		return nil, nil
	}
	if ui == nil {
		switch method {
		case "confirm":
			return false, nil
		case "notify":
			if m.opts.Hooks != nil {
				m.opts.Hooks.Notify(src, arg[string](args, 0))
			}
		}
		return nil, nil
	}
	if res, ok := m.editorUICall(ui, method, args); ok {
		return res, nil
	}
	switch method {
	case "confirm", "select", "input", "editor":
		return m.dialog(ui, method, args)
	case "notify":
		level := hooks.Level(arg[string](args, 1))
		if level != hooks.LevelWarning && level != hooks.LevelError {
			level = hooks.LevelInfo
		}
		ui.Notify(level, arg[string](args, 0))
	case "setStatus":
		ui.SetStatus(arg[string](args, 0), arg[string](args, 1))
	case "custom":
		return m.custom(ui, args)
	case "setFooter", "setHeader":
		var c hooks.Component
		if id := arg[int64](args, 0); id > 0 {
			c = m.component(id)
		}
		if method == "setFooter" {
			ui.SetFooter(c)
		} else {
			ui.SetHeader(c)
		}
	case "setWidget":
		if len(args) < 2 || isNull(args[1]) {
			ui.SetWidget(arg[string](args, 0), nil)
			break
		}
		opts := arg[struct {
			Placement string `json:"placement"`
		}](args, 2)
		w := &hooks.Widget{Placement: hooks.PlaceAboveEditor}
		if opts.Placement == string(hooks.PlaceBelowEditor) {
			w.Placement = hooks.PlaceBelowEditor
		}
		if comp := arg[struct {
			Component int64 `json:"component"`
		}](args, 1); comp.Component > 0 {
			w.Component = m.component(comp.Component)
		} else {
			w.Lines = arg[[]string](args, 1)
		}
		ui.SetWidget(arg[string](args, 0), w)
	case "setTitle":
		ui.SetTitle(arg[string](args, 0))
	case "setWorkingMessage":
		ui.SetWorkingMessage(arg[string](args, 0))
	case "setWorkingVisible":
		ui.SetWorkingVisible(arg[bool](args, 0))
	case "setWorkingIndicator":
		w := arg[*struct {
			Frames     []string `json:"frames"`
			IntervalMs int      `json:"intervalMs"`
		}](args, 0)
		if w == nil {
			ui.SetWorkingIndicator(nil)
			break
		}
		ui.SetWorkingIndicator(&hooks.WorkingIndicator{Frames: w.Frames, Interval: time.Duration(w.IntervalMs) * time.Millisecond})
	case "setHiddenThinkingLabel":
		ui.SetHiddenThinkingLabel(arg[string](args, 0))
	case "setEditorText":
		ui.SetEditorText(arg[string](args, 0))
	case "pasteToEditor":
		ui.PasteToEditor(arg[string](args, 0))
	case "setToolsExpanded":
		ui.SetToolsExpanded(arg[bool](args, 0))
	case "setTheme":
		if err := ui.SetTheme(arg[string](args, 0)); err != nil {
			return map[string]any{"success": false, "error": err.Error()}, nil
		}
		return map[string]any{"success": true}, nil
	}
	return nil, nil
}

// dialog asks the person; the handler timeout is paused meanwhile. A
// dialog the front end cannot show (or that failed) answers the default.
func (m *Manager) dialog(ui hooks.UI, method string, args []json.RawMessage) (any, error) {
	m.asked.Add(1)
	defer m.asked.Add(-1)
	ctx := context.Background()
	opts := arg[struct {
		Timeout int `json:"timeout"`
	}](args, 2)
	if method == "editor" {
		opts.Timeout = 0
	}
	ctx, cancel := hooks.WithDialogTimeout(ctx, time.Duration(opts.Timeout)*time.Millisecond)
	defer cancel()
	switch method {
	case "confirm":
		ok, err := ui.Confirm(ctx, arg[string](args, 0), arg[string](args, 1))
		return err == nil && ok, nil
	case "select":
		choice, ok, err := ui.Select(ctx, arg[string](args, 0), arg[[]string](args, 1))
		if err != nil || !ok {
			return nil, nil
		}
		return choice, nil
	case "input":
		text, ok, err := ui.Input(ctx, arg[string](args, 0), arg[string](args, 1))
		if err != nil || !ok {
			return nil, nil
		}
		return text, nil
	default:
		text, ok, err := ui.Editor(ctx, arg[string](args, 0), arg[string](args, 1))
		if err != nil || !ok {
			return nil, nil
		}
		return text, nil
	}
}
