package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// Names of the resource tools.
const (
	ListResourcesTool         = "list_mcp_resources"
	ListResourceTemplatesTool = "list_mcp_resource_templates"
)

// resourceWait bounds how long the resource tools wait for servers still
// connecting.
var resourceWait = DirectWait

// isAppResource reports MCP App resources, which relay does not render.
func isAppResource(uri, mime string) bool {
	return strings.HasPrefix(uri, "ui://") || strings.HasPrefix(strings.ToLower(mime), "text/html;profile=mcp-app")
}

// methodNotFound is JSON-RPC's code for an unknown method.
const methodNotFound = -32601

func isMethodNotFound(err error) bool {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we.Code == methodNotFound
	}
	return false
}

// lister is what list_mcp_resources and list_mcp_resource_templates
// share: pages of one kind of item, the items an agent may see, their JSON.
type lister[T any] struct {
	key, what string // "resources", "resources" / "resourceTemplates", "resource templates"
	page      func(ctx context.Context, sess *sdk.ClientSession, cursor string) ([]T, string, error)
	visible   func(T) bool
	json      func(server string, item T) map[string]any
}

var resourceLister = lister[*sdk.Resource]{key: "resources", what: "resources",
	page: func(ctx context.Context, sess *sdk.ClientSession, cursor string) ([]*sdk.Resource, string, error) {
		res, err := sess.ListResources(ctx, &sdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Resources, res.NextCursor, nil
	},
	visible: func(r *sdk.Resource) bool { return r != nil && !isAppResource(r.URI, r.MIMEType) },
	json:    resourceJSON,
}

var templateLister = lister[*sdk.ResourceTemplate]{key: "resourceTemplates", what: "resource templates",
	page: func(ctx context.Context, sess *sdk.ClientSession, cursor string) ([]*sdk.ResourceTemplate, string, error) {
		res, err := sess.ListResourceTemplates(ctx, &sdk.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			if isMethodNotFound(err) { // a server without templates
				return nil, "", nil
			}
			return nil, "", err
		}
		return res.ResourceTemplates, res.NextCursor, nil
	},
	visible: func(r *sdk.ResourceTemplate) bool { return r != nil && !isAppResource(r.URITemplate, r.MIMEType) },
	json:    templateJSON,
}

// all reads every page (at most maxListPages) and keeps the visible items.
func (l lister[T]) all(ctx context.Context, sess *sdk.ClientSession) ([]T, error) {
	var out []T
	cursor := ""
	for page := 0; page < maxListPages; page++ {
		items, next, err := l.page(ctx, sess, cursor)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if l.visible(it) {
				out = append(out, it)
			}
		}
		if next == "" || next == cursor {
			break
		}
		cursor = next
	}
	return out, nil
}

func allResources(ctx context.Context, sess *sdk.ClientSession) ([]*sdk.Resource, error) {
	return resourceLister.all(ctx, sess)
}

func allTemplates(ctx context.Context, sess *sdk.ClientSession) ([]*sdk.ResourceTemplate, error) {
	return templateLister.all(ctx, sess)
}

// run is the tool: one page of one server (a cursor continues it), or
// every item of every server with the servers that failed named.
func (l lister[T]) run(ctx context.Context, m *Manager, a listArgs) tool.Result {
	if a.Server != "" {
		s, err := m.pickServer(ctx, a.Server)
		if err != nil {
			return tool.Error(err.Error())
		}
		var items []T
		var next string
		err = s.request(ctx, true, nil, func(ctx context.Context, sess *sdk.ClientSession, _ string) error {
			var err error
			items, next, err = l.page(ctx, sess, a.Cursor)
			return err
		})
		if err != nil {
			return tool.Errorf("list %s of %q: %v", l.what, a.Server, err)
		}
		list := []map[string]any{}
		for _, it := range items {
			if l.visible(it) {
				list = append(list, l.json(a.Server, it))
			}
		}
		out := map[string]any{"server": a.Server, l.key: list}
		if next != "" {
			out["nextCursor"] = next
		}
		return jsonResult(out)
	}
	m.WaitAll(ctx, resourceWait)
	list := []map[string]any{}
	var errs []string
	for _, s := range m.resourceServers() {
		var all []T
		err := s.request(ctx, true, nil, func(ctx context.Context, sess *sdk.ClientSession, _ string) error {
			var err error
			all, err = l.all(ctx, sess)
			return err
		})
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", s.Entry.Name, err))
			continue
		}
		for _, it := range all {
			list = append(list, l.json(s.Entry.Name, it))
		}
	}
	out := map[string]any{l.key: list}
	if len(errs) > 0 {
		out["errors"] = errs
	}
	return jsonResult(out)
}

// resourceServers are the connected, enabled, non-hidden servers with
// resources.
func (m *Manager) resourceServers() []*Server {
	var out []*Server
	for _, s := range m.Servers() {
		st := s.Status()
		if st.State == StateConnected && st.HasResources && s.Entry.Config.ServerExposure() != ExposureHidden {
			out = append(out, s)
		}
	}
	return out
}

// resourceExposure is the widest exposure among the servers with
// resources: direct, then codemode, then deferred.
func (m *Manager) resourceExposure() (Exposure, bool) {
	servers := m.resourceServers()
	if len(servers) == 0 {
		return "", false
	}
	best := ExposureDeferred
	for _, s := range servers {
		switch s.Entry.Config.ServerExposure() {
		case ExposureDirect:
			return ExposureDirect, true
		case ExposureCodemode:
			best = ExposureCodemode
		}
	}
	return best, true
}

func (m *Manager) resourceTools() []tool.Tool {
	return []tool.Tool{&listResourcesTool{m: m}, &listTemplatesTool{m: m}, &readResourceTool{m: m}}
}

type listArgs struct {
	Server string `json:"server,omitempty" jsonschema:"Server to list; without it every server is listed"`
	Cursor string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page (with server)"`
}

type readArgs struct {
	Server string `json:"server" jsonschema:"Server that has the resource"`
	URI    string `json:"uri" jsonschema:"Resource URI"`
}

var (
	listSchemaOnce sync.Once
	listSchema     json.RawMessage
	readSchemaOnce sync.Once
	readSchema     json.RawMessage
)

func listParams() json.RawMessage {
	listSchemaOnce.Do(func() { listSchema = tool.SchemaFor[listArgs]() })
	return listSchema
}

func readParams() json.RawMessage {
	readSchemaOnce.Do(func() { readSchema = tool.SchemaFor[readArgs]() })
	return readSchema
}

func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

func jsonResult(v any) tool.Result {
	b, err := llm.Marshal(v)
	if err != nil {
		return tool.Errorf("encode result: %v", err)
	}
	return tool.Text(string(b))
}

// pickServer finds a server with resources by name.
func (m *Manager) pickServer(ctx context.Context, name string) (*Server, error) {
	s := m.Server(name)
	if s == nil {
		var names []string
		for _, x := range m.Servers() {
			names = append(names, x.Entry.Name)
		}
		return nil, fmt.Errorf("no MCP server named %q (configured: %s)", name, strings.Join(names, ", "))
	}
	if s.Entry.Config.ServerExposure() == ExposureHidden {
		return nil, fmt.Errorf("MCP server %q is hidden", name)
	}
	if _, err := s.session(ctx); err != nil {
		return nil, err
	}
	if !s.Status().HasResources {
		return nil, fmt.Errorf("MCP server %q offers no resources", name)
	}
	return s, nil
}

func resourceJSON(server string, r *sdk.Resource) map[string]any {
	o := map[string]any{"server": server, "uri": r.URI, "name": r.Name}
	if r.Title != "" {
		o["title"] = r.Title
	}
	if r.Description != "" {
		o["description"] = r.Description
	}
	if r.MIMEType != "" {
		o["mimeType"] = r.MIMEType
	}
	if r.Size > 0 {
		o["size"] = r.Size
	}
	return o
}

func templateJSON(server string, r *sdk.ResourceTemplate) map[string]any {
	o := map[string]any{"server": server, "uriTemplate": r.URITemplate, "name": r.Name}
	if r.Title != "" {
		o["title"] = r.Title
	}
	if r.Description != "" {
		o["description"] = r.Description
	}
	if r.MIMEType != "" {
		o["mimeType"] = r.MIMEType
	}
	return o
}

type listResourcesTool struct{ m *Manager }

func (t *listResourcesTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: ListResourcesTool, Parameters: listParams(),
		Description: "List the resources of connected MCP servers as JSON. With server, lists one page (cursor continues); without, lists every resource of every server."}
}

func (t *listResourcesTool) Execute(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) tool.Result {
	var a listArgs
	if err := decodeArgs(raw, &a); err != nil {
		return tool.Error(err.Error())
	}
	return resourceLister.run(ctx, t.m, a)
}

type listTemplatesTool struct{ m *Manager }

func (t *listTemplatesTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: ListResourceTemplatesTool, Parameters: listParams(),
		Description: "List the resource URI templates of connected MCP servers as JSON, for resources the servers do not list directly."}
}

func (t *listTemplatesTool) Execute(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) tool.Result {
	var a listArgs
	if err := decodeArgs(raw, &a); err != nil {
		return tool.Error(err.Error())
	}
	return templateLister.run(ctx, t.m, a)
}

type readResourceTool struct{ m *Manager }

func (t *readResourceTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: ReadResourceTool, Parameters: readParams(),
		Description: "Read a resource of an MCP server by server name and URI. Text comes back as text, images as images; other binary content is saved to a temporary file whose path is returned."}
}

func (t *readResourceTool) Execute(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) tool.Result {
	var a readArgs
	if err := decodeArgs(raw, &a); err != nil {
		return tool.Error(err.Error())
	}
	if a.Server == "" || a.URI == "" {
		return tool.Error("read_mcp_resource needs \"server\" and \"uri\"")
	}
	s, err := t.m.pickServer(ctx, a.Server)
	if err != nil {
		return tool.Error(err.Error())
	}
	var res *sdk.ReadResourceResult
	err = s.request(ctx, true, nil, func(ctx context.Context, sess *sdk.ClientSession, _ string) error {
		var err error
		res, err = sess.ReadResource(ctx, &sdk.ReadResourceParams{URI: a.URI})
		return err
	})
	if err != nil {
		return tool.Errorf("read %s from %q: %v", a.URI, a.Server, err)
	}
	c := t.m.converter(s)
	var blocks llm.Blocks
	for _, r := range res.Contents {
		if r != nil {
			blocks = append(blocks, c.resourceContents(r)...)
		}
	}
	if len(blocks) == 0 {
		blocks = llm.Blocks{&llm.TextContent{Text: fmt.Sprintf("Resource %s has no contents", a.URI)}}
	}
	out, full := c.limit(blocks)
	return tool.Result{Content: out, Details: Details{Server: a.Server, Tool: ReadResourceTool, FullOutputPath: full}}
}
