package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestParseServerErrors(t *testing.T) {
	for _, tc := range []struct {
		name, entry, want string
	}{
		{"ok", `{"command":"x"}`, ""},
		{"bad name!", `{"command":"x"}`, `invalid server name "bad name!"`},
		{"s", `{"type":"sse","url":"http://h/sse"}`, "legacy SSE transport is not supported"},
		{"s", `{"type":"websocket","url":"http://h"}`, `type must be "stdio", "http" or "streamable-http"`},
		{"s", `{"url":"ftp://h"}`, "url must be an http or https URL"},
		{"s", `{"command":""}`, "command must be a non-empty string"},
		{"s", `{"command":"x","args":"a b"}`, "args must be an array of strings"},
		{"s", `{"command":"x","env":{"A":1}}`, "env must map names to strings"},
		{"s", `{"url":"http://h","headers":[]}`, "headers must map names to strings"},
		{"s", `{"command":"x","timeout":0}`, "timeout must be a positive number"},
		{"s", `{"command":"x","exposure":"loud"}`, `exposure must be one of "codemode", "deferred", "direct", "hidden"`},
		{"s", `{"command":"x","toolExposure":{"a":"x"}}`, `toolExposure "a" must be one of`},
		{"s", `{"command":"x","enabled":"no"}`, "enabled must be a boolean"},
		{"s", `{"url":"http://h","oauth":{"callbackPort":70000}}`, "oauth.callbackPort must be a port number"},
		{"s", `{"url":"http://h","oauth":{"callbackUrl":"http://example.com/cb"}}`, "oauth.callbackUrl must be an http URI on localhost"},
		{"s", `{"url":"http://h","oauth":{"authServerMetadataUrl":"http://example.com/x"}}`, "must be an https URL"},
		{"s", `{"description":"x"}`, `needs either "command" (stdio) or "url" (streamable HTTP)`},
		{"s", `{"type":"stdio","url":"http://h"}`, `needs either "command"`},
	} {
		v, err := parseJSON([]byte(tc.entry))
		if err != nil {
			t.Fatal(err)
		}
		_, err = parseServer(tc.name, v)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.entry, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.entry, err, tc.want)
		}
	}
}

func TestLoadMergesOverridesAndNamesFileAndLine(t *testing.T) {
	dir := t.TempDir()
	user := writeFile(t, filepath.Join(dir, "agent", "mcp.json"), `{
  "mcpServers": {
    "tools": {
      "command": "tools-mcp",
      "env": {"KEY": "${TOOLS_KEY}"},
      "exposure": "deferred"
    },
    "docs": {"url": "https://docs.example/mcp"},
    "broken": {"type": "sse", "url": "https://x.example/sse"},
    "my-server": {"command": "a"}
  }
}
`)
	project := writeFile(t, filepath.Join(dir, "proj", ".relay", "mcp.json"), `{
  "autoEnableCodemode": false,
  "mcpServers": {
    "tools": {"enabled": false, "toolExposure": {"get_*": "direct"}},
    "docs": {"command": "local-docs"},
    "ghost": {"enabled": false},
    "my-server": {"env": {"X": "y"}},
    "my_server": {"command": "b"}
  }
}
`)
	l := Load(LoadOptions{UserConfig: user, ProjectConfig: project, ProjectTrusted: true})
	tools, ok := l.Server("tools")
	if !ok || tools.Config.IsEnabled() || tools.Config.Command != "tools-mcp" || tools.Override != project ||
		tools.Config.Env[0].Value != "${TOOLS_KEY}" || tools.Config.ToolExposureOf("get_x") != ExposureDirect ||
		tools.Config.ToolExposureOf("put") != ExposureDeferred || tools.Source != user {
		t.Fatalf("tools = %+v", tools)
	}
	docs, _ := l.Server("docs")
	if docs.Config.Command != "local-docs" || docs.Scope != ScopeProject || docs.Line != 5 {
		t.Fatalf("docs = %+v", docs)
	}
	if l.AutoEnableCodemode == nil || *l.AutoEnableCodemode {
		t.Fatal("autoEnableCodemode not read")
	}
	var errs []string
	for _, e := range l.Errors {
		errs = append(errs, e.Error())
	}
	joined := strings.Join(errs, "\n")
	for _, want := range []string{
		user + `:9: server "broken": legacy SSE transport is not supported`,
		project + `:6: server "ghost" needs "command" or "url", or a user server to override`,
		project + `:7: server "my-server": an override can only set enabled, exposure, toolExposure`,
		project + `:8: server "my_server" conflicts with "my-server"`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing error %q in\n%s", want, joined)
		}
	}
	if _, ok := l.Server("broken"); ok {
		t.Fatal("an invalid entry was kept")
	}
}

func TestInvalidJSONNamesFileLineAndColumn(t *testing.T) {
	p := writeFile(t, filepath.Join(t.TempDir(), "mcp.json"), "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n")
	l := Load(LoadOptions{UserConfig: p})
	if len(l.Errors) != 1 || !strings.HasPrefix(l.Errors[0].Error(), p+": line 3, column") {
		t.Fatalf("errors = %v", l.Errors)
	}
	p2 := writeFile(t, filepath.Join(t.TempDir(), "mcp.json"), `{"mcpServers": []}`)
	l = Load(LoadOptions{UserConfig: p2})
	if len(l.Errors) != 1 || !strings.Contains(l.Errors[0].Error(), p2+`: line 1: "mcpServers" must be an object`) {
		t.Fatalf("errors = %v", l.Errors)
	}
}

func TestUntrustedProjectConfigIsNeverStarted(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	project := writeFile(t, filepath.Join(dir, ".relay", "mcp.json"),
		`{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "touch `+marker+`"], "exposure": "direct"}}}`)
	l := Load(LoadOptions{UserConfig: filepath.Join(dir, "none.json"), ProjectConfig: project, ProjectTrusted: false})
	if len(l.Servers) != 0 || l.IgnoredProjectConfig != project || l.ProjectConfig != "" {
		t.Fatalf("loaded = %+v", l)
	}
	m := NewManager(Options{Cwd: dir, Config: l})
	m.Start()
	m.WaitAll(context.Background(), time.Second)
	m.Close()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the untrusted project's server was started")
	}
	// Trusted, the same file starts it (the test above is not vacuous).
	l = Load(LoadOptions{ProjectConfig: project, ProjectTrusted: true})
	m = NewManager(Options{Cwd: dir, Config: l})
	m.Start()
	m.WaitAll(context.Background(), time.Minute)
	m.Close()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the trusted project's server did not start")
	}
}

func TestToolNames(t *testing.T) {
	if got := ToolName("dev-tools", "get.page", nil); got != "mcp__dev_tools__get_page" {
		t.Fatalf("got %s", got)
	}
	long := ToolName("server", strings.Repeat("x", 80), nil)
	if len(long) != 64 || !strings.HasPrefix(long, "mcp__server__xxx") {
		t.Fatalf("long = %s (%d)", long, len(long))
	}
	names := toolNames("s", []string{"a-b", "a_b", "c"}, nil)
	if names[0] == names[1] || !strings.HasPrefix(names[0], "mcp__s__a_b_") || names[2] != "mcp__s__c" {
		t.Fatalf("names = %v", names)
	}
	// Stable whatever the listing order.
	again := toolNames("s", []string{"c", "a_b", "a-b"}, nil)
	if again[1] != names[1] || again[2] != names[0] {
		t.Fatalf("order-dependent names: %v vs %v", names, again)
	}
	if Namespace("dev-tools") != "mcp__dev_tools" {
		t.Fatal(Namespace("dev-tools"))
	}
}

func TestToolExposurePatterns(t *testing.T) {
	c := ServerConfig{Exposure: ExposureHidden, ToolExposure: []ToolRule{
		{"get_*", ExposureCodemode}, {"*_secret", ExposureHidden}, {"get_secret", ExposureDirect}, {"search_code", ExposureDirect}}}
	for tool, want := range map[string]Exposure{
		"get_page": ExposureCodemode, "get_secret": ExposureDirect, "x_secret": ExposureHidden,
		"search_code": ExposureDirect, "other": ExposureHidden,
	} {
		if got := c.ToolExposureOf(tool); got != want {
			t.Errorf("%s: %s, want %s", tool, got, want)
		}
	}
	if !matchStar("a*b*c", "a-x-b-y-c") || matchStar("a*b", "ab-x") || !matchStar("*", "") {
		t.Fatal("matchStar")
	}
}
