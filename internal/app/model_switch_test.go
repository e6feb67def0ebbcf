package app

import (
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

// Switching from a model without reasoning (level necessarily off) to one
// with it starts at the default level, as in the original; between
// reasoning models the current level carries over.
func TestSetModelThinkingLevel(t *testing.T) {
	plain := &llm.Model{ID: "plain", Provider: "fake", API: "fake-api", ContextWindow: 1000}
	thinker := &llm.Model{ID: "thinker", Provider: "fake", API: "fake-api", ContextWindow: 1000, Reasoning: true}
	other := &llm.Model{ID: "other", Provider: "fake", API: "fake-api", ContextWindow: 1000, Reasoning: true}
	tests := []struct {
		name       string
		from       *llm.Model
		fromLevel  llm.ThinkingLevel
		defaultLvl llm.ThinkingLevel
		to         *llm.Model
		want       llm.ThinkingLevel
	}{
		{"plain to reasoning: built-in default", plain, llm.ThinkingOff, "", thinker, llm.ThinkingMedium},
		{"plain to reasoning: settings default", plain, llm.ThinkingOff, llm.ThinkingHigh, thinker, llm.ThinkingHigh},
		{"no model to reasoning", nil, "", llm.ThinkingLow, thinker, llm.ThinkingLow},
		{"reasoning keeps its level", thinker, llm.ThinkingLow, llm.ThinkingHigh, other, llm.ThinkingLow},
		{"reasoning keeps off", thinker, llm.ThinkingOff, llm.ThinkingHigh, other, llm.ThinkingOff},
		{"to plain is off", thinker, llm.ThinkingHigh, llm.ThinkingHigh, plain, llm.ThinkingOff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, _ := newRuntime(t)
			rt.mu.Lock()
			rt.model, rt.thinking = tt.from, tt.fromLevel
			rt.cfg.DefaultThinking = tt.defaultLvl
			rt.mu.Unlock()
			if err := rt.SetModel(tt.to); err != nil {
				t.Fatal(err)
			}
			if got := rt.ThinkingLevel(); got != tt.want {
				t.Errorf("thinking level %q, want %q", got, tt.want)
			}
		})
	}
}
