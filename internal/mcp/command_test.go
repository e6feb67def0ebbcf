package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCommand(t *testing.T, opts CommandOptions, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	opts.Stdout, opts.Stderr = &out, &errb
	code := Command(context.Background(), args, opts)
	return code, out.String(), errb.String()
}

func TestCommandAddListRemove(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	exe, _ := os.Executable()
	opts := CommandOptions{AgentDir: agent, Cwd: cwd, ProjectTrusted: true}
	code, out, errs := runCommand(t, opts, "add", "helper", "--env", "RELAY_MCP_TEST_SERVER=stdio", "--exposure", "direct", "--", exe, "-test.run=^$")
	if code != 0 || !strings.Contains(out, `Added user MCP server "helper"`) {
		t.Fatalf("add: %d %s %s", code, out, errs)
	}
	code, _, errs = runCommand(t, opts, "add", "web", "--url", "https://example.com/mcp", "--bearer-token-env-var", "TOKEN", "-l")
	if code != 0 {
		t.Fatalf("add -l: %s", errs)
	}
	var doc map[string]map[string]map[string]any
	data, _ := os.ReadFile(filepath.Join(cwd, ".relay", "mcp.json"))
	if err := json.Unmarshal(data, &doc); err != nil || doc["mcpServers"]["web"]["headers"].(map[string]any)["Authorization"] != "Bearer ${TOKEN}" {
		t.Fatalf("project file = %s", data)
	}
	if code, _, errs := runCommand(t, opts, "add", "x", "--env", "A=b", "--url", "https://e.com/mcp"); code != 1 || !strings.Contains(errs, "--env only applies to stdio servers") {
		t.Fatalf("misplaced option: %d %s", code, errs)
	}
	if code, _, errs := runCommand(t, opts, "add", "x", "--url", "http://h", "--", "cmd"); code != 1 || !strings.Contains(errs, "usage") {
		t.Fatalf("both url and command: %d %s", code, errs)
	}
	if code, _, errs := runCommand(t, opts, "add", "bad name", "--", "cmd"); code != 1 || !strings.Contains(errs, "invalid server name") {
		t.Fatalf("bad name: %d %s", code, errs)
	}
	// list connects: the helper works, example.com is not reachable here or
	// answers something else, so the exit code is 1 and the helper is listed.
	code, out, _ = runCommand(t, CommandOptions{AgentDir: agent, Cwd: cwd, ProjectTrusted: false}, "list", "--json")
	var list struct {
		Servers []ListReport
		Note    string
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("list json: %v\n%s", err, out)
	}
	if code != 0 || len(list.Servers) != 1 || list.Servers[0].State != "connected" || list.Servers[0].Exposure != "direct" ||
		!containsString(list.Servers[0].Tools, "echo") || !strings.Contains(list.Note, "not trusted") {
		t.Fatalf("list = %d %+v", code, list)
	}
	code, out, _ = runCommand(t, CommandOptions{AgentDir: agent, Cwd: cwd}, "list")
	if !strings.Contains(out, "helper  connected  [user, direct]") || !strings.Contains(out, "tools (") {
		t.Fatalf("list text = %s", out)
	}
	if code, out, _ := runCommand(t, opts, "remove", "helper"); code != 0 || !strings.Contains(out, "Removed user MCP server") {
		t.Fatalf("remove: %s", out)
	}
	if code, _, errs := runCommand(t, opts, "remove", "web"); code != 1 || !strings.Contains(errs, "use --local") {
		t.Fatalf("remove from the wrong file: %s", errs)
	}
	if code, _, errs := runCommand(t, opts, "logout", "nope"); code != 1 || !strings.Contains(errs, `no MCP server named "nope"`) {
		t.Fatalf("logout unknown: %s", errs)
	}
	if code, _, errs := runCommand(t, opts, "frobnicate"); code != 1 || !strings.Contains(errs, "unknown mcp command") {
		t.Fatalf("unknown: %s", errs)
	}
	if code, out, _ := runCommand(t, opts, "--help"); code != 0 || !strings.Contains(out, "relay mcp add <server>") {
		t.Fatalf("help: %s", out)
	}
}

func TestEditKeepsOtherContentAndIndentation(t *testing.T) {
	p := writeFile(t, filepath.Join(t.TempDir(), "mcp.json"), "{\n\t\"autoEnableCodemode\": true,\n\t\"mcpServers\": {\n\t\t\"b\": {\"command\": \"b\", \"custom\": 1.50},\n\t\t\"a\": {\"url\": \"https://a.example/<mcp>\"}\n\t},\n\t\"zzz\": [1, 2]\n}\n")
	if _, err := AddServer(p, "c", &ServerConfig{Command: "c", Args: []string{"--x"}}); err != nil {
		t.Fatal(err)
	}
	off := false
	exp := ExposureDirect
	if err := UpdateServer(p, "a", Patch{Enabled: &off, Exposure: &exp}, false); err != nil {
		t.Fatal(err)
	}
	on := true
	if err := UpdateServer(p, "a", Patch{Enabled: &on}, false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	want := "{\n\t\"autoEnableCodemode\": true,\n\t\"mcpServers\": {\n\t\t\"b\": {\n\t\t\t\"command\": \"b\",\n\t\t\t\"custom\": 1.50\n\t\t},\n\t\t\"a\": {\n\t\t\t\"url\": \"https://a.example/<mcp>\",\n\t\t\t\"exposure\": \"direct\"\n\t\t},\n\t\t\"c\": {\n\t\t\t\"command\": \"c\",\n\t\t\t\"args\": [\n\t\t\t\t\"--x\"\n\t\t\t]\n\t\t}\n\t},\n\t\"zzz\": [\n\t\t1,\n\t\t2\n\t]\n}\n"
	if string(got) != want {
		t.Fatalf("file =\n%s\nwant\n%s", got, want)
	}
	// An override keeps default values, since they replace the user's.
	proj := filepath.Join(t.TempDir(), "mcp.json")
	if err := UpdateServer(proj, "a", Patch{Enabled: &on}, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(proj); !strings.Contains(string(got), `"a": {`) || !strings.Contains(string(got), `"enabled": true`) {
		t.Fatalf("override = %s", got)
	}
	if err := UpdateServer(proj, "missing", Patch{Enabled: &on}, false); err == nil || !strings.Contains(err.Error(), `does not define MCP server "missing"`) {
		t.Fatalf("update missing: %v", err)
	}
}
