package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/models"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
)

func TestChooseModelScopeOrder(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "k")
	reg, err := models.Load(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	haiku := reg.Find("anthropic", "claude-haiku-4-5")
	sonnet := reg.Find("anthropic", "claude-sonnet-4-5")
	if haiku == nil || sonnet == nil {
		t.Skip("catalog lacks the test models")
	}
	scoped := []app.ScopedModel{{Model: haiku, Thinking: llm.ThinkingLow}, {Model: sonnet}}
	st := &settings.Settings{DefaultProvider: "anthropic", DefaultModel: "claude-sonnet-4-5", DefaultThinkingLevel: llm.ThinkingMedium}
	var warn bytes.Buffer
	tests := []struct {
		name      string
		args      Args
		wantID    string
		wantLevel llm.ThinkingLevel
	}{
		{"scope beats settings default", Args{}, "claude-haiku-4-5", llm.ThinkingLow},
		{"--thinking beats the scoped level", Args{Thinking: "high"}, "claude-haiku-4-5", llm.ThinkingHigh},
		{"invalid --thinking is ignored", Args{Thinking: "bogus"}, "claude-haiku-4-5", llm.ThinkingLow},
		{"--model beats the scope", Args{Model: "anthropic/claude-sonnet-4-5"}, "claude-sonnet-4-5", llm.ThinkingMedium},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, level, err := chooseModel(context.Background(), &tt.args, st, reg, session.InMemory(t.TempDir()), scoped, &warn)
			if err != nil || m == nil || m.ID != tt.wantID || level != tt.wantLevel {
				t.Fatalf("got %v %s %v, want %s %s", m, level, err, tt.wantID, tt.wantLevel)
			}
		})
	}
	if !strings.Contains(warn.String(), `Warning: invalid --thinking "bogus" ignored`) {
		t.Errorf("warnings %q", warn.String())
	}
	m, _, _ := chooseModel(context.Background(), &Args{}, st, reg, session.InMemory(t.TempDir()), nil, &warn)
	if m == nil || m.ID != "claude-sonnet-4-5" {
		t.Fatalf("without a scope the settings default wins, got %v", m)
	}
}
