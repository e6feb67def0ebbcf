package codemode

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// callNested runs one script tool call as a real tool call: through the
// runner the agent loop put in ctx (tool_execution events with the parent
// id, the tool_call hooks that may block it or change its input, the
// tool_result hooks, the nestedCalls record), or, when the tool runs
// outside a loop, through the hook seam alone.
func (t *Tool) callNested(ctx context.Context, rec *recorder, x tool.Tool, name string, args json.RawMessage) (json.RawMessage, error) {
	runner := tool.NestedFrom(ctx)
	if runner == nil {
		runner = rec.fallback
	}
	i := rec.start(name, args)
	start := time.Now()
	out := runner.RunNested(ctx, tool.NestedCall{Name: name, Tool: x, Args: args, OnStart: func(id string) { rec.setID(i, id) }})
	wall := time.Since(start)
	r := out.Result
	text := textOf(r.Content)
	if out.Blocked {
		rec.finish(i, "blocked", text, wall)
		return nil, errors.New(text)
	}
	status := "ok"
	if r.IsError {
		status = "error"
		if ctx.Err() != nil {
			status = "cancelled"
		}
	}
	// A tool with a structured result (MCP: the whole CallToolResult)
	// resolves to it, also when it reports an error.
	if len(r.Structured) > 0 {
		rec.finish(i, status, errIf(r.IsError, text), wall)
		return r.Structured, nil
	}
	if name == "bash" {
		if v, ok := bashValue(text, r.IsError, detailsJSON(r.Details), wall); ok {
			rec.finish(i, status, errIf(r.IsError, text), wall)
			return v, nil
		}
	}
	if r.IsError {
		if text == "" {
			text = fmt.Sprintf("Tool %q failed", name)
		}
		rec.finish(i, status, text, wall)
		return nil, errors.New(text)
	}
	rec.finish(i, status, "", wall)
	return json.Marshal(text)
}

func detailsJSON(d any) json.RawMessage {
	switch v := d.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return v
	}
	b, err := json.Marshal(d)
	if err != nil || string(b) == "null" {
		return nil
	}
	return b
}

// seamRunner runs nested calls of a codemode call executed outside an
// agent loop (tests, a direct Execute): the tool_call and tool_result
// hooks apply, no events are emitted.
type seamRunner struct {
	hooks  *hooks.Set
	now    func() time.Time
	parent string
	mu     sync.Mutex
	n      int
}

func (s *seamRunner) RunNested(ctx context.Context, nc tool.NestedCall) tool.NestedOutcome {
	s.mu.Lock()
	s.n++
	id := s.parent + "/" + strconv.Itoa(s.n)
	s.mu.Unlock()
	if nc.OnStart != nil {
		nc.OnStart(id)
	}
	call := &llm.ToolCall{ID: id, Name: nc.Name, Arguments: nc.Args}
	if s.hooks != nil && s.hooks.ToolCall.Has() {
		if res := s.hooks.RunToolCall(ctx, hooks.ToolCall{Call: call, ParentToolCallID: s.parent}); res.Block {
			reason := res.Reason
			if reason == "" {
				reason = "Tool call blocked"
			}
			return tool.NestedOutcome{ID: id, Result: tool.Error(reason), Blocked: true}
		}
	}
	r := nc.Tool.Execute(tool.WithCallID(ctx, id), call.Arguments, nc.OnUpdate)
	msg := &llm.ToolResultMessage{ToolCallID: id, ToolName: nc.Name, Content: r.Content, Details: detailsJSON(r.Details), IsError: r.IsError, Timestamp: s.now().UnixMilli()}
	if s.hooks != nil && s.hooks.ToolResult.Has() {
		s.hooks.ToolResult.Notify(ctx, &hooks.ToolResult{Call: call, Result: msg})
	}
	return tool.NestedOutcome{ID: id, Result: tool.Result{Content: msg.Content, Details: msg.Details, IsError: msg.IsError, Structured: r.Structured}}
}

func errIf(b bool, s string) string {
	if b {
		return s
	}
	return ""
}

func textOf(bs llm.Blocks) string {
	var parts []string
	for _, b := range bs {
		if tc, ok := b.(*llm.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

var exitStatus = regexp.MustCompile(`(?:\n\n|^)Command exited with code (-?\d+)$`)

// bashValue is bash's structured result. A non-zero exit resolves too
// (scripts read exit_code); a timeout, abort or a command that could not
// start rejects.
func bashValue(text string, isError bool, details json.RawMessage, wall time.Duration) (json.RawMessage, bool) {
	code := 0
	if isError {
		m := exitStatus.FindStringSubmatchIndex(text)
		if m == nil {
			return nil, false
		}
		code, _ = strconv.Atoi(text[m[2]:m[3]])
		text = text[:m[0]]
	}
	if text == "(no output)" {
		text = ""
	}
	var d struct {
		Truncation *struct {
			Truncated bool `json:"truncated"`
		} `json:"truncation"`
		FullOutputPath string `json:"fullOutputPath"`
	}
	if len(details) > 0 {
		_ = json.Unmarshal(details, &d)
	}
	v := map[string]any{
		"output":            text,
		"truncated":         d.Truncation != nil && d.Truncation.Truncated,
		"exit_code":         code,
		"wall_time_seconds": float64(wall.Milliseconds()) / 1000,
	}
	if d.FullOutputPath != "" {
		v["full_output_path"] = d.FullOutputPath
	}
	b, err := json.Marshal(v)
	return b, err == nil
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func sortNamespaces(order []string) {
	sort.SliceStable(order, func(i, j int) bool {
		if order[i] == "" || order[j] == "" {
			return order[i] == ""
		}
		return order[i] < order[j]
	})
}

func sortEntries[E any](es []E, less func(a, b E) bool) {
	sort.SliceStable(es, func(i, j int) bool { return less(es[i], es[j]) })
}

// schemaType renders a JSON Schema as a TypeScript type, bounded in depth.
func schemaType(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return "Record<string, unknown>"
	}
	return tsType(v, 0)
}

func tsType(v any, depth int) string {
	m, ok := v.(map[string]any)
	if !ok || depth > 4 {
		return "unknown"
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		var parts []string
		for _, x := range e {
			b, _ := json.Marshal(x)
			parts = append(parts, string(b))
		}
		return strings.Join(parts, " | ")
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok && len(alts) > 0 {
			var parts []string
			for _, a := range alts {
				parts = append(parts, tsType(a, depth+1))
			}
			return strings.Join(parts, " | ")
		}
	}
	typ, _ := m["type"].(string)
	switch typ {
	case "string":
		return "string"
	case "number", "integer":
		return "number"
	case "boolean":
		return "boolean"
	case "null":
		return "null"
	case "array":
		return "Array<" + tsType(m["items"], depth+1) + ">"
	}
	props, _ := m["properties"].(map[string]any)
	if typ != "object" && props == nil {
		return "unknown"
	}
	if len(props) == 0 {
		return "Record<string, unknown>"
	}
	req := map[string]bool{}
	if r, ok := m["required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok {
				req[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	var sb strings.Builder
	sb.WriteString("{ ")
	for _, k := range names {
		p := props[k]
		key := k
		if Identifier(k) != k {
			key = strconv.Quote(k)
		}
		opt := "?"
		if req[k] {
			opt = ""
		}
		if pm, ok := p.(map[string]any); ok {
			if d, ok := pm["description"].(string); ok && d != "" && depth < 2 {
				sb.WriteString("/** " + strings.ReplaceAll(firstLine(d), "*/", "*\\/") + " */ ")
			}
		}
		fmt.Fprintf(&sb, "%s%s: %s; ", key, opt, tsType(p, depth+1))
	}
	sb.WriteString("}")
	return sb.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
