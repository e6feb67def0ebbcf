package mcp

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

func resultText(r tool.Result) string { return textOf(r.Content) }

func connected(t *testing.T, m *Manager) {
	t.Helper()
	m.Start()
	if !m.WaitAll(context.Background(), time.Minute) {
		t.Fatal("servers did not finish connecting")
	}
	for _, s := range m.Servers() {
		if st := s.Status(); st.State != StateConnected {
			t.Fatalf("server %s: %s %s", st.Name, st.State, st.Error)
		}
	}
}

func TestHelperToolsNamesAndCalls(t *testing.T) {
	m := newTestManager(t, Entry{Name: "help-er", Config: helperConfig(t)})
	connected(t, m)
	r := findTool(t, m, "mcp__help_er__echo").Execute(context.Background(), args(map[string]string{"message": "hi"}), nil)
	if r.IsError || resultText(r) != "echo: hi" {
		t.Fatalf("echo = %+v", r)
	}
	// a-b and a_b sanitize alike: both get a hash suffix.
	var dash, under *Tool
	for _, x := range m.Tools() {
		switch x.RemoteName() {
		case "a-b":
			dash = x
		case "a_b":
			under = x
		}
	}
	if dash == nil || under == nil || dash.Name() == under.Name() ||
		!strings.HasPrefix(dash.Name(), "mcp__help_er__a_b_") || !strings.HasPrefix(under.Name(), "mcp__help_er__a_b_") {
		t.Fatalf("colliding names: %v %v", dash, under)
	}
	if got := resultText(dash.Execute(context.Background(), args(map[string]string{"message": "x"}), nil)); got != "dash" {
		t.Fatalf("a-b answered %q", got)
	}
	// isError results are error results with a message.
	r = findTool(t, m, "mcp__help_er__fail").Execute(context.Background(), args(map[string]string{"message": "x"}), nil)
	if !r.IsError || !strings.Contains(resultText(r), "returned an error") {
		t.Fatalf("fail = %+v", r)
	}
}

func TestServerExitsMidCallThenReconnects(t *testing.T) {
	m := newTestManager(t, Entry{Name: "h", Config: helperConfig(t)})
	connected(t, m)
	r := findTool(t, m, "mcp__h__die").Execute(context.Background(), args(map[string]string{"message": "x"}), nil)
	if !r.IsError {
		t.Fatalf("die succeeded: %+v", r)
	}
	if txt := resultText(r); !strings.Contains(txt, `"h"`) || !strings.Contains(txt, "closed") {
		t.Fatalf("die error = %q", txt)
	}
	// The next call starts the server again.
	r = findTool(t, m, "mcp__h__echo").Execute(context.Background(), args(map[string]string{"message": "back"}), nil)
	if r.IsError || resultText(r) != "echo: back" {
		t.Fatalf("echo after crash = %+v", r)
	}
}

func TestMalformedJSONRPCOverStdio(t *testing.T) {
	m := newTestManager(t, Entry{Name: "h", Config: helperConfig(t)})
	connected(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := findTool(t, m, "mcp__h__garbage").Execute(ctx, args(map[string]string{"message": "x"}), nil)
	if !r.IsError || resultText(r) == "" {
		t.Fatalf("garbage = %+v", r)
	}
	r = findTool(t, m, "mcp__h__echo").Execute(ctx, args(map[string]string{"message": "ok"}), nil)
	if r.IsError || resultText(r) != "echo: ok" {
		t.Fatalf("echo after garbage = %+v", r)
	}
}

func TestFiftyMegabyteResult(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB result")
	}
	m := newTestManager(t, Entry{Name: "h", Config: helperConfig(t)})
	connected(t, m)
	r := findTool(t, m, "mcp__h__big").Execute(context.Background(), args(map[string]int{"bytes": 50 << 20}), nil)
	if r.IsError {
		t.Fatalf("big: %s", resultText(r))
	}
	txt := resultText(r)
	if len(txt) > OutputMaxBytes+1024 {
		t.Fatalf("model text is %d bytes", len(txt))
	}
	if !strings.Contains(txt, "BEGIN") || !strings.Contains(txt, "END") || !strings.Contains(txt, "chars truncated…") {
		t.Fatalf("head/tail/marker missing: %.200s", txt)
	}
	d := r.Details.(Details)
	st, err := os.Stat(d.FullOutputPath)
	if err != nil || st.Size() < 50<<20-32 {
		t.Fatalf("full output %q: %v %v", d.FullOutputPath, st, err)
	}
	if !strings.Contains(txt, d.FullOutputPath) {
		t.Fatal("result does not name the full output file")
	}
}

func TestUnreachableHTTPServerIsRetriedTwice(t *testing.T) {
	old := connectRetryDelays
	connectRetryDelays = []time.Duration{time.Millisecond, time.Millisecond}
	t.Cleanup(func() { connectRetryDelays = old })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	var attempts atomic.Int32
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if isInitialize(r) {
			attempts.Add(1)
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	m := NewManager(Options{Config: &Loaded{Servers: []Entry{{Name: "gone", Config: ServerConfig{URL: "http://" + addr + "/mcp"}}}},
		HTTPTransport: rt})
	defer m.Close()
	r := (&readResourceTool{m: m}).Execute(context.Background(), args(map[string]string{"server": "gone", "uri": "x://y"}), nil)
	if !r.IsError || !strings.Contains(resultText(r), "failed to connect") {
		t.Fatalf("result = %+v", r)
	}
	if n := attempts.Load(); n != 3 {
		t.Fatalf("%d connection attempts, want 3 (retried twice)", n)
	}
	if st := m.Server("gone").Status(); st.State != StateFailed || !strings.Contains(st.Error, "refused") {
		t.Fatalf("status = %+v", st)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestHTTPStatusRetries(t *testing.T) {
	old := connectRetryDelays
	connectRetryDelays = []time.Duration{time.Millisecond, time.Millisecond}
	t.Cleanup(func() { connectRetryDelays = old })
	for _, tc := range []struct {
		status int
		want   int32
	}{{503, 3}, {429, 3}, {408, 3}, {501, 1}, {404, 1}, {400, 1}} {
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isInitialize(r) {
				hits.Add(1)
			}
			http.Error(w, "nope", tc.status)
		}))
		m := NewManager(Options{Config: &Loaded{Servers: []Entry{{Name: "s", Config: ServerConfig{URL: srv.URL}}}}})
		_, err := m.Server("s").session(context.Background())
		m.Close()
		srv.Close()
		if err == nil {
			t.Fatalf("%d: connected", tc.status)
		}
		if n := hits.Load(); n != tc.want {
			t.Errorf("status %d: %d attempts, want %d (%v)", tc.status, n, tc.want, err)
		}
	}
}

func TestMalformedJSONOverHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":`))
	}))
	defer srv.Close()
	m := NewManager(Options{Config: &Loaded{Servers: []Entry{{Name: "bad", Config: ServerConfig{URL: srv.URL, Timeout: 5}}}}})
	defer m.Close()
	_, err := m.Server("bad").session(context.Background())
	if err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("err = %v", err)
	}
	if st := m.Server("bad").Status(); st.State != StateFailed {
		t.Fatalf("state = %s", st.State)
	}
}

// An in-process streamable HTTP server: tools, a session that expires.
func TestInProcessHTTPServerAndSessionExpiry(t *testing.T) {
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return helperServer() }, nil)
	var expire atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer secret" {
			http.Error(w, "unauthorized", 401)
			return
		}
		if expire.Load() && r.Header.Get("Mcp-Session-Id") != "" && r.Method == http.MethodPost {
			expire.Store(false)
			http.Error(w, "session not found", 404)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close) // after the manager's cleanup closes its streams
	t.Setenv("HELPER_TOKEN", "secret")
	m := newTestManager(t, Entry{Name: "web", Config: ServerConfig{URL: srv.URL, Headers: []KV{{"Authorization", "Bearer ${HELPER_TOKEN}"}}}})
	connected(t, m)
	echo := findTool(t, m, "mcp__web__echo")
	if r := echo.Execute(context.Background(), args(map[string]string{"message": "a"}), nil); resultText(r) != "echo: a" {
		t.Fatalf("echo = %+v", r)
	}
	expire.Store(true)
	if r := echo.Execute(context.Background(), args(map[string]string{"message": "b"}), nil); r.IsError || resultText(r) != "echo: b" {
		t.Fatalf("echo after session expiry = %+v", r)
	}
}

func TestResourceToolsAgainstHelper(t *testing.T) {
	m := newTestManager(t, Entry{Name: "h", Config: helperConfig(t)})
	connected(t, m)
	var names []string
	for _, e := range m.AllTools() {
		names = append(names, e.Tool.Spec().Name)
		if e.Tool.Spec().Name == ReadResourceTool && e.Exposure != ExposureCodemode {
			t.Fatalf("resource tool exposure %s", e.Exposure)
		}
	}
	if !strings.Contains(strings.Join(names, ","), ListResourcesTool) {
		t.Fatalf("no resource tools in %v", names)
	}
	r := (&listResourcesTool{m: m}).Execute(context.Background(), nil, nil)
	if r.IsError || !strings.Contains(resultText(r), `"uri":"test://readme"`) || !strings.Contains(resultText(r), `"server":"h"`) {
		t.Fatalf("list = %s", resultText(r))
	}
	r = (&readResourceTool{m: m}).Execute(context.Background(), args(map[string]string{"server": "h", "uri": "test://readme"}), nil)
	if r.IsError || resultText(r) != "read me" {
		t.Fatalf("read = %+v", r)
	}
	r = (&readResourceTool{m: m}).Execute(context.Background(), args(map[string]string{"server": "nope", "uri": "x"}), nil)
	if !r.IsError || !strings.Contains(resultText(r), `no MCP server named "nope"`) {
		t.Fatalf("read unknown = %+v", r)
	}
}

func TestServerLogNotifications(t *testing.T) {
	m := newTestManager(t, Entry{Name: "h", Config: helperConfig(t)})
	connected(t, m)
	path := m.opts.Log.Path
	deadline := time.Now().Add(30 * time.Second)
	for {
		// The level request races the first call; call until a message lands.
		findTool(t, m, "mcp__h__log").Execute(context.Background(), args(map[string]string{"message": "line1\nline2"}), nil)
		data, _ := os.ReadFile(path)
		if strings.Contains(string(data), "[h] warning helper: line1\n    line2\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("log = %q", data)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStartIsBackgroundAndDirectWaitIsSelective(t *testing.T) {
	// A server that never answers initialize, with codemode exposure,
	// must not hold up the direct-tool wait.
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(block) })
	direct := helperConfig(t)
	direct.Exposure = ExposureDirect
	m := newTestManager(t,
		Entry{Name: "slow", Config: ServerConfig{URL: srv.URL}},
		Entry{Name: "fast", Config: direct})
	m.Start()
	if !m.WaitDirect(context.Background(), time.Minute) {
		t.Fatal("direct wait timed out on a codemode server")
	}
	if st := m.Server("fast").Status(); st.State != StateConnected {
		t.Fatalf("fast = %+v", st)
	}
	if st := m.Server("slow").Status(); st.State != StateConnecting {
		t.Fatalf("slow = %+v", st)
	}
	for _, e := range m.AllTools() {
		if strings.HasPrefix(e.Tool.Spec().Name, "mcp__fast__") && e.Tool.Spec().Name != ListResourcesTool && e.Exposure != ExposureDirect {
			t.Fatalf("%s exposure %s", e.Tool.Spec().Name, e.Exposure)
		}
	}
}

func TestStdioEnvAndCommandValues(t *testing.T) {
	cfg := helperConfig(t)
	cfg.Env = append(cfg.Env, KV{"FROM_VAR", "${RELAY_TEST_VALUE}"}, KV{"FROM_CMD", "!echo from-command"})
	t.Setenv("RELAY_TEST_VALUE", "v1")
	res := defaultResolver()
	env, err := res.pairs(context.Background(), cfg.Env, "env")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range env {
		got[kv.Key] = kv.Value
	}
	if got["FROM_VAR"] != "v1" || got["FROM_CMD"] != "from-command" {
		t.Fatalf("env = %v", got)
	}
	_, err = res.value(context.Background(), "Bearer ${RELAY_UNSET_FOR_TEST}", `header "Authorization"`)
	if err == nil || !strings.Contains(err.Error(), "RELAY_UNSET_FOR_TEST") || !strings.Contains(err.Error(), "Authorization") {
		t.Fatalf("unset var err = %v", err)
	}
	_, err = res.value(context.Background(), "!exit 3", `env "X"`)
	if err == nil || !strings.Contains(err.Error(), "exit 3") {
		t.Fatalf("failing command err = %v", err)
	}
	// A server whose env cannot be resolved fails with that message.
	cfg.Env = append(cfg.Env, KV{"BAD", "${RELAY_UNSET_FOR_TEST}"})
	m := newTestManager(t, Entry{Name: "h", Config: cfg})
	m.Start()
	m.WaitAll(context.Background(), time.Minute)
	if st := m.Server("h").Status(); st.State != StateFailed || !strings.Contains(st.Error, "RELAY_UNSET_FOR_TEST") {
		t.Fatalf("status = %+v", st)
	}
}

func TestStderrOfFailedStdioServer(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "fail.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho 'cannot open database' >&2\nexit 2\n"), 0o755)
	m := newTestManager(t, Entry{Name: "f", Config: ServerConfig{Command: script}})
	m.Start()
	m.WaitAll(context.Background(), time.Minute)
	st := m.Server("f").Status()
	if st.State != StateFailed || !strings.Contains(st.Error, "cannot open database") {
		t.Fatalf("status = %+v", st)
	}
}

func TestImageContent(t *testing.T) {
	c := converter{server: "s", save: tempSaver(t.TempDir())}
	b, _, _ := c.convertResult("t", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "x"}, &sdk.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"}}})
	if len(b) != 2 {
		t.Fatalf("blocks = %v", b)
	}
	img, ok := b[1].(*llm.ImageContent)
	if !ok || img.Data != "AQID" || img.MimeType != "image/png" {
		t.Fatalf("image = %#v", b[1])
	}
}

// isInitialize reports an initialize request (the SDK may send a discovery
// request first, which is not a connection attempt of ours).
func isInitialize(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return bytes.Contains(body, []byte(`"method":"initialize"`))
}

func TestTimeoutAndProgressReset(t *testing.T) {
	cfg := helperConfig(t)
	cfg.Timeout = 0.4
	m := newTestManager(t, Entry{Name: "h", Config: cfg})
	connected(t, m)
	slow := findTool(t, m, "mcp__h__slow")
	r := slow.Execute(context.Background(), args(map[string]any{"ms": 1500}), nil)
	if !r.IsError || !strings.Contains(resultText(r), `MCP server "h" did not answer within 0.4s`) {
		t.Fatalf("no-progress call = %+v %s", r.IsError, resultText(r))
	}
	// Progress notifications restart the timer: the same call with
	// progress every 50 ms completes, and the updates reach onUpdate.
	var mu sync.Mutex
	var updates []string
	r = slow.Execute(context.Background(), args(map[string]any{"ms": 1500, "progress": true}), func(u tool.Result) {
		mu.Lock()
		updates = append(updates, resultText(u))
		mu.Unlock()
	})
	if r.IsError || resultText(r) != "slow done" {
		t.Fatalf("progress call = %s", resultText(r))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(updates) == 0 || !strings.HasPrefix(updates[0], "step ") {
		t.Fatalf("updates = %v", updates)
	}
}

func TestLogRotatesAtFiveMegabytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.log")
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), maxLogBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	l := NewServerLog(path)
	l.Write("s", "info", "", "after rotation")
	rotated, err := os.Stat(path + ".1")
	if err != nil || rotated.Size() != maxLogBytes+1 {
		t.Fatalf("mcp.log.1: %v %v", rotated, err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasSuffix(string(data), "[s] info after rotation\n") || len(data) > 100 {
		t.Fatalf("mcp.log = %q", data)
	}
}

func TestTruncatedResultFormat(t *testing.T) {
	dir := t.TempDir()
	c := converter{server: "s", save: tempSaver(dir)}
	text := strings.Repeat("a", 15000) + "MIDDLE" + strings.Repeat("z", 15000)
	b, d, _ := c.convertResult("t", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}})
	got := textOf(b)
	if !strings.HasPrefix(got, "Warning: truncated output (original token count: 7502)\nTotal output lines: 1\n\naaaa") ||
		strings.Contains(got, "MIDDLE") || !strings.Contains(got, "…9526 chars truncated…zzz") ||
		!strings.HasSuffix(got, "\n\n[Full output: "+d.FullOutputPath+" (read it with offset/limit)]") {
		t.Fatalf("result = %.300s … %s", got, got[len(got)-200:])
	}
	if full, _ := os.ReadFile(d.FullOutputPath); string(full) != text {
		t.Fatal("the full output file differs")
	}
	// At the limit nothing is cut.
	b, d, _ = c.convertResult("t", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("x", OutputMaxBytes)}}})
	if d.FullOutputPath != "" || len(textOf(b)) != OutputMaxBytes {
		t.Fatal("a result at the limit was cut")
	}
}
