package ext

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// sessionAPI answers the ExtensionAPI calls that act on the runtime:
// messages, the session, the model, command-context operations. ok is
// false for a method it does not know.
func (m *Manager) sessionAPI(rt *app.Runtime, src, method string, args []json.RawMessage) (res any, ok bool, err error) {
	switch method {
	case "sendUserMessage":
		return nil, true, m.sendUserMessage(rt, args)
	case "sendMessage":
		return nil, true, m.sendMessage(rt, src, args)
	case "setModel":
		var want struct {
			Provider string `json:"provider"`
			ID       string `json:"id"`
		}
		if len(args) > 0 {
			_ = json.Unmarshal(args[0], &want)
		}
		for _, mod := range m.available() {
			if mod.Provider == want.Provider && mod.ID == want.ID {
				return true, true, rt.SetModel(mod)
			}
		}
		// The documented answer for a model without credentials.
		return false, true, nil
	case "compact":
		r, err := rt.Compact(context.Background(), arg[string](args, 0))
		return r, true, err
	case "newSession":
		return cancelled(rt.NewSession(arg[string](args, 0)))
	case "switchSession":
		return cancelled(rt.SwitchSession(arg[string](args, 0)))
	case "fork":
		_, err := rt.Fork(arg[string](args, 0))
		return cancelled(err)
	case "navigateTree":
		opts := arg[struct {
			Summarize          bool   `json:"summarize"`
			CustomInstructions string `json:"customInstructions"`
		}](args, 1)
		_, err := rt.NavigateTree(context.Background(), arg[string](args, 0), opts.Summarize, opts.CustomInstructions)
		return cancelled(err)
	case "reload":
		if c, ok := m.opts.Commands.Get("reload"); ok && c.Run != nil {
			_, err := c.Run(context.Background(), "")
			return nil, true, err
		}
		return nil, true, nil
	case "executeTool":
		return m.executeTool(rt, args), true, nil
	case "getApiKeyAndHeaders", "getApiKeyForProvider":
		return m.authAPI(method, args), true, nil
	}
	return nil, false, nil
}

// cancelled maps a session operation's outcome to {cancelled}: a
// session_before_* handler's veto is a cancellation, anything else an
// error.
func cancelled(err error) (any, bool, error) {
	if err != nil && strings.HasPrefix(err.Error(), "session_before_") {
		return map[string]bool{"cancelled": true}, true, nil
	}
	return map[string]bool{"cancelled": false}, true, err
}

// contentText flattens a string or content-block message to text and
// images.
func contentOf(raw json.RawMessage) (string, []llm.ImageContent, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil, nil
	}
	var blocks llm.Blocks
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", nil, fmt.Errorf("content must be a string or content blocks: %w", err)
	}
	var text strings.Builder
	var images []llm.ImageContent
	for _, b := range blocks {
		switch v := b.(type) {
		case *llm.TextContent:
			text.WriteString(v.Text)
		case *llm.ImageContent:
			images = append(images, *v)
		}
	}
	return text.String(), images, nil
}

// sendUserMessage prompts when idle; while a run streams it is delivered
// as deliverAs says (followUp by default).
func (m *Manager) sendUserMessage(rt *app.Runtime, args []json.RawMessage) error {
	if len(args) == 0 {
		return fmt.Errorf("sendUserMessage: no content")
	}
	text, images, err := contentOf(args[0])
	if err != nil {
		return fmt.Errorf("sendUserMessage: %w", err)
	}
	opts := arg[struct {
		DeliverAs string `json:"deliverAs"`
	}](args, 1)
	if m.busy.Load() > 0 || rt.State().IsStreaming {
		if opts.DeliverAs == "steer" {
			rt.Steer(text, images)
		} else {
			rt.FollowUp(text, images)
		}
		return nil
	}
	go func() {
		if err := rt.Prompt(context.Background(), text, images); err != nil {
			m.report("extension", "sendUserMessage", err)
		}
	}()
	return nil
}

// sendMessage records a custom message; it reaches the model with the
// next request, now (triggerTurn) or as deliverAs says during a run.
func (m *Manager) sendMessage(rt *app.Runtime, src string, args []json.RawMessage) error {
	msg := arg[struct {
		CustomType string          `json:"customType"`
		Content    json.RawMessage `json:"content"`
		Display    *bool           `json:"display"`
		Details    json.RawMessage `json:"details"`
	}](args, 0)
	opts := arg[struct {
		TriggerTurn bool   `json:"triggerTurn"`
		DeliverAs   string `json:"deliverAs"`
	}](args, 1)
	var content llm.Content
	if len(msg.Content) > 0 {
		if err := json.Unmarshal(msg.Content, &content); err != nil {
			return fmt.Errorf("sendMessage content: %w", err)
		}
	}
	cm := &llm.CustomMessage{CustomType: msg.CustomType, Content: content, Display: msg.Display == nil || *msg.Display,
		Details: msg.Details, Timestamp: nowMillis()}
	running := m.busy.Load() > 0 || rt.State().IsStreaming
	switch {
	case running && opts.DeliverAs == "steer":
		return rt.Send(context.Background(), cm, app.DeliverSteer)
	case running:
		return rt.Send(context.Background(), cm, app.DeliverFollowUp)
	case opts.TriggerTurn:
		go func() {
			if err := rt.Send(context.Background(), cm, app.DeliverNow); err != nil {
				m.report(src, "sendMessage", err)
			}
		}()
	default:
		if err := rt.Send(context.Background(), cm, app.DeliverNextTurn); err != nil {
			return fmt.Errorf("sendMessage: %w", err)
		}
		if m.opts.Hooks != nil && cm.Display {
			// Recorded outside a run: no message events; front ends draw
			// it from here.
			m.opts.Hooks.Show(hooks.Shown{Message: cm})
		}
	}
	return nil
}

// executeTool runs a tool for ctx.executeTool through the tool_call and
// tool_result points, as the agent would.
func (m *Manager) executeTool(rt *app.Runtime, args []json.RawMessage) map[string]any {
	name := arg[string](args, 0)
	params := json.RawMessage("{}")
	if len(args) > 1 && !isNull(args[1]) {
		params = args[1]
	}
	errResult := func(text string) map[string]any {
		return map[string]any{"content": []map[string]string{{"type": "text", "text": text}}, "isError": true}
	}
	m.mu.Lock()
	reg := m.opts.Tools
	m.mu.Unlock()
	t, ok := reg.Get(name)
	if !ok {
		return errResult("Tool " + name + " not found")
	}
	call := &llm.ToolCall{ID: fmt.Sprintf("ext/%d", m.nested.Add(1)), Name: name, Arguments: params}
	ctx := context.Background()
	seam := m.opts.Hooks
	if seam == nil {
		seam = hooks.New()
	}
	if v := seam.RunToolCall(ctx, hooks.ToolCall{Call: call}); v.Block {
		return errResult(v.Reason)
	}
	// The tool learns the run (model, session) as under the agent.
	r := t.Execute(app.ToolContext(tool.WithCallID(ctx, call.ID), rt), call.Arguments, nil)
	res := &llm.ToolResultMessage{ToolCallID: call.ID, ToolName: name, Content: r.Content, IsError: r.IsError}
	if r.Details != nil {
		res.Details, _ = json.Marshal(r.Details)
	}
	seam.ToolResult.Notify(ctx, &hooks.ToolResult{Call: call, Result: res})
	return map[string]any{"content": res.Content, "details": res.Details, "isError": res.IsError}
}

func nowMillis() int64 { return time.Now().UnixMilli() }
