package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// Name is the tool's name.
const Name = "tool_search"

// DefaultLimit is how many tools one search returns by default.
const DefaultLimit = 8

// maxLimit bounds a model-chosen limit.
const maxLimit = 50

// Loadout is what the tool changes: the active (declared) tools
// (*tool.Active, shared with the runtime).
type Loadout interface {
	Names() []string
	Set(names []string)
}

// Tool is tool_search.
type Tool struct {
	tools   *tool.Registry
	loadout Loadout
	cache   Cache
}

// New returns the tool over reg; found tools join loadout (nil: none is
// loaded).
func New(reg *tool.Registry, loadout Loadout) *Tool {
	return &Tool{tools: reg, loadout: loadout}
}

var params = json.RawMessage(`{"type":"object","properties":{` +
	`"query":{"type":"string","description":"Words describing the capability you need, e.g. \"create github issue\" or a tool name"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":50,"description":"How many tools to load at most (default 8)"}},` +
	`"required":["query"],"additionalProperties":false}`)

// Spec implements tool.Tool.
func (t *Tool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: Name, Parameters: params,
		Description: "Search tools that are available but not loaded yet (such as MCP server tools) by name, description and parameters. " +
			"Matching tools are loaded for the rest of the session: call them directly in your next step."}
}

// Execute implements tool.Tool.
func (t *Tool) Execute(ctx context.Context, args json.RawMessage, _ func(tool.Result)) tool.Result {
	var in struct {
		Query string `json:"query"`
		Limit *int   `json:"limit"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tool.Errorf("tool_search: invalid arguments: %v", err)
	}
	if strings.TrimSpace(in.Query) == "" {
		return tool.Error("tool_search: argument query must be a non-empty string")
	}
	limit := DefaultLimit
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > maxLimit {
			return tool.Errorf("tool_search: argument limit must be between 1 and %d, got %d", maxLimit, *in.Limit)
		}
		limit = *in.Limit
	}
	docs := t.Deferred()
	if len(docs) == 0 {
		return tool.Text("No deferred tools are available to search; every tool is already declared.")
	}
	hits := t.cache.Get(docs).Search(in.Query, limit, nil)
	if len(hits) == 0 {
		return tool.Text(fmt.Sprintf("No tools match %q (%d deferred tools searched). Try other words.", in.Query, len(docs)))
	}
	lo := t.loadout
	var loaded []string
	if lo != nil {
		active := lo.Names()
		have := map[string]bool{}
		for _, n := range active {
			have[n] = true
		}
		for _, h := range hits {
			if !have[h.Doc.Name] {
				active = append(active, h.Doc.Name)
				have[h.Doc.Name] = true
				loaded = append(loaded, h.Doc.Name)
			}
		}
		if len(loaded) > 0 {
			lo.Set(active)
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Found %d tool(s) for %q; they are loaded and can be called directly:\n", len(hits), in.Query)
	for _, h := range hits {
		fmt.Fprintf(&sb, "\n- %s", h.Doc.Name)
		if h.Doc.Namespace != "" {
			fmt.Fprintf(&sb, " [%s]", h.Doc.Namespace)
		}
		if d := firstLine(h.Doc.Description, 200); d != "" {
			sb.WriteString(": " + d)
		}
	}
	return tool.Result{Content: llm.Blocks{&llm.TextContent{Text: sb.String()}}, Details: map[string]any{"loaded": loaded, "matches": names(hits)}}
}

// Deferred returns the documents of the registry's deferred tools.
func (t *Tool) Deferred() []Doc {
	var docs []Doc
	for _, n := range t.tools.Names() {
		if x, ok := t.tools.Get(n); ok && tool.ExposureOf(x) == tool.ExposeDeferred {
			docs = append(docs, DocOf(x))
		}
	}
	return docs
}

func names(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Doc.Name
	}
	return out
}

func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}
