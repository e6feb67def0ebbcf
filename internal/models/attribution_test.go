package models

import (
	"maps"
	"testing"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm"
)

func TestAttributionHeaders(t *testing.T) {
	tests := []struct {
		model llm.Model
		want  string // the header that must be present
	}{
		{llm.Model{Provider: "openrouter", BaseURL: "https://openrouter.ai/api/v1"}, "X-OpenRouter-Title"},
		{llm.Model{Provider: "custom", BaseURL: "https://openrouter.ai/api/v1"}, "HTTP-Referer"},
		{llm.Model{Provider: "nvidia"}, "X-BILLING-INVOKE-ORIGIN"},
		{llm.Model{Provider: "x", BaseURL: "https://gateway.ai.cloudflare.com/v1/acc"}, "User-Agent"},
		{llm.Model{Provider: "anthropic", BaseURL: "https://api.anthropic.com"}, ""},
		{llm.Model{Provider: "x", BaseURL: "https://api.cloudflare.com.evil.example"}, ""},
	}
	for _, tt := range tests {
		h := AttributionHeaders(&tt.model)
		if tt.want == "" {
			if h != nil {
				t.Errorf("%s %s: %v, want none", tt.model.Provider, tt.model.BaseURL, h)
			}
			continue
		}
		if h[tt.want] == "" {
			t.Errorf("%s %s: %v lacks %s", tt.model.Provider, tt.model.BaseURL, h, tt.want)
		}
	}
	m := &llm.Model{Provider: "openrouter"}
	got := WithAttribution(m, map[string]string{"x-openrouter-title": "mine", "Authorization": "Bearer k"})
	want := map[string]string{"HTTP-Referer": "https://github.com/relay-agent/relay", "X-OpenRouter-Categories": "cli-agent",
		"x-openrouter-title": "mine", "Authorization": "Bearer k"}
	if !maps.Equal(got, want) {
		t.Errorf("WithAttribution = %v, want %v (model headers win)", got, want)
	}
}

func TestInstallTelemetryEnv(t *testing.T) {
	for _, tt := range []struct {
		env     string
		setting bool
		want    bool
	}{{"", true, true}, {"", false, false}, {"0", true, false}, {"yes", false, true}, {"maybe", false, false}} {
		env := config.EnvFromMap(map[string]string{"RELAY_TELEMETRY": tt.env})
		if got := InstallTelemetry(env, tt.setting); got != tt.want {
			t.Errorf("RELAY_TELEMETRY=%q setting=%v: %v", tt.env, tt.setting, got)
		}
	}
}
