package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP server: with RELAY_MCP_TEST_SERVER
// set it serves the tools below instead of running tests, so fault tests
// drive a real process (exit mid-call, garbage on stdout, huge results).
func TestMain(m *testing.M) {
	if mode := os.Getenv("RELAY_MCP_TEST_SERVER"); mode != "" {
		serveHelper(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type sizeArgs struct {
	Bytes int `json:"bytes"`
}

type slowArgs struct {
	Ms       int  `json:"ms"`
	Progress bool `json:"progress,omitempty"`
}

type msgArgs struct {
	Message string `json:"message"`
}

func helperServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "helper", Version: "1"}, &sdk.ServerOptions{Instructions: "Test helper server.\nSecond line."})
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the message"}, func(_ context.Context, _ *sdk.CallToolRequest, a msgArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + a.Message}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "Return a text of the given size"}, func(_ context.Context, _ *sdk.CallToolRequest, a sizeArgs) (*sdk.CallToolResult, any, error) {
		var b strings.Builder
		b.Grow(a.Bytes)
		b.WriteString("BEGIN\n")
		for b.Len() < a.Bytes-4 {
			b.WriteString("0123456789abcdef\n")
		}
		b.WriteString("END\n")
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "die", Description: "Exit in the middle of the call"}, func(context.Context, *sdk.CallToolRequest, msgArgs) (*sdk.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "fatal: the helper exits on purpose")
		os.Exit(3)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "garbage", Description: "Answer with malformed JSON-RPC"}, func(context.Context, *sdk.CallToolRequest, msgArgs) (*sdk.CallToolResult, any, error) {
		os.Stdout.WriteString("{this is not json-rpc\n")
		time.Sleep(50 * time.Millisecond)
		os.Exit(4)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Return an MCP error result"}, func(context.Context, *sdk.CallToolRequest, msgArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{IsError: true}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "a-b", Description: "collides with a_b"}, func(context.Context, *sdk.CallToolRequest, msgArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "dash"}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "a_b", Description: "collides with a-b"}, func(context.Context, *sdk.CallToolRequest, msgArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "underscore"}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "log", Description: "Send a log message"}, func(ctx context.Context, req *sdk.CallToolRequest, a msgArgs) (*sdk.CallToolResult, any, error) {
		if err := req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "warning", Logger: "helper", Data: a.Message}); err != nil {
			return nil, nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "logged"}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "Answer after ms milliseconds, with progress every 50 ms if asked"}, func(ctx context.Context, req *sdk.CallToolRequest, a slowArgs) (*sdk.CallToolResult, any, error) {
		deadline := time.Now().Add(time.Duration(a.Ms) * time.Millisecond)
		for i := 0; time.Now().Before(deadline); i++ {
			if a.Progress {
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Message: fmt.Sprintf("step %d", i)})
			}
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "slow done"}}}, nil, nil
	})
	s.AddResource(&sdk.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/plain"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "test://readme", MIMEType: "text/plain", Text: "read me"}}}, nil
	})
	return s
}

func serveHelper(mode string) {
	if mode == "env" {
		fmt.Println(os.Getenv("HELPER_VALUE"))
		return
	}
	s := helperServer()
	_ = s.Run(context.Background(), &sdk.StdioTransport{})
}

// helperConfig is a stdio entry that runs this test binary as a server.
func helperConfig(t testing.TB) ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ServerConfig{Command: exe, Args: []string{"-test.run=^$"}, Env: []KV{{"RELAY_MCP_TEST_SERVER", "stdio"}}}
}

// newTestManager builds a manager over entries and closes it at cleanup.
func newTestManager(t testing.TB, entries ...Entry) *Manager {
	t.Helper()
	for i := range entries {
		if entries[i].Scope == "" {
			entries[i].Scope = ScopeUser
		}
	}
	m := NewManager(Options{Cwd: t.TempDir(), Config: &Loaded{Servers: entries}, TempDir: t.TempDir(),
		Log: NewServerLog(t.TempDir() + "/mcp.log")})
	t.Cleanup(m.Close)
	return m
}

func findTool(t testing.TB, m *Manager, name string) *Tool {
	t.Helper()
	for _, x := range m.Tools() {
		if x.Name() == name {
			return x
		}
	}
	var names []string
	for _, x := range m.Tools() {
		names = append(names, x.Name())
	}
	t.Fatalf("tool %s not found; have %v", name, names)
	return nil
}

func args(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
