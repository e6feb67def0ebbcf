package anthropic

import (
	"slices"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

func TestThinkingMapping(t *testing.T) {
	str := func(s string) *string { return &s }
	base := func(mod func(*llm.Model)) *llm.Model {
		m := sonnet("http://x")
		if mod != nil {
			mod(m)
		}
		return m
	}
	tests := []struct {
		name      string
		model     *llm.Model
		req       llm.Request
		thinking  *thinkingConfig
		effort    string
		maxTokens int
		beta      bool
		temp      bool
	}{
		{name: "off sends disabled", model: base(nil), req: llm.Request{Temperature: ptr(0.3)},
			thinking: &thinkingConfig{Type: "disabled"}, maxTokens: 32000, temp: true},
		// A model whose "off" is mapped to null cannot stop thinking: off
		// clamps up to minimal.
		{name: "off mapped to null clamps to minimal", model: base(func(m *llm.Model) { m.ThinkingLevelMap = map[string]*string{"off": nil} }),
			thinking: &thinkingConfig{Type: "enabled", BudgetTokens: 1024, Display: "summarized"}, maxTokens: 33024, beta: true},
		{name: "non-reasoning model sends nothing", model: base(func(m *llm.Model) { m.Reasoning = false; m.MaxTokens = 4096 }),
			req: llm.Request{ThinkingLevel: llm.ThinkingHigh}, maxTokens: 4096},
		{name: "minimal budget", model: base(nil), req: llm.Request{ThinkingLevel: llm.ThinkingMinimal, Temperature: ptr(1.0)},
			thinking: &thinkingConfig{Type: "enabled", BudgetTokens: 1024, Display: "summarized"}, maxTokens: 33024, beta: true},
		{name: "custom budgets", model: base(nil), req: llm.Request{ThinkingLevel: llm.ThinkingLow, MaxTokens: 1000, ThinkingBudgets: map[llm.ThinkingLevel]int{llm.ThinkingLow: 3000}},
			thinking: &thinkingConfig{Type: "enabled", BudgetTokens: 2976, Display: "summarized"}, maxTokens: 4000, beta: true}, // 1024 kept for the answer
		{name: "budget clamped to model max keeping 1024 answer tokens", model: base(func(m *llm.Model) { m.MaxTokens = 8192 }),
			req:      llm.Request{ThinkingLevel: llm.ThinkingHigh},
			thinking: &thinkingConfig{Type: "enabled", BudgetTokens: 7168, Display: "summarized"}, maxTokens: 8192, beta: true},
		{name: "xhigh clamps to high when unmapped", model: base(nil), req: llm.Request{ThinkingLevel: llm.ThinkingXHigh, MaxTokens: 10000},
			thinking: &thinkingConfig{Type: "enabled", BudgetTokens: 16384, Display: "summarized"}, maxTokens: 26384, beta: true},
		{name: "adaptive effort by level", model: base(func(m *llm.Model) { m.Compat = &llm.Compat{ForceAdaptiveThinking: ptr(true)} }),
			req: llm.Request{ThinkingLevel: llm.ThinkingMinimal}, thinking: &thinkingConfig{Type: "adaptive", Display: "summarized"}, effort: "low", maxTokens: 32000},
		{name: "adaptive effort from map", model: base(func(m *llm.Model) {
			m.Compat = &llm.Compat{ForceAdaptiveThinking: ptr(true)}
			m.ThinkingLevelMap = map[string]*string{"xhigh": str("xhigh"), "max": str("max")}
		}), req: llm.Request{ThinkingLevel: llm.ThinkingMax}, thinking: &thinkingConfig{Type: "adaptive", Display: "summarized"}, effort: "max", maxTokens: 32000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			req.Model = tt.model
			p := buildPlan(&req)
			if (p.body.Thinking == nil) != (tt.thinking == nil) || p.body.Thinking != nil && *p.body.Thinking != *tt.thinking {
				t.Errorf("thinking %+v, want %+v", p.body.Thinking, tt.thinking)
			}
			effort := ""
			if p.body.OutputConfig != nil {
				effort = p.body.OutputConfig.Effort
			}
			if effort != tt.effort || p.body.MaxTokens != tt.maxTokens {
				t.Errorf("effort %q max_tokens %d, want %q %d", effort, p.body.MaxTokens, tt.effort, tt.maxTokens)
			}
			if got := slices.Contains(p.betas, betaInterleavedThinking); got != tt.beta {
				t.Errorf("interleaved beta %v", got)
			}
			if got := p.body.Temperature != nil; got != tt.temp {
				t.Errorf("temperature sent %v", got)
			}
		})
	}
}
