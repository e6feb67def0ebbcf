package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/models"
	"github.com/relay-agent/relay/internal/settings"
)

func TestTreeMessageText(t *testing.T) {
	tests := []struct {
		name  string
		m     llm.Message
		want  string
		tools bool
	}{
		{"user", &llm.UserMessage{Content: llm.StringContent(" hi ")}, "hi", false},
		{"bash", &llm.BashExecutionMessage{Command: "ls -la"}, "ls -la", false},
		{"bash excluded", &llm.BashExecutionMessage{Command: "ls", ExcludeFromContext: true}, "ls (excluded from context)", false},
		{"tools only", &llm.AssistantMessage{Content: llm.Blocks{&llm.ToolCall{ID: "1", Name: "read", Arguments: json.RawMessage(`{}`)}}}, "(read)", true},
		{"text", &llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "done"}}}, "done", false},
		{"tool result", &llm.ToolResultMessage{ToolCallID: "r1", ToolName: "read", Content: llm.Blocks{&llm.TextContent{Text: "package x"}}}, "read main.go", false},
		{"tool error", &llm.ToolResultMessage{ToolCallID: "b1", ToolName: "bash", IsError: true}, "$ go test (error)", false},
		{"unknown call", &llm.ToolResultMessage{ToolCallID: "zz", ToolName: "grep"}, "grep", false},
	}
	calls := map[string]*llm.ToolCall{
		"r1": {ID: "r1", Name: "read", Arguments: json.RawMessage(`{"path":"main.go"}`)},
		"b1": {ID: "b1", Name: "bash", Arguments: json.RawMessage(`{"command":"go test"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, tools := treeMessageText(tt.m, calls)
			if got != tt.want || tools != tt.tools {
				t.Errorf("treeMessageText = %q, %v; want %q, %v", got, tools, tt.want, tt.tools)
			}
		})
	}
}

func TestStartupChangelog(t *testing.T) {
	dir := t.TempDir()
	s := settings.Defaults()
	// Fresh install: nothing shown, the version recorded.
	if text, warn := startupChangelog(s, dir, false); text != "" || warn != "" {
		t.Fatalf("fresh: %q %q", text, warn)
	}
	saved, _ := settings.Load(settings.LoadOptions{AgentDir: dir})
	if saved.LastChangelogVersion == "" {
		t.Fatal("version not recorded")
	}
	// After an update: the new sections, once.
	s.LastChangelogVersion = "0.0.1"
	text, warn := startupChangelog(s, dir, false)
	if !strings.Contains(text, "## 0.1.0") || warn != "" {
		t.Errorf("after update: %q %q", text, warn)
	}
	s.LastChangelogVersion = saved.LastChangelogVersion
	if text, _ := startupChangelog(s, dir, false); text != "" {
		t.Errorf("shown twice: %q", text)
	}
	// A resumed session shows none.
	s.LastChangelogVersion = "0.0.1"
	if text, _ := startupChangelog(s, dir, true); text != "" {
		t.Errorf("resumed: %q", text)
	}
}

type fixedRelease string

func (f fixedRelease) Latest(context.Context) (string, error) { return string(f), nil }

func TestUpdateCheckOff(t *testing.T) {
	check := updateCheck(config.EnvFromMap(nil), fixedRelease("v9.0.0"), "0.1.0")
	if check == nil || !strings.Contains(check(context.Background()), "9.0.0") {
		t.Fatal("check off by default")
	}
	for _, name := range []string{"RELAY_OFFLINE", "RELAY_SKIP_VERSION_CHECK"} {
		if updateCheck(config.EnvFromMap(map[string]string{name: "1"}), fixedRelease("v9.0.0"), "0.1.0") != nil {
			t.Errorf("%s=1 leaves the check on", name)
		}
	}
}

func TestSubscriptionAuthSetting(t *testing.T) {
	src := func(p string) string {
		if p == "anthropic" {
			return models.SourceAuthOAuth
		}
		return models.SourceAuthFile
	}
	s := settings.Defaults()
	check := subscriptionAuth(s, src)
	if check == nil || !check("anthropic") || check("openai") {
		t.Fatal("default: the warning should look at subscription sign-in")
	}
	s.Warnings.AnthropicExtraUsage = false
	if subscriptionAuth(s, src) != nil {
		t.Error("warnings.anthropicExtraUsage false leaves the check on")
	}
}
