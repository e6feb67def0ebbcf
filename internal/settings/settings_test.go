package settings

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/relay-agent/relay/internal/llm"
)

var update = flag.Bool("update", false, "rewrite golden files")

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// env gives each test its own agent dir, project and home.
type env struct{ agent, cwd, home string }

func newEnv(t *testing.T) env {
	t.Helper()
	root := t.TempDir()
	e := env{agent: filepath.Join(root, "agent"), cwd: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	for _, d := range []string{e.agent, e.cwd, e.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", e.home)
	return e
}

func (e env) user(t *testing.T, s string) { writeFile(t, filepath.Join(e.agent, "settings.json"), s) }
func (e env) project(t *testing.T, s string) {
	writeFile(t, filepath.Join(e.cwd, ".relay", "settings.json"), s)
}
func (e env) load(trusted bool) (*Settings, []Diagnostic) {
	return Load(LoadOptions{AgentDir: e.agent, Cwd: e.cwd, ProjectTrusted: trusted})
}

// golden compares got with testdata/<name>, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		writeFile(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func TestDefaults(t *testing.T) {
	s := Defaults()
	tests := []struct {
		key       string
		got, want any
	}{
		{"defaultProvider", s.DefaultProvider, ""},
		{"defaultModel", s.DefaultModel, ""},
		{"defaultThinkingLevel", s.DefaultThinkingLevel, llm.ThinkingMedium},
		{"modelThinkingLevels", len(s.ModelThinkingLevels), 0},
		{"thinkingBudgets", len(s.ThinkingBudgets), 0},
		{"enabledModels", s.EnabledModels == nil, true},
		{"hideThinkingBlock", s.HideThinkingBlock, false},
		{"showCacheMissNotices", s.ShowCacheMissNotices, false},
		{"cacheWarming", s.CacheWarming, CacheWarmingStreaming},
		{"steeringMode", s.SteeringMode, QueueOneAtATime},
		{"followUpMode", s.FollowUpMode, QueueOneAtATime},
		{"externalEditor", s.ExternalEditor, ""},
		{"doubleEscapeAction", s.DoubleEscapeAction, "tree"},
		{"treeFilterMode", s.TreeFilterMode, "default"},
		{"defaultProjectTrust", s.DefaultProjectTrust, TrustAsk},
		{"defaultTools", strings.Join(s.DefaultTools, ","), "read,bash,edit,write"},
		{"codemode.mode", s.Codemode.Mode, "on"},
		{"codemode.inlineBudget", s.Codemode.InlineBudget, 3000},
		{"sessionDir", s.SessionDir, ""},
		{"compaction.enabled", s.Compaction.Enabled, true},
		{"compaction.reserveTokens", s.Compaction.ReserveTokens, 16384},
		{"compaction.keepRecentTokens", s.Compaction.KeepRecentTokens, 20000},
		{"compaction.modelOverrides", len(s.Compaction.ModelOverrides), 0},
		{"harnessCore.alignment", s.HarnessCore.Alignment, true},
		{"harnessCore.authorizationGate", s.HarnessCore.AuthorizationGate, true},
		{"harnessCore.scopeGuard", s.HarnessCore.ScopeGuard, true},
		{"harnessCore.evidence", s.HarnessCore.Evidence, true},
		{"harnessCore.context", s.HarnessCore.Context, true},
		{"harnessCore.contextKeepRecent", s.HarnessCore.ContextKeepRecent, 6},
		{"harnessCore.contextBatchSize", s.HarnessCore.ContextBatchSize, 6},
		{"harnessCore.skills", s.HarnessCore.Skills, true},
		{"harnessCore.verifyCommands", len(s.HarnessCore.VerifyCommands), 0},
		{"harnessCore.maxChangedLines", s.HarnessCore.MaxChangedLines, 500},
		{"harnessCore.maxFileLines", s.HarnessCore.MaxFileLines, 1000},
		{"laya.autostart", s.Laya.Autostart, true},
		{"laya.python", s.Laya.Python, ""},
		{"laya.policy", s.Laya.Policy, "balanced"},
		{"laya.models", len(s.Laya.Models), 0},
		{"laya.quota", s.LayaQuota("openai-codex"), 1.0},
		{"laya.minConfidence", s.Laya.MinConfidence, 0.5},
		{"laya.escalateAfterFailures", s.Laya.EscalateAfterFailures, 3},
		{"laya.toolRouting", s.Laya.ToolRouting, "advise"},
		{"laya.telemetry", s.Laya.Telemetry, true},
		{"laya.memory", s.Laya.Memory, true},
		{"laya.timeoutMs", s.Laya.TimeoutMs, 5000},
		{"branchSummary.reserveTokens", s.BranchSummary.ReserveTokens, 16384},
		{"branchSummary.skipPrompt", s.BranchSummary.SkipPrompt, false},
		{"theme", s.Theme, "system"},
		{"quietStartup", s.QuietStartup, QuietStartup{}},
		{"tuiMode", s.TUIMode, "fullscreen"},
		{"fullscreenExitOutput", s.FullscreenExitOutput, "transcript"},
		{"fullscreenScrollbar", s.FullscreenScrollbar, "auto"},
		{"fullscreenCopyOnSelect", s.FullscreenCopyOnSelect, true},
		{"fullscreenWheelScrollLines", s.FullscreenWheelScrollLines.Auto(), true},
		{"editorPaddingX", s.EditorPaddingX, 0},
		{"outputPad", s.OutputPad, 1},
		{"autocompleteMaxVisible", s.AutocompleteMaxVisible, 5},
		{"showHardwareCursor", s.ShowHardwareCursor, false},
		{"terminal.showImages", s.Terminal.ShowImages, true},
		{"terminal.imageWidthCells", s.Terminal.ImageWidthCells, 60},
		{"terminal.clearOnShrink", s.Terminal.ClearOnShrink, false},
		{"terminal.showTerminalProgress", s.Terminal.ShowTerminalProgress, false},
		{"terminal.hyperlinks", s.Terminal.Hyperlinks, BoolOrAuto{}},
		{"terminal.images", s.Terminal.Images, ImageProtocol{Value: "auto"}},
		{"terminal.trueColor", s.Terminal.TrueColor, BoolOrAuto{}},
		{"images.autoResize", s.Images.AutoResize, true},
		{"images.blockImages", s.Images.BlockImages, false},
		{"markdown.codeBlockIndent", s.Markdown.CodeBlockIndent, "  "},
		{"markdown.mermaid", s.Markdown.Mermaid, "streaming"},
		{"transport", s.Transport, "auto"},
		{"httpProxy", s.HTTPProxy, ""},
		{"httpIdleTimeoutMs", s.HTTPIdleTimeoutMs, 300000},
		{"websocketConnectTimeoutMs", s.WebsocketConnectTimeoutMs, 15000},
		{"retry.enabled", s.Retry.Enabled, true},
		{"retry.maxRetries", s.Retry.MaxRetries, 3},
		{"retry.baseDelayMs", s.Retry.BaseDelayMs, 2000},
		{"retry.maxAgentDelayMs", s.Retry.MaxAgentDelayMs, 60000},
		{"retry.provider.timeoutMs", s.ProviderTimeoutMs(), 300000},
		{"retry.provider.maxRetries", s.Retry.Provider.MaxRetries, 0},
		{"retry.provider.maxRetryDelayMs", s.Retry.Provider.MaxRetryDelayMs, 60000},
		{"shellPath", s.ShellPath, ""},
		{"shellCommandPrefix", s.ShellCommandPrefix, ""},
		{"npmCommand", strings.Join(s.NpmCommand, " "), "npm"},
		{"packages", len(s.Packages), 0},
		{"extensions", len(s.Extensions), 0},
		{"skills", len(s.Skills), 0},
		{"prompts", len(s.Prompts), 0},
		{"themes", len(s.Themes), 0},
		{"enableSkillCommands", s.EnableSkillCommands, true},
		{"collapseChangelog", s.CollapseChangelog, false},
		{"enableInstallTelemetry", s.EnableInstallTelemetry, true},
		{"enableAnalytics", s.EnableAnalytics, false},
		{"warnings.anthropicExtraUsage", s.Warnings.AnthropicExtraUsage, true},
	}
	for _, tt := range tests {
		if !cmp.Equal(tt.got, tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.key, tt.got, tt.want)
		}
	}
}

func TestLoadNoFilesIsDefaults(t *testing.T) {
	e := newEnv(t)
	s, diags := e.load(true)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if diff := cmp.Diff(Defaults(), s); diff != "" {
		t.Errorf("(-defaults +loaded):\n%s", diff)
	}
}

// TestLoadEveryKey sets every key of settings.md to a valid non-default
// value: no diagnostics, and the typed result is pinned by a golden file.
func TestLoadEveryKey(t *testing.T) {
	e := newEnv(t)
	e.user(t, everyKey)
	s, diags := e.load(true)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	s.Packages[0].BaseDir = "<agent>"
	s.Packages[1].BaseDir = "<agent>"
	for _, list := range [][]Resource{s.Extensions, s.Skills, s.Prompts, s.Themes} {
		for i := range list {
			list[i].BaseDir = "<agent>"
		}
	}
	s.SessionDir = strings.Replace(s.SessionDir, e.cwd, "<cwd>", 1)
	out, err := json.MarshalIndent(struct {
		*Settings
		DefaultTools []string
		SessionDir   string
		Packages     []PackageSource
		Extensions   []Resource
		Skills       []Resource
		Prompts      []Resource
		Themes       []Resource
	}{s, s.DefaultTools, s.SessionDir, s.Packages, s.Extensions, s.Skills, s.Prompts, s.Themes}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "every_key.golden.json", string(out)+"\n")
}

const everyKey = `{
  "defaultProvider": "anthropic",
  "defaultModel": "claude-sonnet-4-5",
  "defaultThinkingLevel": "high",
  "modelThinkingLevels": {"openai/gpt-5": "xhigh"},
  "thinkingBudgets": {"minimal": 512, "low": 1000, "medium": 4000, "high": 20000},
  "enabledModels": ["anthropic/*", "openai/gpt-5"],
  "hideThinkingBlock": true,
  "showCacheMissNotices": true,
  "cacheWarming": "idle",
  "steeringMode": "all",
  "followUpMode": "all",
  "externalEditor": "code --wait",
  "doubleEscapeAction": "fork",
  "treeFilterMode": "labeled-only",
  "defaultProjectTrust": "always",
  "defaultTools": ["read", "grep"],
  "codemode": {"mode": "only", "inlineBudget": 0},
  "sessionDir": "sessions-here",
  "compaction": {"enabled": false, "reserveTokens": 1, "keepRecentTokens": 2,
    "modelOverrides": {"anthropic/claude-x": {"reserveTokens": 3}}},
  "harnessCore": {"alignment": false, "authorizationGate": false, "scopeGuard": false, "evidence": false,
    "context": false, "contextKeepRecent": 2, "contextBatchSize": 3, "skills": false,
    "verifyCommands": ["go test ./..."], "maxChangedLines": 0, "maxFileLines": 0},
  "laya": {"baseUrl": "http://laya:1/v1", "autostart": false, "python": "python3.12", "image": "img:1",
    "policy": "quality", "models": {"fast": ["openai/gpt-5-mini"], "balanced": [], "strong": ["anthropic/claude-opus-4-1"], "frontier": ["openai/gpt-5"]},
    "modelGroups": {"g": {"strong": ["a/b"]}}, "followProvider": true,
    "quota": {"openai-codex": 0.25}, "minConfidence": 0.7, "escalateAfterFailures": 0,
    "toolRouting": "enforce", "toolRetrieval": 4, "toolRetrievalTelemetry": true,
    "telemetry": false, "memory": false, "timeoutMs": 100, "classifier": "llama.cpp/qwen3-4b"},
  "branchSummary": {"reserveTokens": 0, "skipPrompt": true},
  "theme": "dark",
  "quietStartup": "header",
  "tuiMode": "regular",
  "fullscreenExitOutput": "resume-hint",
  "fullscreenScrollbar": "hidden",
  "fullscreenCopyOnSelect": false,
  "fullscreenWheelScrollLines": 100,
  "editorPaddingX": 3,
  "outputPad": 0,
  "autocompleteMaxVisible": 20,
  "showHardwareCursor": true,
  "terminal": {"showImages": false, "imageWidthCells": 80, "clearOnShrink": true, "showTerminalProgress": true,
    "hyperlinks": false, "images": false, "trueColor": true},
  "images": {"autoResize": false, "blockImages": true},
  "markdown": {"codeBlockIndent": "    ", "mermaid": "off"},
  "transport": "websocket-cached",
  "httpProxy": "http://proxy:3128",
  "httpIdleTimeoutMs": 0,
  "websocketConnectTimeoutMs": 1,
  "retry": {"enabled": false, "maxRetries": 9, "baseDelayMs": 10, "maxAgentDelayMs": 20,
    "provider": {"timeoutMs": 30, "maxRetries": 1, "maxRetryDelayMs": 0}},
  "shellPath": "/bin/zsh",
  "shellCommandPrefix": "shopt -s expand_aliases",
  "npmCommand": ["mise", "exec", "node@20", "--", "npm"],
  "packages": ["npm:@example/relay-tools@1.0.0",
    {"source": "./local-pkg", "autoload": false, "extensions": ["extensions/*.ts", "!extensions/legacy.ts"], "skills": []}],
  "extensions": ["ext/a.ts", "-builtin:mcp"],
  "skills": ["~/skills"],
  "prompts": ["!drafts/*.md"],
  "themes": ["/abs/themes"],
  "enableSkillCommands": false,
  "collapseChangelog": true,
  "enableInstallTelemetry": false,
  "enableAnalytics": true,
  "warnings": {"anthropicExtraUsage": false},
  "lastChangelogVersion": "1.2.3",
  "trackingId": "t",
  "deviceId": "d"
}`

func TestAccessors(t *testing.T) {
	e := newEnv(t)
	e.user(t, `{
		"httpIdleTimeoutMs": 1000,
		"compaction": {"reserveTokens": 100, "modelOverrides": {
			"anthropic/claude-x": {"keepRecentTokens": 5},
			"openai/gpt-4.1": {"reserveTokens": 7, "keepRecentTokens": 8}}},
		"modelThinkingLevels": {"openai/gpt-4.1": "low"}
	}`)
	s, diags := e.load(true)
	if len(diags) != 0 {
		t.Fatal(diags)
	}
	if got := s.ProviderTimeoutMs(); got != 1000 {
		t.Errorf("ProviderTimeoutMs = %d, want httpIdleTimeoutMs 1000", got)
	}
	for _, tt := range []struct {
		provider, model string
		want            CompactionSettings
	}{
		{"anthropic", "claude-x", CompactionSettings{true, 100, 5}},
		{"openai", "gpt-4.1", CompactionSettings{true, 7, 8}},
		{"openai", "GPT-4.1", CompactionSettings{true, 100, 20000}}, // exact, case-sensitive
		{"other", "m", CompactionSettings{true, 100, 20000}},
	} {
		if got := s.CompactionFor(tt.provider, tt.model); got != tt.want {
			t.Errorf("CompactionFor(%s/%s) = %+v, want %+v", tt.provider, tt.model, got, tt.want)
		}
	}
	if l, ok := s.ThinkingLevelFor("openai", "gpt-4.1"); !ok || l != llm.ThinkingLow {
		t.Errorf("ThinkingLevelFor = %q %v", l, ok)
	}
	if got := s.StartupThinkingLevel("x", "y"); got != llm.ThinkingMedium {
		t.Errorf("StartupThinkingLevel fallback = %q", got)
	}

	if got := s.ExternalEditorCommand(""); got != "nano" {
		t.Errorf("editor default = %q", got)
	}
	if got := s.ExternalEditorCommand("emacs"); got != "emacs" {
		t.Errorf("editor from VISUAL/EDITOR = %q", got)
	}
	s.ExternalEditor = "code --wait"
	if got := s.ExternalEditorCommand("emacs"); got != "code --wait" {
		t.Errorf("editor from setting = %q", got)
	}
}

// TestSchemaMatchesStruct keeps the validation table, the typed struct and
// the every-key fixture in step: every schema path is in the fixture, and
// every key of the fixture decodes into a struct field.
func TestSchemaMatchesStruct(t *testing.T) {
	v, err := parseOrdered([]byte(everyKey))
	if err != nil {
		t.Fatal(err)
	}
	fixture := v.(*Object)
	var walk func(n *node, o *Object, path string)
	walk = func(n *node, o *Object, path string) {
		for k, child := range n.fields {
			val, ok := o.Get(k)
			if !ok {
				t.Errorf("fixture lacks %s%s", path, k)
				continue
			}
			if child.fields != nil {
				walk(child, val.(*Object), path+k+".")
			}
		}
	}
	walk(schema(), fixture, "")

	rest := fixture.clone()
	for _, k := range append([]string{"defaultTools", "sessionDir"}, resourceKeys...) {
		rest.Delete(k)
	}
	data, _ := json.Marshal(rest)
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(Defaults()); err != nil {
		t.Errorf("schema key without struct field: %v", err)
	}
}
