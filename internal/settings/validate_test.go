package settings

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/relay-agent/relay/internal/llm"
)

// TestValidation loads one bad user file per case. The diagnostics (with
// the file path shortened) are golden; check asserts that the bad key kept
// its default and that the good keys of the same file still applied.
func TestValidation(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		check func(*Settings) error
	}{
		{"invalid_json", `{"theme": "dark",, }`, func(s *Settings) error {
			return want(s.Theme, "system")
		}},
		{"truncated_json", `{"theme": "dark"`, nil},
		{"top_level_array", `["theme"]`, nil},
		{"empty_file", "  \n", nil},
		{"bom", "\ufeff{\"theme\": \"dark\"}", func(s *Settings) error { return want(s.Theme, "dark") }},
		{"wrong_type_bool", `{"hideThinkingBlock": "yes", "theme": "dark"}`, func(s *Settings) error {
			return all(want(s.HideThinkingBlock, false), want(s.Theme, "dark"))
		}},
		{"wrong_type_string", `{"defaultModel": 5}`, func(s *Settings) error { return want(s.DefaultModel, "") }},
		{"unknown_enum", `{"steeringMode": "some", "followUpMode": "all"}`, func(s *Settings) error {
			return all(want(s.SteeringMode, QueueOneAtATime), want(s.FollowUpMode, QueueAll))
		}},
		{"unknown_thinking_level", `{"defaultThinkingLevel": "ultra", "modelThinkingLevels": {"a/b": "huge", "c/d": "low"}}`, func(s *Settings) error {
			return all(want(s.DefaultThinkingLevel, llm.ThinkingMedium), want(len(s.ModelThinkingLevels), 1))
		}},
		{"editor_padding_range", `{"editorPaddingX": 4}`, func(s *Settings) error { return want(s.EditorPaddingX, 0) }},
		{"editor_padding_fraction", `{"editorPaddingX": 1.5}`, func(s *Settings) error { return want(s.EditorPaddingX, 0) }},
		{"autocomplete_range", `{"autocompleteMaxVisible": 2}`, func(s *Settings) error { return want(s.AutocompleteMaxVisible, 5) }},
		{"wheel_lines", `{"fullscreenWheelScrollLines": 101}`, func(s *Settings) error { return want(s.FullscreenWheelScrollLines.Auto(), true) }},
		{"wheel_lines_string", `{"fullscreenWheelScrollLines": "fast"}`, nil},
		{"wheel_lines_ok", `{"fullscreenWheelScrollLines": 1}`, func(s *Settings) error { return want(s.FullscreenWheelScrollLines.Lines, 1) }},
		{"output_pad", `{"outputPad": 2}`, func(s *Settings) error { return want(s.OutputPad, 1) }},
		{"quiet_startup", `{"quietStartup": "yes"}`, nil},
		{"quiet_startup_true", `{"quietStartup": true}`, func(s *Settings) error { return want(s.QuietStartup.Quiet, true) }},
		{"negative_compaction", `{"compaction": {"reserveTokens": -1, "keepRecentTokens": 100}}`, func(s *Settings) error {
			return all(want(s.Compaction.ReserveTokens, 16384), want(s.Compaction.KeepRecentTokens, 100))
		}},
		{"unsafe_integer", `{"compaction": {"keepRecentTokens": 9007199254740993}}`, func(s *Settings) error {
			return want(s.Compaction.KeepRecentTokens, 20000)
		}},
		{"model_override_bad", `{"compaction": {"modelOverrides": {"openai/gpt-4.1": {"reserveTokens": "big", "keepRecentTokens": 5}, "x/y": 3}}}`, func(s *Settings) error {
			return all(want(s.CompactionFor("openai", "gpt-4.1"), CompactionSettings{true, 16384, 5}),
				want(len(s.Compaction.ModelOverrides), 1))
		}},
		{"object_expected", `{"compaction": true, "retry": {"provider": 1}}`, func(s *Settings) error {
			return want(s.Compaction.Enabled, true)
		}},
		{"string_list", `{"defaultTools": ["read", 3], "enabledModels": "a/b"}`, func(s *Settings) error {
			return all(want(strings.Join(s.DefaultTools, ","), "read,bash,edit,write"), want(s.EnabledModels == nil, true))
		}},
		{"unknown_keys", `{"themes2": [], "compaction": {"enabeld": false}, "laya": {"models": {"huge": []}}}`, nil},
		{"laya_ranges", `{"laya": {"minConfidence": 1.5, "quota": {"openai": -0.1, "anthropic": 0.5}, "policy": "cheap"}}`, func(s *Settings) error {
			return all(want(s.Laya.MinConfidence, 0.5), want(s.LayaQuota("anthropic"), 0.5), want(s.LayaQuota("openai"), 1.0))
		}},
		{"terminal_unions", `{"terminal": {"hyperlinks": "yes", "images": true, "trueColor": "auto", "imageWidthCells": 0}}`, func(s *Settings) error {
			return want(s.Terminal.Images, ImageProtocol{Value: "auto"})
		}},
		{"packages_bad", `{"packages": [{"source": "npm:x", "extensions": "a"}]}`, func(s *Settings) error { return want(len(s.Packages), 0) }},
		{"packages_unknown_field", `{"packages": [{"source": "npm:x", "filter": []}]}`, func(s *Settings) error { return want(len(s.Packages), 1) }},
		{"packages_no_source", `{"packages": ["", {"skills": []}, 5]}`, nil},
		{"harness_min", `{"harnessCore": {"contextKeepRecent": 0, "verifyCommands": [true]}}`, func(s *Settings) error {
			return want(s.HarnessCore.ContextKeepRecent, 6)
		}},
		{"null_value", `{"theme": null}`, func(s *Settings) error { return want(s.Theme, "system") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.user(t, tt.file)
			s, diags := e.load(true)
			golden(t, filepath.Join("diagnostics", tt.name+".golden"), render(diags, e))
			if tt.check != nil {
				if err := tt.check(s); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func render(diags []Diagnostic, e env) string {
	var b strings.Builder
	for _, d := range diags {
		d.File = strings.NewReplacer(e.agent, "<agent>", e.cwd, "<cwd>").Replace(d.File)
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}

func want(got, w any) error {
	if !cmp.Equal(got, w) {
		return fmt.Errorf("got %#v, want %#v", got, w)
	}
	return nil
}

func all(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func TestMigrations(t *testing.T) {
	e := newEnv(t)
	e.user(t, `{"queueMode": "all", "websockets": true, "skills": {"enableSkillCommands": false, "customDirectories": ["~/s"]},
		"retry": {"maxDelayMs": 5}}`)
	s, diags := e.load(true)
	if len(diags) != 0 {
		t.Fatal(diags)
	}
	if err := all(want(s.SteeringMode, QueueAll), want(s.Transport, "websocket"), want(s.EnableSkillCommands, false),
		want(len(s.Skills), 1), want(s.Retry.Provider.MaxRetryDelayMs, 5)); err != nil {
		t.Error(err)
	}
}
