package llm

// Defaults every wire client derives from a Request the same way
// (upstream-spec-core.md §6.5): the effective thinking level, token budgets,
// the default output limit and the sampling parameters of openai-* APIs.

// DefaultMaxTokensCap bounds the output limit used when Request.MaxTokens is 0.
const DefaultMaxTokensCap = 32000

// MinAnswerTokens is kept for the answer when a thinking budget is carved out
// of the output limit.
const MinAnswerTokens = 1024

// EffectiveMaxTokens returns r.MaxTokens, or min(model.MaxTokens, 32000)
// when it is 0.
func (r *Request) EffectiveMaxTokens() int {
	if r.MaxTokens > 0 {
		return r.MaxTokens
	}
	if r.Model != nil && r.Model.MaxTokens > 0 && r.Model.MaxTokens < DefaultMaxTokensCap {
		return r.Model.MaxTokens
	}
	return DefaultMaxTokensCap
}

// EffectiveThinking returns the requested level clamped to what the model
// supports; an empty level means off.
func (r *Request) EffectiveThinking() ThinkingLevel {
	l := r.ThinkingLevel
	if l == "" {
		l = ThinkingOff
	}
	if r.Model == nil {
		return l
	}
	return r.Model.ClampThinkingLevel(l)
}

// MappedThinking returns the provider value for level from the model's
// thinkingLevelMap: (value, true) when mapped to a string, ("", false) when
// mapped to null, and (level, true) when not mapped.
func (m *Model) MappedThinking(level ThinkingLevel) (string, bool) {
	v, ok := m.ThinkingLevelMap[string(level)]
	if !ok {
		return string(level), true
	}
	if v == nil {
		return "", false
	}
	return *v, true
}

var defaultThinkingBudgets = map[ThinkingLevel]int{
	ThinkingMinimal: 1024,
	ThinkingLow:     2048,
	ThinkingMedium:  8192,
	ThinkingHigh:    16384,
}

// ThinkingBudget returns the token budget of level for token-budget APIs:
// the Request.ThinkingBudgets override, else minimal 1024, low 2048,
// medium 8192, high 16384; xhigh and max use the high budget. Off is 0.
func (r *Request) ThinkingBudget(level ThinkingLevel) int {
	if level == ThinkingOff || level == "" {
		return 0
	}
	if level == ThinkingXHigh || level == ThinkingMax {
		if b, ok := r.ThinkingBudgets[level]; ok {
			return b
		}
		level = ThinkingHigh
	}
	if b, ok := r.ThinkingBudgets[level]; ok {
		return b
	}
	return defaultThinkingBudgets[level]
}

// SamplingParams merges the model's samplingParams, the override for the
// effective thinking level and the request temperature (later wins per key).
// Only openai-* APIs send them. The result is nil when empty.
func (r *Request) SamplingParams(level ThinkingLevel) map[string]any {
	out := map[string]any{}
	if r.Model != nil {
		for k, v := range r.Model.SamplingParams {
			out[k] = v
		}
		for k, v := range r.Model.SamplingParamsByThinkingLevel[string(level)] {
			out[k] = v
		}
	}
	if r.Temperature != nil {
		out["temperature"] = *r.Temperature
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// EffectiveCacheRetention returns r.CacheRetention, else "short" (the
// runtime sets it from RELAY_CACHE_RETENTION, read once by the CLI).
func (r *Request) EffectiveCacheRetention() CacheRetention {
	if r.CacheRetention != "" {
		return r.CacheRetention
	}
	return CacheShort
}
