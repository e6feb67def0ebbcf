package llm

import "testing"

func TestRequestDefaults(t *testing.T) {
	off := "none"
	m := &Model{MaxTokens: 64000, Reasoning: true, ThinkingLevelMap: map[string]*string{"off": &off, "minimal": nil},
		SamplingParams:                map[string]any{"temperature": 1.0, "top_p": 0.9},
		SamplingParamsByThinkingLevel: map[string]map[string]any{"high": {"top_k": 20}}}
	r := &Request{Model: m}
	if got := r.EffectiveMaxTokens(); got != 32000 {
		t.Errorf("max tokens = %d", got)
	}
	r.MaxTokens = 100
	if got := r.EffectiveMaxTokens(); got != 100 {
		t.Errorf("max tokens = %d", got)
	}
	if got := r.EffectiveThinking(); got != ThinkingOff {
		t.Errorf("thinking = %s", got)
	}
	r.ThinkingLevel = ThinkingMinimal
	if got := r.EffectiveThinking(); got != ThinkingLow {
		t.Errorf("clamped thinking = %s", got)
	}
	if v, ok := m.MappedThinking(ThinkingOff); !ok || v != "none" {
		t.Errorf("mapped off = %q %v", v, ok)
	}
	if _, ok := m.MappedThinking(ThinkingMinimal); ok {
		t.Errorf("null mapping should report false")
	}
	if v, _ := m.MappedThinking(ThinkingHigh); v != "high" {
		t.Errorf("unmapped = %q", v)
	}
	r.ThinkingBudgets = map[ThinkingLevel]int{ThinkingLow: 5}
	for l, want := range map[ThinkingLevel]int{ThinkingOff: 0, ThinkingLow: 5, ThinkingMedium: 8192, ThinkingXHigh: 16384} {
		if got := r.ThinkingBudget(l); got != want {
			t.Errorf("budget(%s) = %d, want %d", l, got, want)
		}
	}
	temp := 0.2
	r.Temperature = &temp
	sp := r.SamplingParams(ThinkingHigh)
	if sp["temperature"] != 0.2 || sp["top_p"] != 0.9 || sp["top_k"] != 20 {
		t.Errorf("sampling = %v", sp)
	}
	if (&Request{}).SamplingParams(ThinkingOff) != nil {
		t.Errorf("empty sampling should be nil")
	}
}
