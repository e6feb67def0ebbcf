package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// With RELAY_CLI_TEST_MCP set, the test binary is a stdio MCP server with
// one tool, shout, so the tests below run relay against a real process.
func TestMain(m *testing.M) {
	if os.Getenv("RELAY_CLI_TEST_MCP") != "" {
		s := sdk.NewServer(&sdk.Implementation{Name: "shouter", Version: "1"}, nil)
		type in struct {
			Text string `json:"text"`
		}
		sdk.AddTool(s, &sdk.Tool{Name: "shout", Description: "Upper-case the text"}, func(_ context.Context, _ *sdk.CallToolRequest, a in) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.ToUpper(a.Text)}}}, nil, nil
		})
		_ = s.Run(context.Background(), &sdk.StdioTransport{})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func writeMCPConfig(t *testing.T, agent, exposure string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{"mcpServers": map[string]any{"loud": map[string]any{
		"command": exe, "args": []string{"-test.run=^$"}, "env": map[string]string{"RELAY_CLI_TEST_MCP": "1"}, "exposure": exposure}}}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(agent, "mcp.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func fakeProviderEnv(t *testing.T, responses ...llmtest.Response) (*llmtest.Server, string) {
	t.Helper()
	srv := llmtest.NewServer(&llmtest.Script{Responses: responses})
	t.Cleanup(srv.Close)
	agent := t.TempDir()
	os.WriteFile(filepath.Join(agent, "models.json"), []byte(fmt.Sprintf(`{"providers":{"anthropic":{"baseUrl":%q}}}`, srv.URL)), 0o644)
	t.Setenv("RELAY_CODING_AGENT_DIR", agent)
	t.Setenv("ANTHROPIC_API_KEY", "test-key")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("RELAY_OFFLINE", "1")
	t.Setenv("RELAY_CODING_AGENT_SESSION_DIR", t.TempDir())
	t.Chdir(t.TempDir())
	return srv, agent
}

func declaredTools(req llmtest.Request) []string {
	var names []string
	tools, _ := req.Body["tools"].([]any)
	for _, x := range tools {
		if m, ok := x.(map[string]any); ok {
			names = append(names, fmt.Sprint(m["name"]))
		}
	}
	return names
}

func TestPrintModeCallsADirectMCPTool(t *testing.T) {
	srv, agent := fakeProviderEnv(t,
		llmtest.Response{ToolCalls: []llmtest.Block{{Type: "toolCall", Name: "mcp__loud__shout", Args: json.RawMessage(`{"text":"hello"}`)}}},
		llmtest.Response{Text: "done"})
	writeMCPConfig(t, agent, "direct")
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"-p", "--model", "anthropic/claude-sonnet-4-5", "shout hello"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests: %s", len(reqs), errb.String())
	}
	if names := declaredTools(reqs[0]); !strings.Contains(strings.Join(names, ","), "mcp__loud__shout") {
		t.Fatalf("the first request declares %v", names)
	}
	if !strings.Contains(string(reqs[1].Raw), "HELLO") {
		t.Fatalf("the tool result is not in the second request: %s", reqs[1].Raw)
	}
}

func TestCodemodeExposedMCPToolsAreNotDeclared(t *testing.T) {
	srv, agent := fakeProviderEnv(t, llmtest.Response{Text: "ok"})
	writeMCPConfig(t, agent, "codemode")
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"-p", "--model", "anthropic/claude-sonnet-4-5", "hi"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if names := declaredTools(srv.Requests()[0]); strings.Contains(strings.Join(names, ","), "mcp__") {
		t.Fatalf("codemode tools declared: %v", names)
	}
}

func TestBuiltinMCPOff(t *testing.T) {
	srv, agent := fakeProviderEnv(t, llmtest.Response{Text: "ok"})
	writeMCPConfig(t, agent, "direct")
	os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"extensions": ["-builtin:mcp"]}`), 0o644)
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"-p", "--model", "anthropic/claude-sonnet-4-5", "hi"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if names := declaredTools(srv.Requests()[0]); strings.Contains(strings.Join(names, ","), "mcp__") {
		t.Fatalf("-builtin:mcp still declared %v", names)
	}
}

// "-builtin:codemode" and "-builtin:tool-search" turn the built-in
// extensions off: their tools are not registered, so selecting them only
// warns.
func TestBuiltinCodemodeAndToolSearchOff(t *testing.T) {
	for _, c := range []struct {
		name, extensions string
		want             []string
	}{
		{"on", `[]`, []string{"read", "codemode", "tool_search"}},
		{"codemode off", `["-builtin:codemode"]`, []string{"read", "tool_search"}},
		{"both off", `["-builtin:codemode", "-builtin:tool-search"]`, []string{"read"}},
		{"off then on again", `["-builtin:codemode", "+builtin:codemode"]`, []string{"read", "codemode", "tool_search"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, agent := fakeProviderEnv(t, llmtest.Response{Text: "ok"})
			os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"defaultTools": ["read", "codemode", "tool_search"], "extensions": `+c.extensions+`}`), 0o644)
			var out, errb bytes.Buffer
			if code := Main(context.Background(), []string{"-p", "--model", "anthropic/claude-sonnet-4-5", "hi"}, strings.NewReader(""), &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if names := declaredTools(srv.Requests()[0]); strings.Join(names, ",") != strings.Join(c.want, ",") {
				t.Errorf("declared %v, want %v", names, c.want)
			}
			if off := len(c.want) < 3; off != strings.Contains(errb.String(), "unknown tool") {
				t.Errorf("stderr %q", errb.String())
			}
		})
	}
}

func TestMCPSubcommand(t *testing.T) {
	agent := t.TempDir()
	t.Setenv("RELAY_CODING_AGENT_DIR", agent)
	t.Chdir(t.TempDir())
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"mcp", "add", "docs", "--url", "https://docs.example/mcp"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("add: %d %s", code, errb.String())
	}
	if b, err := os.ReadFile(filepath.Join(agent, "mcp.json")); err != nil || !strings.Contains(string(b), "https://docs.example/mcp") {
		t.Fatalf("mcp.json = %s %v", b, err)
	}
	out.Reset()
	if code := Main(context.Background(), []string{"mcp", "remove", "docs"}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), "Removed") {
		t.Fatalf("remove: %d %s %s", code, out.String(), errb.String())
	}
}
