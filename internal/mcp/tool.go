package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// Annotations are the boolean hints a server declares for a tool.
type Annotations struct {
	ReadOnlyHint    *bool `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool `json:"openWorldHint,omitempty"`
}

// Tool is one server tool as a tool.Tool. Besides what the agent loop
// needs it tells its exposure, server and namespace, and Call returns the
// whole CallToolResult, for codemode scripts and tool search.
type Tool struct {
	server   *Server
	name     string
	remote   *sdk.Tool
	exposure Exposure

	specOnce sync.Once
	spec     llm.ToolSpec
}

var _ tool.Tool = (*Tool)(nil)

// Name is the model-facing name, mcp__<server>__<tool>.
func (t *Tool) Name() string { return t.name }

// Server is the configured server name.
func (t *Tool) Server() string { return t.server.Entry.Name }

// RemoteName is the tool's name on the server.
func (t *Tool) RemoteName() string { return t.remote.Name }

// Namespace is mcp__<server>.
func (t *Tool) Namespace() string { return Namespace(t.server.Entry.Name) }

// Exposure is the tool's effective exposure.
func (t *Tool) Exposure() Exposure { return t.exposure }

// Title is the tool's display title, if it has one.
func (t *Tool) Title() string {
	if t.remote.Title != "" {
		return t.remote.Title
	}
	if t.remote.Annotations != nil {
		return t.remote.Annotations.Title
	}
	return ""
}

// OutputSchema is the server's output schema (nil when none).
func (t *Tool) OutputSchema() json.RawMessage {
	if t.remote.OutputSchema == nil {
		return nil
	}
	b, err := json.Marshal(t.remote.OutputSchema)
	if err != nil {
		return nil
	}
	return b
}

// ResultSchema is the schema of what codemode scripts receive: the
// CallToolResult, with the server's output schema as structuredContent.
func (t *Tool) ResultSchema() json.RawMessage {
	props := map[string]any{
		"content": map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
		"isError": map[string]any{"type": "boolean"},
	}
	if t.remote.OutputSchema != nil {
		props["structuredContent"] = t.remote.OutputSchema
	}
	b, err := json.Marshal(map[string]any{"type": "object", "properties": props, "required": []string{"content"}})
	if err != nil {
		return nil
	}
	return b
}

// Annotations returns the server's hints.
func (t *Tool) Annotations() Annotations {
	a := t.remote.Annotations
	if a == nil {
		return Annotations{}
	}
	ro, idem := a.ReadOnlyHint, a.IdempotentHint
	return Annotations{ReadOnlyHint: &ro, DestructiveHint: a.DestructiveHint, IdempotentHint: &idem, OpenWorldHint: a.OpenWorldHint}
}

// Spec is the declaration: the server's description (else its title),
// and its input schema as an object schema with properties.
func (t *Tool) Spec() llm.ToolSpec {
	t.specOnce.Do(func() {
		desc := strings.TrimSpace(t.remote.Description)
		if desc == "" {
			desc = t.Title()
		}
		if desc == "" {
			desc = "MCP tool " + t.remote.Name + " from server " + t.Server()
		}
		t.spec = llm.ToolSpec{Name: t.name, Description: desc, Parameters: inputSchema(t.remote.InputSchema)}
	})
	return t.spec
}

// inputSchema makes a tool's schema an object schema with properties:
// servers may omit "type", and some providers reject objects without
// properties.
func inputSchema(s any) json.RawMessage {
	var m map[string]any
	if raw, err := json.Marshal(s); err == nil {
		_ = json.Unmarshal(raw, &m)
	}
	if m == nil {
		m = map[string]any{}
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	b, _ := llm.Marshal(m)
	return b
}

// Execute calls the tool. MCP errors (isError) and failures to reach the
// server are error results the model sees.
func (t *Tool) Execute(ctx context.Context, args json.RawMessage, onUpdate func(tool.Result)) tool.Result {
	progress := func(msg string) {
		if onUpdate != nil {
			onUpdate(tool.Result{Content: llm.Blocks{&llm.TextContent{Text: msg}},
				Details: Details{Server: t.Server(), Tool: t.remote.Name}})
		}
	}
	res, err := t.server.CallTool(ctx, t.remote.Name, args, progress)
	if err != nil {
		return tool.Result{Content: llm.Blocks{&llm.TextContent{Text: err.Error()}},
			Details: Details{Server: t.Server(), Tool: t.remote.Name}, IsError: true}
	}
	content, details, isErr := t.server.m.converter(t.server).convertResult(t.remote.Name, res)
	return tool.Result{Content: content, Details: details, IsError: isErr, Structured: scriptResult(res)}
}

// scriptResult is the CallToolResult as codemode scripts receive it:
// without _meta, never truncated, content blocks as the server sent them,
// structuredContent and isError as data.
func scriptResult(res *sdk.CallToolResult) json.RawMessage {
	r := *res
	r.Meta = nil
	b, err := json.Marshal(&r)
	if err != nil {
		return nil
	}
	return b
}
