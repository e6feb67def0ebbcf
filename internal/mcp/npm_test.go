package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// The reference servers, pinned. They are installed with npm into a cache
// directory on first use (.ci/run makes sure node and npm exist); the
// tests skip only when npm is absent.
var npmPackages = []string{
	"@modelcontextprotocol/server-everything@2026.8.31",
	"@modelcontextprotocol/server-filesystem@2026.8.31",
}

var (
	npmOnce sync.Once
	npmDir  string
	npmErr  error
)

// npmServers returns the node_modules directory holding the reference
// servers.
func npmServers(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed: the tests against the reference MCP servers need node and npm")
	}
	npmOnce.Do(func() {
		dir := os.Getenv("RELAY_TEST_NPM_DIR")
		if dir == "" {
			cache, err := os.UserCacheDir()
			if err != nil {
				cache = os.TempDir()
			}
			dir = filepath.Join(cache, "relay-test", "mcp-servers")
		}
		npmDir = filepath.Join(dir, "node_modules")
		marker := filepath.Join(dir, "installed-"+strings.NewReplacer("/", "_", "@", "_").Replace(strings.Join(npmPackages, "+")))
		if _, err := os.Stat(marker); err == nil {
			return
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			npmErr = err
			return
		}
		cmd := exec.Command("npm", append([]string{"install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir}, npmPackages...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			npmErr = fmt.Errorf("npm install %v: %v\n%s", npmPackages, err, out)
			return
		}
		npmErr = os.WriteFile(marker, nil, 0o644)
	})
	if npmErr != nil {
		t.Fatal(npmErr)
	}
	return npmDir
}

func everythingScript(t testing.TB) string {
	return filepath.Join(npmServers(t), "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

func TestEverythingServerOverStdio(t *testing.T) {
	script := everythingScript(t)
	cfg := ServerConfig{Command: "node", Args: []string{script, "stdio"},
		ToolExposure: []ToolRule{{"echo", ExposureDirect}, {"trigger-*", ExposureHidden}}}
	m := newTestManager(t, Entry{Name: "everything", Config: cfg})
	connected(t, m)
	st := m.Server("everything").Status()
	if !st.HasResources || st.Resources == 0 || st.Instructions == "" {
		t.Fatalf("status = %+v", st)
	}
	exposures := map[string]Exposure{}
	for _, e := range m.AllTools() {
		exposures[e.Tool.Spec().Name] = e.Exposure
	}
	if exposures["mcp__everything__echo"] != ExposureDirect || exposures["mcp__everything__get_sum"] != ExposureCodemode {
		t.Fatalf("exposures = %v", exposures)
	}
	if _, ok := exposures["mcp__everything__trigger_long_running_operation"]; ok {
		t.Fatal("a hidden tool was exposed")
	}
	for _, n := range []string{ListResourcesTool, ListResourceTemplatesTool, ReadResourceTool} {
		if exposures[n] != ExposureCodemode {
			t.Fatalf("%s exposure %q, want the server's codemode", n, exposures[n])
		}
	}
	ctx := context.Background()
	echo := findTool(t, m, "mcp__everything__echo")
	if spec := echo.Spec(); spec.Description != "Echoes back the input string" || !strings.Contains(string(spec.Parameters), `"message"`) {
		t.Fatalf("spec = %+v", spec)
	}
	if a := echo.Annotations(); a.ReadOnlyHint == nil || !*a.ReadOnlyHint {
		t.Fatalf("annotations = %+v", a)
	}
	if r := echo.Execute(ctx, args(map[string]string{"message": "hello"}), nil); r.IsError || resultText(r) != "Echo: hello" {
		t.Fatalf("echo = %+v", r)
	}
	r := findTool(t, m, "mcp__everything__get_sum").Execute(ctx, args(map[string]int{"a": 2, "b": 3}), nil)
	if r.IsError || !strings.Contains(resultText(r), "5") {
		t.Fatalf("get-sum = %+v", r)
	}
	r = findTool(t, m, "mcp__everything__get_tiny_image").Execute(ctx, nil, nil)
	var img *llm.ImageContent
	for _, b := range r.Content {
		if x, ok := b.(*llm.ImageContent); ok {
			img = x
		}
	}
	if r.IsError || img == nil || img.MimeType != "image/png" || len(img.Data) < 100 {
		t.Fatalf("get-tiny-image = %+v", r)
	}
	r = findTool(t, m, "mcp__everything__get_resource_links").Execute(ctx, args(map[string]int{"count": 2}), nil)
	if txt := resultText(r); r.IsError || !strings.Contains(txt, "[Resource demo://") || !strings.Contains(txt, `Read it with read_mcp_resource (server "everything")`) {
		t.Fatalf("resource links = %s", txt)
	}
	// Codemode receives the full result, structured content included.
	r = findTool(t, m, "mcp__everything__get_structured_content").Execute(ctx, args(map[string]string{"location": "New York"}), nil)
	var full struct {
		Content           []map[string]any `json:"content"`
		StructuredContent map[string]any   `json:"structuredContent"`
		Meta              any              `json:"_meta"`
	}
	if err := json.Unmarshal(r.Structured, &full); err != nil || r.IsError || full.StructuredContent == nil || len(full.Content) == 0 || full.Meta != nil {
		t.Fatalf("structured = %s (%v)", r.Structured, err)
	}
	// Resources: list one server, read one.
	r = (&listResourcesTool{m: m}).Execute(ctx, args(map[string]string{"server": "everything"}), nil)
	var page struct {
		Resources []struct{ Server, URI string }
	}
	if err := json.Unmarshal([]byte(resultText(r)), &page); err != nil || len(page.Resources) == 0 {
		t.Fatalf("list = %s (%v)", resultText(r), err)
	}
	var textURI string
	for _, res := range page.Resources {
		if strings.Contains(res.URI, ".md") || strings.Contains(res.URI, ".txt") {
			textURI = res.URI
			break
		}
	}
	if textURI == "" {
		textURI = page.Resources[0].URI
	}
	r = (&readResourceTool{m: m}).Execute(ctx, args(map[string]string{"server": "everything", "uri": textURI}), nil)
	if r.IsError || strings.TrimSpace(resultText(r)) == "" {
		t.Fatalf("read %s = %+v", textURI, r)
	}
	r = (&listTemplatesTool{m: m}).Execute(ctx, nil, nil)
	if r.IsError || !strings.Contains(resultText(r), `"uriTemplate"`) {
		t.Fatalf("templates = %s", resultText(r))
	}
}

func TestEverythingLongRunningProgress(t *testing.T) {
	m := newTestManager(t, Entry{Name: "everything", Config: ServerConfig{Command: "node", Args: []string{everythingScript(t), "stdio"}}})
	connected(t, m)
	var mu sync.Mutex
	var updates []string
	r := findTool(t, m, "mcp__everything__trigger_long_running_operation").Execute(context.Background(),
		args(map[string]any{"duration": 1, "steps": 3}), func(u tool.Result) {
			mu.Lock()
			updates = append(updates, textOf(u.Content))
			mu.Unlock()
		})
	if r.IsError {
		t.Fatalf("long-running = %+v", resultText(r))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(updates) == 0 {
		t.Fatal("no progress updates")
	}
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startEverythingHTTP runs the reference server's streamable HTTP
// transport and returns its /mcp URL.
func startEverythingHTTP(t testing.TB) string {
	port := freePort(t)
	cmd := exec.Command("node", everythingScript(t), "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	setProcessGroup(cmd)
	var stderr tailBuffer
	stderr.max = 4096
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		signalGroup(cmd, true)
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the HTTP server did not listen: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

func TestEverythingServerOverStreamableHTTP(t *testing.T) {
	url := startEverythingHTTP(t)
	m := newTestManager(t, Entry{Name: "web", Config: ServerConfig{URL: url, Headers: []KV{{"X-Test", "1"}}}})
	connected(t, m)
	ctx := context.Background()
	if r := findTool(t, m, "mcp__web__echo").Execute(ctx, args(map[string]string{"message": "over http"}), nil); r.IsError || resultText(r) != "Echo: over http" {
		t.Fatalf("echo = %+v", r)
	}
	r := (&listResourcesTool{m: m}).Execute(ctx, args(map[string]string{"server": "web"}), nil)
	if r.IsError || !strings.Contains(resultText(r), "demo://") {
		t.Fatalf("resources = %s", resultText(r))
	}
}

func TestFilesystemServer(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("remember the milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(npmServers(t), "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	// The server takes the client's roots (the session directory) as its
	// allowed directories.
	m := NewManager(Options{Cwd: root, Config: &Loaded{Servers: []Entry{{Name: "fs", Config: ServerConfig{Command: "node", Args: []string{script, root}}}}}})
	t.Cleanup(m.Close)
	connected(t, m)
	ctx := context.Background()
	r := findTool(t, m, "mcp__fs__read_text_file").Execute(ctx, args(map[string]string{"path": filepath.Join(root, "notes.txt")}), nil)
	if r.IsError || !strings.Contains(resultText(r), "remember the milk") {
		t.Fatalf("read = %+v", resultText(r))
	}
	r = findTool(t, m, "mcp__fs__write_file").Execute(ctx, args(map[string]string{"path": filepath.Join(root, "new.txt"), "content": "written over MCP"}), nil)
	if r.IsError {
		t.Fatalf("write = %s", resultText(r))
	}
	if b, _ := os.ReadFile(filepath.Join(root, "new.txt")); string(b) != "written over MCP" {
		t.Fatalf("file = %q", b)
	}
	// Outside the allowed directory the server refuses: an error result.
	r = findTool(t, m, "mcp__fs__read_text_file").Execute(ctx, args(map[string]string{"path": "/etc/hostname"}), nil)
	if !r.IsError || !strings.Contains(strings.ToLower(resultText(r)), "denied") {
		t.Fatalf("outside = %+v %s", r.IsError, resultText(r))
	}
	r = findTool(t, m, "mcp__fs__list_directory").Execute(ctx, args(map[string]string{"path": root}), nil)
	if r.IsError || !strings.Contains(resultText(r), "notes.txt") || !strings.Contains(resultText(r), "new.txt") {
		t.Fatalf("list = %s", resultText(r))
	}
}
