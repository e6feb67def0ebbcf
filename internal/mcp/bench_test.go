package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkStdioToolCall is one MCP tool call through Tool.Execute to a
// stdio server whose tool does nothing (echo): all of the time is relay's,
// the SDK's and the pipe's, the overhead the issue bounds at 2 ms.
func BenchmarkStdioToolCall(b *testing.B) {
	m := newTestManager(b, Entry{Name: "h", Config: helperConfig(b)})
	m.Start()
	m.WaitAll(context.Background(), time.Minute)
	echo := findTool(b, m, "mcp__h__echo")
	a := args(map[string]string{"message": "x"})
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if r := echo.Execute(ctx, a, nil); r.IsError {
			b.Fatal(resultText(r))
		}
	}
}

// BenchmarkStdioRawSDKCall is the same call straight through the SDK
// session, for comparison: the difference is relay's own layer.
func BenchmarkStdioRawSDKCall(b *testing.B) {
	m := newTestManager(b, Entry{Name: "h", Config: helperConfig(b)})
	sess, err := m.Server("h").session(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "x"}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartTwentyServers is what start-up pays for 20 configured
// servers: building the manager and starting the background connections
// (none of which answers during the benchmark).
func BenchmarkStartTwentyServers(b *testing.B) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	b.Cleanup(srv.Close)
	b.Cleanup(func() { close(block) })
	var entries []Entry
	for i := range 20 {
		entries = append(entries, Entry{Name: fmt.Sprintf("s%d", i), Config: ServerConfig{URL: srv.URL}})
	}
	loaded := &Loaded{Servers: entries}
	for i := 0; i < b.N; i++ {
		m := NewManager(Options{Config: loaded})
		m.Start()
		b.StopTimer()
		m.Close()
		b.StartTimer()
	}
}
