package bugreport

import (
	"archive/zip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm"
)

// Secret values planted in auth.json, models.json, settings and the
// environment; none may reach the archive.
var bugSecrets = []string{
	"sk-auth-OPENAI-0123456789", "oauth-ACCESS-abcdefgh", "oauth-REFRESH-ijklmnop", "auth-env-SECRET-777",
	"models-APIKEY-424242", "header-VALUE-515151", "url-PASSWORD-9090", "query-TOKEN-8080",
	"env-ANTHROPIC-KEY-31337", "env-GITHUB-TOKEN-2718", "settings-TOKEN-1618", `quote"and\backslash-SECRET`,
}

func plantSecrets(t *testing.T, e *cmdEnv) {
	t.Helper()
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(e.agentDir, "auth.json"), `{
  "openai": {"type": "api_key", "key": "sk-auth-OPENAI-0123456789", "env": {"OPENAI_ORG": "auth-env-SECRET-777"}},
  "anthropic": {"type": "oauth", "access": "oauth-ACCESS-abcdefgh", "refresh": "oauth-REFRESH-ijklmnop", "expires": 1},
  "weird": {"type": "api_key", "key": "quote\"and\\backslash-SECRET"}
}`)
	write(filepath.Join(e.agentDir, "models.json"), `{
  // a custom gateway
  "providers": {
    "gateway": {
      "baseUrl": "https://bob:url-PASSWORD-9090@gw.example/v1?api_key=query-TOKEN-8080&region=eu",
      "apiKey": "models-APIKEY-424242",
      "api": "openai-completions",
      "headers": {"X-Gateway-Auth": "header-VALUE-515151"},
      "authHeader": true,
      "models": [{"id": "gw-1", "contextWindow": 32000,},],
    },
  },
}`)
	write(filepath.Join(e.agentDir, "settings.json"), `{"defaultProvider": "gateway", "laya": {"accessToken": "settings-TOKEN-1618"}, "harnessCore": {"authorizationGate": true}}`)
	t.Setenv("ANTHROPIC_API_KEY", "env-ANTHROPIC-KEY-31337")
	t.Setenv("GITHUB_TOKEN", "env-GITHUB-TOKEN-2718")
	t.Setenv("RELAY_OFFLINE", "1")
	e.f.o.Env = config.ReadEnv()
}

func readZip(t *testing.T, path string) map[string]string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		out[f.Name] = string(b)
	}
	return out
}

func TestBugReportHasNoSecrets(t *testing.T) {
	e := newCmdRuntime(t)
	plantSecrets(t, e)
	e.seed(t)
	// The user pasted a key into the conversation: the transcript is scrubbed too.
	e.rt.Session().AppendMessage(userText("my key is env-ANTHROPIC-KEY-31337, why does it fail?"))

	res, err := e.f.Write(context.Background(), Request{Description: "it hangs after the tool call", Transcript: TranscriptInclude})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(res.Path) != e.cwd || !strings.HasPrefix(filepath.Base(res.Path), "relay-bug-report-"+res.ID) ||
		!strings.Contains(res.Text(), res.Path) {
		t.Errorf("result %+v", res)
	}
	files := readZip(t, res.Path)
	var names []string
	for n, data := range files {
		names = append(names, n)
		for _, s := range bugSecrets {
			esc, _ := json.Marshal(s)
			if strings.Contains(data, s) || strings.Contains(data, string(esc[1:len(esc)-1])) {
				t.Errorf("%s contains the secret %q", n, s)
			}
		}
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "diagnostics.json,report.json,session.jsonl" {
		t.Errorf("zip files %v", names)
	}

	var rep struct {
		Hint        string
		Environment struct {
			Version, GoVersion, OS, Arch string
			RelayEnvironmentVariables    []string
			ProviderEnvironmentVariables []string
		}
		Session struct {
			Included bool
			Cwd      string
		}
		Model     struct{ Provider, ID string }
		Providers struct {
			AuthJSON   []struct{ Provider, Type string } `json:"authJson"`
			ModelsJSON map[string]any                    `json:"modelsJson"`
		}
		Settings struct{ Global map[string]any }
	}
	if err := json.Unmarshal([]byte(files["report.json"]), &rep); err != nil {
		t.Fatalf("report.json: %v\n%s", err, files["report.json"])
	}
	if rep.Hint != "it hangs after the tool call" || rep.Environment.GoVersion == "" || rep.Environment.Version == "" ||
		!rep.Session.Included || rep.Session.Cwd != e.cwd || rep.Model.ID != "m1" {
		t.Errorf("report basics wrong:\n%s", files["report.json"])
	}
	if !contains(rep.Environment.RelayEnvironmentVariables, "RELAY_OFFLINE") ||
		!contains(rep.Environment.ProviderEnvironmentVariables, "ANTHROPIC_API_KEY") {
		t.Errorf("env names missing: %+v", rep.Environment)
	}
	got := map[string]string{}
	for _, a := range rep.Providers.AuthJSON {
		got[a.Provider] = a.Type
	}
	if got["openai"] != "api_key" || got["anthropic"] != "oauth" || len(got) != 3 {
		t.Errorf("auth summary %+v", rep.Providers.AuthJSON)
	}
	gw := rep.Providers.ModelsJSON["providers"].(map[string]any)["gateway"].(map[string]any)
	if gw["apiKey"] != "<redacted>" || gw["headers"].(map[string]any)["X-Gateway-Auth"] != "<redacted>" || gw["authHeader"] != true ||
		gw["baseUrl"] != "https://gw.example/v1?api_key=<redacted>&region=eu" || gw["api"] != "openai-completions" {
		t.Errorf("models.json not redacted as expected: %v", gw)
	}
	if rep.Settings.Global["defaultProvider"] != "gateway" {
		t.Errorf("settings: %v", rep.Settings.Global)
	}
	var diag struct {
		AssistantMessageCount int
		Assistant             []struct{ StopReason, ErrorMessage string }
	}
	json.Unmarshal([]byte(files["diagnostics.json"]), &diag)
	if diag.AssistantMessageCount != 3 || len(diag.Assistant) != 1 || diag.Assistant[0].ErrorMessage != "529 overloaded_error: Overloaded" {
		t.Errorf("diagnostics:\n%s", files["diagnostics.json"])
	}
	if !strings.Contains(files["session.jsonl"], "please check the build") || !strings.Contains(files["session.jsonl"], "my key is <redacted>") {
		t.Error("transcript missing or not scrubbed")
	}
	if e.models.AuthCalls != 0 {
		t.Error("the report resolved credentials")
	}
	leaf := e.rt.Session().LeafEntry()
	if c := leaf.Custom(); c == nil || c.CustomType != CustomType {
		t.Errorf("no %s entry recorded", CustomType)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestBugReportOmitAndSummary(t *testing.T) {
	e := newCmdRuntime(t, "## Goal\nCheck the build.\n\n## Problem\nThe provider was overloaded.")
	e.seed(t)
	res, err := e.f.Write(context.Background(), Request{})
	if err != nil {
		t.Fatal(err)
	}
	if files := readZip(t, res.Path); len(files) != 2 || files["session.jsonl"] != "" {
		t.Errorf("omit: files %v", res.Files)
	}
	res, err = e.f.Write(context.Background(), Request{Description: "overloaded", Transcript: TranscriptSummary, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	files := readZip(t, res.Path)
	if !strings.HasPrefix(files["summary.md"], "## Goal\nCheck the build.") || files["session.jsonl"] != "" {
		t.Errorf("summary: %v", files)
	}
	reqs := e.client.Reqs
	if len(reqs) != 1 {
		t.Fatalf("%d summary requests", len(reqs))
	}
	body := reqs[0].Messages[0].(*llm.UserMessage).Content.PlainText()
	for _, want := range []string{"please check the build", "<user-report>\noverloaded\n</user-report>", "529 overloaded_error"} {
		if !strings.Contains(body, want) {
			t.Errorf("summary prompt lacks %q:\n%s", want, body)
		}
	}
	if len(reqs[0].Tools) != 0 || reqs[0].SystemPrompt != bugSummarySystem {
		t.Errorf("summary request has tools or the wrong system prompt")
	}
	if _, err := e.f.Write(context.Background(), Request{Transcript: "everything"}); err == nil {
		t.Error("unknown transcript option accepted")
	}
}

func TestSensitiveKey(t *testing.T) {
	for key, want := range map[string]bool{
		"apiKey": true, "api_key": true, "API-KEY": true, "accessToken": true, "CLIENT_SECRET": true, "password": true,
		"Authorization": true, "cookie": true, "key": true, "privateKey": true, "GITHUB_TOKEN": true, "auth": true,
		"baseUrl": false, "id": false, "models": false, "keybindings": false, "monkey": false, "tokenizer": false, "defaultProvider": false,
	} {
		if got := sensitiveKey(key); got != want {
			t.Errorf("sensitiveKey(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.example/v1":                     "https://api.example/v1",
		"https://u:p@host:8443/x?token=abc&x=1#frag": "https://host:8443/x?token=<redacted>&x=1#frag",
		"http://host?apiKey=k":                       "http://host?apiKey=<redacted>",
		"not a url: https://u:p@h":                   "not a url: https://u:p@h",
		"plain text":                                 "plain text",
		"wss://user@h/p":                             "wss://h/p",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStripJSONComments(t *testing.T) {
	in := `{
  // line comment with "quote"
  "a": "http://x//y", /* block
  comment */ "b": [1, 2,],
  "c": "esc \" // not a comment",
}`
	var v map[string]any
	if err := json.Unmarshal(stripJSONComments([]byte(in)), &v); err != nil {
		t.Fatalf("%v\n%s", err, stripJSONComments([]byte(in)))
	}
	if v["a"] != "http://x//y" || v["c"] != `esc " // not a comment` || len(v["b"].([]any)) != 2 {
		t.Errorf("parsed %v", v)
	}
}
