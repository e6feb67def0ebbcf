package ext

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
	"github.com/relay-agent/relay/internal/tool/builtin"
)

// The library half of the host API: what the modules extensions import
// (createReadTool and the other tool factories, pi-ai's complete) asks of
// relay. These requests are not ExtensionAPI calls of one extension: a
// tool factory's execute runs relay's BUILT-IN tool itself, never the tool
// registered under that name (an extension overriding read with a wrapper
// calls the original through its factory).

// libState is the requests in progress the host may cancel.
type libState struct {
	mu      sync.Mutex
	cancels map[int64]context.CancelFunc
}

func (l *libState) track(id int64, cancel context.CancelFunc) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancels == nil {
		l.cancels = map[int64]context.CancelFunc{}
	}
	l.cancels[id] = cancel
}

func (l *libState) done(id int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.cancels, id)
}

func (l *libState) cancel(id int64) {
	l.mu.Lock()
	c := l.cancels[id]
	l.mu.Unlock()
	if c != nil {
		c()
	}
}

// handleLib takes the host's library requests; false for any other
// method. It runs on the reader goroutine, so the work moves off it.
func (m *Manager) handleLib(msg message) bool {
	switch msg.Method {
	case "builtin_tool", "complete":
		if msg.ID == nil {
			return true
		}
		id := *msg.ID
		ctx, cancel := context.WithCancel(context.Background())
		m.lib.track(id, cancel)
		// A host that exits takes its requests with it: a built-in command
		// it started does not outlive it.
		if c, err := m.conn(); err == nil {
			go func() {
				select {
				case <-c.done:
					cancel()
				case <-ctx.Done():
				}
			}()
		}
		go func() {
			defer func() {
				m.lib.done(id)
				cancel()
			}()
			var res any
			var err error
			if msg.Method == "builtin_tool" {
				res, err = m.runBuiltin(ctx, id, msg.Params)
			} else {
				res, err = m.complete(ctx, msg.Params)
			}
			if c, cerr := m.conn(); cerr == nil {
				c.reply(msg.ID, res, err)
			}
		}()
		return true
	case "lib_cancel":
		var p struct {
			Req int64 `json:"req"`
		}
		if json.Unmarshal(msg.Params, &p) == nil {
			m.lib.cancel(p.Req)
		}
		return true
	}
	return false
}

// builtinSpecs are the built-in tools' declarations the factories return
// synchronously (an extension reads createReadTool(cwd).parameters while
// it loads).
func builtinSpecs() []map[string]any {
	var out []map[string]any
	for _, n := range builtin.Names() {
		t, err := builtin.New(n, builtin.Env{})
		if err != nil {
			continue
		}
		s := t.Spec()
		out = append(out, map[string]any{"name": s.Name, "label": s.Name, "description": s.Description,
			"parameters": s.Parameters, "promptSnippet": s.PromptSnippet, "promptGuidelines": s.PromptGuidelines})
	}
	return out
}

// builtinCall is one execute of a tool factory's tool.
type builtinCall struct {
	Name       string          `json:"name"`
	Cwd        string          `json:"cwd"`
	ToolCallID string          `json:"toolCallId"`
	Params     json.RawMessage `json:"params"`
	// ShellPath is bash's shellPath option. The factory applied its
	// commandPrefix and a spawnHook's command, cwd and variables to the
	// command already; relay's shellCommandPrefix setting still applies,
	// as to the built-in.
	ShellPath string `json:"shellPath"`
}

// runBuiltin runs relay's built-in tool for a factory's execute: in the
// factory's cwd, its partial results streamed to the host as
// builtin_update notifications for request id.
func (m *Manager) runBuiltin(ctx context.Context, id int64, raw json.RawMessage) (any, error) {
	var p builtinCall
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("builtin_tool: %w", err)
	}
	env := builtin.Env{Cwd: m.opts.Cwd}
	if m.opts.ToolEnv != nil {
		env = m.opts.ToolEnv()
	}
	if p.Cwd != "" {
		env.Cwd = p.Cwd
	}
	if p.ShellPath != "" {
		env.ShellPath = p.ShellPath
	}
	t, err := builtin.New(p.Name, env)
	if err != nil {
		return nil, err
	}
	args := p.Params
	if isNull(args) {
		args = json.RawMessage("{}")
	}
	if p.ToolCallID != "" {
		ctx = tool.WithCallID(ctx, p.ToolCallID)
	}
	m.mu.Lock()
	rt := m.rt
	m.mu.Unlock()
	if rt != nil {
		// The built-in learns the run (model, session variables) as under
		// the agent.
		ctx = app.ToolContext(ctx, rt)
	}
	onUpdate := func(r tool.Result) {
		if c, err := m.conn(); err == nil {
			_ = c.notify("builtin_update", map[string]any{"req": id, "partial": wireResult(r)})
		}
	}
	return wireResult(t.Execute(ctx, args, onUpdate)), nil
}

// wireResult is a tool result as the host's AgentToolResult.
func wireResult(r tool.Result) map[string]any {
	content := r.Content
	if content == nil {
		content = llm.Blocks{}
	}
	out := map[string]any{"content": content}
	if r.Details != nil {
		out["details"] = r.Details
	}
	if r.IsError {
		out["isError"] = true
	}
	return out
}

// completeCall is pi-ai's complete(model, context, options) as the host
// sends it; the extension's own apiKey and headers are not used: relay's
// providers and credentials answer.
type completeCall struct {
	Model struct {
		Provider string `json:"provider"`
		ID       string `json:"id"`
	} `json:"model"`
	SystemPrompt string         `json:"systemPrompt"`
	Messages     llm.Messages   `json:"messages"`
	Tools        []llm.ToolSpec `json:"tools"`
	MaxTokens    int            `json:"maxTokens"`
	Temperature  *float64       `json:"temperature"`
	Reasoning    string         `json:"reasoning"`
}

// complete runs one request through the runtime's one-shot Complete (the
// model's client, its credentials, the retry policy) and answers the
// assistant message; a provider failure is the message's stopReason
// "error", as pi-ai's complete resolves it.
func (m *Manager) complete(ctx context.Context, raw json.RawMessage) (any, error) {
	var p completeCall
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("complete: %w", err)
	}
	m.mu.Lock()
	rt, base := m.rt, m.base
	m.mu.Unlock()
	if rt == nil {
		return nil, fmt.Errorf("complete: not available before the session starts")
	}
	var model *llm.Model
	if base != nil {
		model = base.Find(p.Model.Provider, p.Model.ID)
	}
	if model == nil {
		return nil, fmt.Errorf("complete: unknown model %s/%s", p.Model.Provider, p.Model.ID)
	}
	for i, t := range p.Tools {
		if len(t.Parameters) == 0 || isNull(t.Parameters) {
			p.Tools[i].Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
		}
	}
	req := &llm.Request{Model: model, SystemPrompt: p.SystemPrompt, Messages: llm.ToModelMessages(p.Messages),
		Tools: p.Tools, MaxTokens: p.MaxTokens, Temperature: p.Temperature, ThinkingLevel: llm.ThinkingLevel(p.Reasoning)}
	msg := rt.Complete(ctx, "extension", req)
	if msg == nil {
		return nil, fmt.Errorf("complete: no answer from %s/%s", model.Provider, model.ID)
	}
	if ctx.Err() != nil && msg.StopReason != llm.StopAborted {
		msg.StopReason = llm.StopAborted
	}
	return msg, nil
}
