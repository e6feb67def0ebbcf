package ext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// extTool is a tool an extension registered; Execute runs it in the host.
type extTool struct {
	m        *Manager
	src      string
	spec     llm.ToolSpec
	exposure tool.Exposure
	required []string
}

func (m *Manager) addTool(src string, it regItem) error {
	params := it.Parameters
	if isNull(params) {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	var schema struct {
		Type     string         `json:"type"`
		Required []string       `json:"required"`
		Props    map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(params, &schema); err != nil {
		return fmt.Errorf("tool %s: parameters are not a JSON Schema object: %w", it.Name, err)
	}
	if schema.Type != "" && schema.Type != "object" {
		return fmt.Errorf("tool %s: parameters must be an object schema, got type %q", it.Name, schema.Type)
	}
	desc := it.Description
	t := &extTool{m: m, src: src, spec: llm.ToolSpec{Name: it.Name, Description: desc, Parameters: params,
		PromptSnippet: strings.TrimSpace(it.Snippet), PromptGuidelines: it.Guidelines},
		exposure: tool.Exposure(it.Exposure), required: schema.Required}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, taken := m.opts.Tools.Get(it.Name); taken {
		if prev, ok := old.(*extTool); ok && prev.m == m && prev.src == src && slices.Contains(m.tools, it.Name) {
			// A restarted host registers its tools again.
			m.opts.Tools.Replace(t)
			return nil
		}
		if _, isExt := old.(*extTool); !isExt {
			// Registered after start-up over a built-in: it replaces it.
			m.shadow(it.Name, old, src)
			m.opts.Tools.Replace(t)
			m.tools = append(m.tools, it.Name)
			return nil
		}
		return fmt.Errorf("tool %s: a tool with that name is already registered", it.Name)
	}
	if err := m.opts.Tools.Add(t); err != nil {
		return err
	}
	m.tools = append(m.tools, it.Name)
	return nil
}

func (t *extTool) Spec() llm.ToolSpec { return t.spec }

func (t *extTool) Exposure() tool.Exposure { return t.exposure }

// Execute runs the tool in the host: ctx's end aborts the extension's
// signal; onUpdate receives its streamed partial results; a throw is a
// failed result (reported with the extension's path).
func (t *extTool) Execute(ctx context.Context, args json.RawMessage, onUpdate func(tool.Result)) tool.Result {
	var params map[string]json.RawMessage
	if err := json.Unmarshal(args, &params); err != nil || params == nil {
		return tool.Errorf("Invalid arguments for %s: expected a JSON object", t.spec.Name)
	}
	var missing []string
	for _, r := range t.required {
		if _, ok := params[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return tool.Errorf("Invalid arguments for %s: missing required argument(s) %s", t.spec.Name, strings.Join(missing, ", "))
	}
	c, err := t.m.conn()
	if err != nil {
		return tool.Errorf("Tool %s failed: %v", t.spec.Name, err)
	}
	var reqID int64
	raw, err := c.callWith(ctx, "tool", map[string]any{"name": t.spec.Name, "toolCallId": tool.CallID(ctx), "params": args, "state": t.m.state()},
		func(id int64) {
			reqID = id
			if onUpdate == nil {
				return
			}
			t.m.mu.Lock()
			t.m.updates[id] = func(p json.RawMessage) {
				if r, err := decodeResult(p); err == nil {
					onUpdate(r)
				}
			}
			t.m.mu.Unlock()
		})
	t.m.mu.Lock()
	delete(t.m.updates, reqID)
	t.m.mu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			return tool.Errorf("Tool %s was aborted.", t.spec.Name)
		}
		if !errors.Is(err, errHostGone) {
			// A host crash is reported once, by the watcher.
			t.m.report(t.src, "tool:"+t.spec.Name, err)
		}
		return tool.Errorf("%v", err)
	}
	r, err := decodeResult(raw)
	if err != nil {
		t.m.report(t.src, "tool:"+t.spec.Name, err)
		return tool.Errorf("Tool %s returned an invalid result: %v", t.spec.Name, err)
	}
	return r
}

// decodeResult reads an AgentToolResult: {content, details, isError?,
// terminate?}.
func decodeResult(raw json.RawMessage) (tool.Result, error) {
	var r struct {
		Content   json.RawMessage `json:"content"`
		Details   json.RawMessage `json:"details"`
		IsError   bool            `json:"isError"`
		Terminate bool            `json:"terminate"`
		// structuredContent is what codemode scripts receive.
		Structured json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return tool.Result{}, err
	}
	out := tool.Result{IsError: r.IsError, Terminate: r.Terminate}
	if !isNull(r.Content) {
		if err := json.Unmarshal(r.Content, &out.Content); err != nil {
			return tool.Result{}, fmt.Errorf("content: %w", err)
		}
	}
	if !isNull(r.Details) {
		out.Details = r.Details
	}
	if !isNull(r.Structured) {
		out.Structured = r.Structured
	}
	return out, nil
}

// builtinTool is a relay tool an extension's tool of the same name
// replaced.
type builtinTool struct {
	tool tool.Tool
	by   string // the extension
}

// shadow records that src's tool replaces built-in old (under m.mu).
func (m *Manager) shadow(name string, old tool.Tool, src string) {
	if m.shadowed == nil {
		m.shadowed = map[string]builtinTool{}
	}
	if _, done := m.shadowed[name]; !done {
		m.shadowed[name] = builtinTool{tool: old, by: src}
	}
}

// Overrides lists the built-in tools extensions replaced: tool name ->
// the extension's path (the TUI warns about each, as the original does).
func (m *Manager) Overrides() map[string]string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]string, len(m.shadowed))
	for n, b := range m.shadowed {
		out[n] = b.by
	}
	return out
}
