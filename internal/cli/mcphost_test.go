package cli

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/mcp"
	"github.com/relay-agent/relay/internal/tool"
)

type namedTool string

func (n namedTool) Spec() llm.ToolSpec { return llm.ToolSpec{Name: string(n)} }
func (n namedTool) Execute(context.Context, json.RawMessage, func(tool.Result)) tool.Result {
	return tool.Text(string(n))
}

type loadout struct{ active []string }

func (l *loadout) Names() []string    { return slices.Clone(l.active) }
func (l *loadout) Set(names []string) { l.active = slices.Clone(names) }

// MCP tools reachable only through codemode or tool_search activate those
// tools; autoEnableCodemode false leaves codemode alone.
func TestMCPHostActivatesCodemodeAndToolSearch(t *testing.T) {
	for _, c := range []struct {
		name      string
		auto      bool
		exposures []mcp.Exposure
		want      []string
	}{
		{"codemode tools", true, []mcp.Exposure{mcp.ExposureCodemode}, []string{"read", "codemode"}},
		{"autoEnableCodemode false", false, []mcp.Exposure{mcp.ExposureCodemode}, []string{"read"}},
		{"deferred tools", true, []mcp.Exposure{mcp.ExposureDeferred}, []string{"read", "tool_search"}},
		{"direct tools", true, []mcp.Exposure{mcp.ExposureDirect}, []string{"read", "mcp__s__t0"}},
		{"hidden tools", true, []mcp.Exposure{mcp.ExposureHidden}, []string{"read"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg, _ := tool.NewRegistry(namedTool("read"), namedTool("codemode"), namedTool("tool_search"))
			lo := &loadout{active: []string{"read"}}
			h := &mcpHost{reg: reg, active: lo, toolsOn: true, autoCodemode: c.auto}
			var ts []mcp.Exposed
			for i, x := range c.exposures {
				ts = append(ts, mcp.Exposed{Tool: namedTool("mcp__s__t" + string(rune('0'+i))), Exposure: x})
			}
			h.SetMCPTools(ts)
			if !slices.Equal(lo.active, c.want) {
				t.Errorf("active %v, want %v", lo.active, c.want)
			}
			got, _ := reg.Get("mcp__s__t0")
			if tool.ExposureOf(got) != c.exposures[0] {
				t.Errorf("registered exposure %q, want %q", tool.ExposureOf(got), c.exposures[0])
			}
		})
	}
}
