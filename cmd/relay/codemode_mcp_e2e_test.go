package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// everythingServer returns the reference MCP server's script, installing
// it with npm into the cache the internal/mcp tests use when missing.
func everythingServer(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"node", "npm"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed: the codemode/MCP test needs node and npm", p)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "relay-test", "mcp-servers")
	script := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		out, err := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir,
			"@modelcontextprotocol/server-everything@2026.8.31").CombinedOutput()
		if err != nil {
			t.Fatalf("npm install: %v\n%s", err, out)
		}
	}
	return script
}

// MCP tools with codemode exposure are called from a script; a deferred
// one is found by tool_search, declared, and called directly.
func TestCodemodeAndToolSearchReachMCPTools(t *testing.T) {
	script := everythingServer(t)
	code, _ := json.Marshal(map[string]string{"code": `const sum = await tools.mcp__everything__get_sum({a: 2, b: 3});
const found = await searchTools("sum two numbers", {limit: 1});
return [sum, found[0].name]`})
	e := newEnv(t, &llmtest.Script{Responses: []llmtest.Response{
		{ToolCalls: []llmtest.Block{tc("codemode", string(code))}},
		{ToolCalls: []llmtest.Block{tc("tool_search", `{"query":"tiny image"}`)}},
		{ToolCalls: []llmtest.Block{tc("mcp__everything__get_tiny_image", `{}`)}},
		{Text: "done"},
	}}, nil)
	cfg := map[string]any{"mcpServers": map[string]any{"everything": map[string]any{
		"command": "node", "args": []string{script, "stdio"},
		// echo is direct so the first prompt waits for the server.
		"toolExposure": map[string]string{"echo": "direct", "get-tiny-image": "deferred"}}}}
	b, _ := json.Marshal(cfg)
	os.WriteFile(filepath.Join(e.agentDir, "mcp.json"), b, 0o644)
	_, errOut, code2 := e.run("-p", model, "use the mcp server")
	if code2 != 0 {
		t.Fatalf("exit %d: %s", code2, errOut)
	}
	reqs := e.fake.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests; stderr %s", len(reqs), errOut)
	}
	first := declaredTools(t, reqs[0].Raw)
	for _, want := range []string{"codemode", "tool_search", "mcp__everything__echo"} {
		if !slices.Contains(first, want) {
			t.Errorf("first request declares %v, missing %s", first, want)
		}
	}
	// The model is told the server exists and how to reach its tools.
	if r := string(reqs[0].Raw); !strings.Contains(r, "MCP servers whose tools are not declared to you.") || !strings.Contains(r, "- mcp__everything (codemode)") {
		t.Errorf("the first request lacks the mcp_servers section")
	}
	if slices.Contains(first, "mcp__everything__get_tiny_image") || slices.Contains(first, "mcp__everything__get_sum") {
		t.Errorf("a codemode or deferred MCP tool was declared: %v", first)
	}
	if r := string(reqs[1].Raw); !strings.Contains(r, "Script completed") || !strings.Contains(r, "5") || !strings.Contains(r, `mcp__everything__get_sum\"]`) {
		t.Errorf("codemode result: %s", r[strings.LastIndex(r, "tool_result"):])
	}
	if !slices.Contains(declaredTools(t, reqs[2].Raw), "mcp__everything__get_tiny_image") {
		t.Errorf("tool_search did not declare the deferred tool: %v", declaredTools(t, reqs[2].Raw))
	}
	if r := string(reqs[3].Raw); !strings.Contains(r, `"type":"image"`) {
		t.Errorf("the found tool's image result was not sent back")
	}
}
