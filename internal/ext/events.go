package ext

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
)

// asyncEvents are observed from the runtime's event stream: the handlers
// run without holding up the run (their results have no meaning).
var asyncEvents = map[string]bool{
	agent.AgentStart: true, agent.AgentEnd: true, agent.TurnStart: true, agent.TurnEnd: true,
	agent.MessageStart: true, agent.MessageUpdate: true, agent.MessageEnd: true,
	agent.ToolExecutionStart: true, agent.ToolExecutionUpdate: true, agent.ToolExecutionEnd: true,
	agent.AgentSettled: true, agent.SessionInfoChanged: true, agent.EntryAppended: true,
}

// handlerReply is what the host returns for one handler call.
type handlerReply struct {
	Result  json.RawMessage   `json:"result"`
	Input   json.RawMessage   `json:"input"`
	Headers map[string]string `json:"headers"`
}

func isNull(r json.RawMessage) bool { return len(r) == 0 || string(r) == "null" }

// call runs handler id on data and decodes the reply.
func (m *Manager) call(ctx context.Context, id int64, data any) (handlerReply, error) {
	var rep handlerReply
	raw, err := m.callTimed(ctx, "event", map[string]any{"handler": id, "data": data, "state": m.state()})
	if err != nil {
		return rep, err
	}
	err = json.Unmarshal(raw, &rep)
	return rep, err
}

// on registers fn on point p under src and remembers how to remove it.
func on[E, R any](m *Manager, p *hooks.Point[E, R], id int64, src string, fn hooks.Handler[E, R]) {
	off := p.On(src, fn)
	m.mu.Lock()
	m.regs[id] = off
	m.mu.Unlock()
}

// result decodes a handler's result into v; a null result leaves v zero.
func result[T any](rep handlerReply) (T, error) {
	var v T
	if isNull(rep.Result) {
		return v, nil
	}
	if err := json.Unmarshal(rep.Result, &v); err != nil {
		return v, fmt.Errorf("invalid result: %w", err)
	}
	return v, nil
}

// onEvent puts handler id of extension src on the seam point of event,
// translating the event to the extension's shape and its result back.
func (m *Manager) onEvent(src string, id int64, event string) error {
	s := m.opts.Hooks
	switch event {
	case "input":
		on(m, &s.Input, id, src, func(ctx context.Context, e *hooks.Input) (hooks.InputResult, error) {
			rep, err := m.call(ctx, id, map[string]any{"text": e.Text, "images": e.Images, "source": e.Source, "streamingBehavior": e.StreamingBehavior})
			if err != nil {
				return hooks.InputResult{}, err
			}
			r, err := result[struct {
				Action string             `json:"action"`
				Text   *string            `json:"text"`
				Images []llm.ImageContent `json:"images"`
			}](rep)
			if err != nil {
				return hooks.InputResult{}, err
			}
			switch r.Action {
			case "transform":
				out := hooks.InputResult{Action: hooks.InputTransform, Text: e.Text, Images: e.Images}
				if r.Text != nil {
					out.Text = *r.Text
				}
				if r.Images != nil {
					out.Images = r.Images
				}
				return out, nil
			case "handled":
				return hooks.InputResult{Action: hooks.InputHandled}, nil
			}
			return hooks.InputResult{}, nil
		})
	case "before_agent_start":
		on(m, &s.BeforeAgentStart, id, src, func(ctx context.Context, e *hooks.BeforeAgentStart) (hooks.BeforeAgentStartResult, error) {
			rep, err := m.call(ctx, id, map[string]any{"prompt": e.Prompt, "images": e.Images, "systemPrompt": e.SystemPrompt, "systemPromptOptions": map[string]any{}})
			if err != nil {
				return hooks.BeforeAgentStartResult{}, err
			}
			r, err := result[struct {
				Message *struct {
					CustomType string          `json:"customType"`
					Content    llm.Content     `json:"content"`
					Display    *bool           `json:"display"`
					Details    json.RawMessage `json:"details"`
				} `json:"message"`
				SystemPrompt string `json:"systemPrompt"`
			}](rep)
			if err != nil {
				return hooks.BeforeAgentStartResult{}, err
			}
			out := hooks.BeforeAgentStartResult{SystemPrompt: r.SystemPrompt}
			if r.Message != nil {
				display := r.Message.Display == nil || *r.Message.Display
				out.Message = &llm.CustomMessage{CustomType: r.Message.CustomType, Content: r.Message.Content, Display: display,
					Details: r.Message.Details, Timestamp: time.Now().UnixMilli()}
			}
			return out, nil
		})
	case "context", "context_with_system":
		// context_with_system: the same shape, the system message first.
		p := &s.Context
		if event == "context_with_system" {
			p = &s.ContextWithSystem
		}
		on(m, p, id, src, func(ctx context.Context, e *hooks.Context) (hooks.ContextResult, error) {
			rep, err := m.call(ctx, id, map[string]any{"messages": e.Messages})
			if err != nil {
				return hooks.ContextResult{}, err
			}
			r, err := result[struct {
				Messages []json.RawMessage `json:"messages"`
			}](rep)
			if err != nil || r.Messages == nil {
				return hooks.ContextResult{}, err
			}
			msgs := make([]llm.Message, 0, len(r.Messages))
			for i, raw := range r.Messages {
				msg, err := llm.DecodeMessage(raw)
				if err != nil {
					return hooks.ContextResult{}, fmt.Errorf("%s result message %d: %w", event, i, err)
				}
				msgs = append(msgs, msg)
			}
			return hooks.ContextResult{Messages: msgs}, nil
		})
	case "before_provider_request":
		on(m, &s.ProviderRequest, id, src, func(ctx context.Context, e *hooks.ProviderRequest) (hooks.ProviderRequestResult, error) {
			rep, err := m.call(ctx, id, map[string]any{"payload": e.Payload})
			if err != nil || isNull(rep.Result) {
				return hooks.ProviderRequestResult{}, err
			}
			// Whatever the handler returns is the new payload.
			return hooks.ProviderRequestResult{Payload: rep.Result}, nil
		})
	case "before_provider_headers":
		on(m, &s.ProviderHeaders, id, src, func(ctx context.Context, e *hooks.ProviderHeaders) (hooks.None, error) {
			in := map[string]string{}
			for k := range e.Headers {
				in[k] = e.Headers.Get(k)
			}
			rep, err := m.call(ctx, id, map[string]any{"headers": in})
			if err != nil || rep.Headers == nil {
				return hooks.None{}, err
			}
			for k := range e.Headers {
				if _, ok := rep.Headers[k]; !ok {
					e.Headers.Del(k)
				}
			}
			for k, v := range rep.Headers {
				e.Headers.Set(k, v)
			}
			return hooks.None{}, nil
		})
	case "after_provider_response":
		on(m, &s.ProviderResponse, id, src, func(ctx context.Context, e *hooks.ProviderResponse) (hooks.None, error) {
			_, err := m.call(ctx, id, map[string]any{"status": e.Status, "headers": flatHeaders(e.Headers)})
			return hooks.None{}, err
		})
	case "tool_call":
		on(m, &s.ToolCall, id, src, func(ctx context.Context, e *hooks.ToolCall) (hooks.ToolCallResult, error) {
			input := e.Call.Arguments
			if len(input) == 0 {
				input = json.RawMessage("{}")
			}
			data := map[string]any{"toolName": e.Call.Name, "toolCallId": e.Call.ID, "input": input}
			if e.ParentToolCallID != "" {
				data["parentToolCallId"] = e.ParentToolCallID
			}
			rep, err := m.call(ctx, id, data)
			if err != nil {
				return hooks.ToolCallResult{}, err
			}
			// input is mutable: later handlers and the tool see the change.
			if !isNull(rep.Input) && !jsonEqual(rep.Input, input) {
				e.Call.Arguments = rep.Input
			}
			r, err := result[struct {
				Block     bool   `json:"block"`
				Reason    string `json:"reason"`
				Terminate bool   `json:"terminate"`
			}](rep)
			if err != nil {
				return hooks.ToolCallResult{}, err
			}
			if r.Block && r.Reason == "" {
				r.Reason = "Blocked by " + src
			}
			return hooks.ToolCallResult{Block: r.Block, Reason: r.Reason, Terminate: r.Terminate}, nil
		})
	case "tool_result":
		on(m, &s.ToolResult, id, src, func(ctx context.Context, e *hooks.ToolResult) (hooks.None, error) {
			details := e.Result.Details
			if len(details) == 0 {
				details = json.RawMessage("null")
			}
			rep, err := m.call(ctx, id, map[string]any{"toolName": e.Call.Name, "toolCallId": e.Call.ID, "input": rawOr(e.Call.Arguments, "{}"),
				"content": e.Result.Content, "details": details, "isError": e.Result.IsError})
			if err != nil {
				return hooks.None{}, err
			}
			r, err := result[struct {
				Content json.RawMessage `json:"content"`
				Details json.RawMessage `json:"details"`
				IsError *bool           `json:"isError"`
			}](rep)
			if err != nil {
				return hooks.None{}, err
			}
			if !isNull(r.Content) {
				var b llm.Blocks
				if err := json.Unmarshal(r.Content, &b); err != nil {
					return hooks.None{}, fmt.Errorf("tool_result content: %w", err)
				}
				e.Result.Content = b
			}
			if len(r.Details) > 0 {
				e.Result.Details = r.Details
			}
			if r.IsError != nil {
				e.Result.IsError = *r.IsError
			}
			return hooks.None{}, nil
		})
	case "user_bash":
		on(m, &s.UserBash, id, src, func(ctx context.Context, e *hooks.UserBash) (hooks.UserBashResult, error) {
			rep, err := m.call(ctx, id, map[string]any{"command": e.Command, "excludeFromContext": e.ExcludeFromContext, "cwd": e.Cwd})
			if err != nil {
				return hooks.UserBashResult{}, err
			}
			r, err := result[struct {
				Result *struct {
					Output   string `json:"output"`
					ExitCode *int   `json:"exitCode"`
				} `json:"result"`
			}](rep)
			if err != nil || r.Result == nil {
				return hooks.UserBashResult{}, err
			}
			return hooks.UserBashResult{Handled: true, Output: r.Result.Output, ExitCode: r.Result.ExitCode}, nil
		})
	case "session_start", "session_shutdown", "session_tree", "session_compact":
		p := map[string]*hooks.Point[hooks.SessionChange, hooks.None]{"session_start": &s.SessionStart,
			"session_shutdown": &s.SessionShutdown, "session_tree": &s.SessionTree, "session_compact": &s.SessionCompact}[event]
		on(m, p, id, src, func(ctx context.Context, e *hooks.SessionChange) (hooks.None, error) {
			_, err := m.call(ctx, id, sessionData(e))
			return hooks.None{}, err
		})
	case "session_before_switch", "session_before_fork", "session_before_compact", "session_before_tree":
		p := map[string]*hooks.Point[hooks.SessionChange, hooks.CancelResult]{"session_before_switch": &s.BeforeSwitch,
			"session_before_fork": &s.BeforeFork, "session_before_compact": &s.BeforeCompact, "session_before_tree": &s.BeforeTree}[event]
		on(m, p, id, src, func(ctx context.Context, e *hooks.SessionChange) (hooks.CancelResult, error) {
			rep, err := m.call(ctx, id, sessionData(e))
			if err != nil {
				return hooks.CancelResult{}, err
			}
			r, err := result[struct {
				Cancel bool   `json:"cancel"`
				Reason string `json:"reason"`
			}](rep)
			if r.Cancel && r.Reason == "" {
				r.Reason = "cancelled by " + src
			}
			return hooks.CancelResult{Cancel: r.Cancel, Reason: r.Reason}, err
		})
	case "model_select":
		on(m, &s.ModelSelect, id, src, func(ctx context.Context, e *hooks.ModelSelect) (hooks.None, error) {
			_, err := m.call(ctx, id, map[string]any{"model": e.Model, "previousModel": e.Previous, "source": e.Source})
			return hooks.None{}, err
		})
	case "thinking_level_select":
		on(m, &s.ThinkingSelect, id, src, func(ctx context.Context, e *hooks.ThinkingSelect) (hooks.None, error) {
			_, err := m.call(ctx, id, map[string]any{"level": e.Level, "previousLevel": e.Previous})
			return hooks.None{}, err
		})
	case "project_trust":
		m.onTrust(src, id)
	case "agent_before_settle":
		m.onSettle(src, id)
	case "resources_discover":
		on(m, &s.ResourcesDiscover, id, src, func(ctx context.Context, e *hooks.ResourcesDiscover) (hooks.ResourcesResult, error) {
			rep, err := m.call(ctx, id, map[string]any{"cwd": e.Cwd, "reason": e.Reason})
			if err != nil {
				return hooks.ResourcesResult{}, err
			}
			return result[hooks.ResourcesResult](rep)
		})
	case "mcp_servers_change":
		on(m, &s.MCPServersChange, id, src, func(ctx context.Context, e *hooks.MCPServersChange) (hooks.None, error) {
			servers := make([]map[string]any, 0, len(e.Servers))
			for _, sv := range e.Servers {
				servers = append(servers, map[string]any{"name": sv.Name, "config": sv.Config, "source": sv.Source})
			}
			m.fire(id, src, "mcp_servers_change", map[string]any{"servers": servers})
			return hooks.None{}, nil
		})
	case "cache_warming_decision":
		on(m, &s.CacheWarming, id, src, func(ctx context.Context, e *hooks.CacheWarmingDecision) (hooks.CacheWarmingResult, error) {
			rep, err := m.call(ctx, id, map[string]any{"warmCost": e.WarmCost, "missCost": e.MissCost,
				"continuationProbability": e.ContinuationProbability, "action": e.Action})
			if err != nil {
				return hooks.CacheWarmingResult{}, err
			}
			return result[hooks.CacheWarmingResult](rep)
		})
	case "provider_stream_event":
		on(m, &s.StreamEvent, id, src, func(ctx context.Context, e *hooks.StreamEvent) (hooks.None, error) {
			m.fire(id, src, "provider_stream_event", map[string]any{"event": e.Event})
			return hooks.None{}, nil
		})
	default:
		// Observed from the runtime's events (or not raised by relay yet:
		// those handlers are kept and never called).
		m.mu.Lock()
		m.async[event] = append(m.async[event], asyncHandler{id: id, src: src})
		m.mu.Unlock()
	}
	return nil
}

func rawOr(r json.RawMessage, def string) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage(def)
	}
	return r
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

func flatHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k := range h {
		out[k] = h.Get(k)
	}
	return out
}

func sessionData(e *hooks.SessionChange) map[string]any {
	d := map[string]any{"reason": string(e.Reason)}
	if e.File != "" {
		d["sessionFile"] = e.File
	}
	if e.TargetID != "" {
		d["entryId"] = e.TargetID
		d["targetId"] = e.TargetID
	}
	return d
}

// fire calls a handler without waiting; a failure is still reported by
// path and event.
func (m *Manager) fire(id int64, src, event string, data any) {
	go func() {
		if _, err := m.call(context.Background(), id, data); err != nil {
			m.report(src, event, err)
		}
	}()
}

// forward feeds the runtime's events to the extensions observing them.
func (m *Manager) forward(e agent.Event) {
	switch e.Type {
	case agent.AgentStart:
		m.busy.Add(1)
	case agent.AgentEnd:
		m.busy.Add(-1)
	}
	m.mu.Lock()
	hs := m.async[e.Type]
	m.mu.Unlock()
	if len(hs) == 0 {
		return
	}
	raw, err := json.Marshal(e)
	if err != nil {
		return
	}
	var data map[string]any
	if json.Unmarshal(raw, &data) != nil {
		return
	}
	delete(data, "type")
	// Handlers run in event order, each after the previous one answered,
	// without holding up the run. A host far behind loses events rather
	// than stalling the agent.
	select {
	case m.queue <- func() {
		for _, h := range hs {
			if _, err := m.call(context.Background(), h.id, data); err != nil {
				m.report(h.src, e.Type, err)
			}
		}
	}:
	default:
	}
}

// state is what the host's synchronous getters read: sent with every
// call, so it is current when a handler runs.
func (m *Manager) state() map[string]any {
	m.mu.Lock()
	rt := m.rt
	m.mu.Unlock()
	st := map[string]any{"idle": m.busy.Load() == 0}
	if rt == nil {
		return st
	}
	s := rt.Session()
	st["model"] = rt.State().Model
	st["thinkingLevel"] = rt.State().ThinkingLevel
	st["sessionName"] = s.Name()
	st["sessionFile"] = s.SessionFile()
	st["sessionId"] = s.SessionID()
	st["leafId"] = s.LeafID()
	st["activeTools"] = m.loadout().Names()
	m.catalogState(rt, st)
	return st
}

// catalogState adds the tool, command and model lists to st when they
// changed since the last call (the host keeps what it was sent).
func (m *Manager) catalogState(rt *app.Runtime, st map[string]any) {
	m.mu.Lock()
	reg := m.opts.Tools
	m.mu.Unlock()
	names := reg.Names()
	cmds := m.opts.Commands.All()
	models := m.available()
	var fp strings.Builder
	fp.WriteString(strings.Join(names, ","))
	for _, c := range cmds {
		fp.WriteString("|" + c.Name)
	}
	for _, md := range models {
		fp.WriteString("#" + md.Provider + "/" + md.ID)
	}
	m.mu.Lock()
	lister, _ := m.opts.Providers.(modelLister)
	m.mu.Unlock()
	if lister != nil {
		fmt.Fprintf(&fp, "@%d", lister.Generation())
	}
	m.mu.Lock()
	same := m.catalog == fp.String()
	m.catalog = fp.String()
	m.mu.Unlock()
	if same {
		return
	}
	tools := make([]map[string]any, 0, len(names))
	for _, sp := range reg.Specs() {
		tools = append(tools, map[string]any{"name": sp.Name, "description": sp.Description, "parameters": sp.Parameters})
	}
	list := make([]map[string]any, 0, len(cmds))
	for _, c := range cmds {
		list = append(list, map[string]any{"name": c.Name, "description": c.Description, "source": c.Source})
	}
	st["allTools"], st["commands"], st["models"] = tools, list, models
	if lister != nil {
		st["allModels"] = lister.All() // ctx.modelRegistry.getAll / find
	}
}
