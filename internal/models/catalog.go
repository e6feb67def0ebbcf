package models

import (
	"encoding/json"
	"maps"

	"github.com/relay-agent/relay/internal/llm"
)

// The built-in catalog is catalog.json. TestCatalogGenerated compiles it
// into catalog_gen.go (go test ./internal/models -run CatalogGenerated
// -update), so nothing is parsed at start-up or on first use:
// catalogModels() only allocates. The test fails when the two drift.

// providerDefaults are what a models.json model of a built-in provider
// inherits when it sets no api or baseUrl.
type providerDefaults struct {
	API     string
	BaseURL string
}

// builtinModels returns a fresh copy of the catalog models.
func builtinModels() []*llm.Model { return catalogModels() }

func builtinProviderDefaults(provider string) (providerDefaults, bool) {
	return catalogProviderDefaults(provider)
}

func boolPtr(b bool) *bool    { return &b }
func strPtr(s string) *string { return &s }

// mergeObjects returns base with the top-level members of over laid on top.
func mergeObjects(base, over json.RawMessage) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(base) > 0 {
		if err := json.Unmarshal(base, &m); err != nil {
			return nil, err
		}
	}
	if len(over) > 0 {
		var o map[string]json.RawMessage
		if err := json.Unmarshal(over, &o); err != nil {
			return nil, err
		}
		maps.Copy(m, o)
	}
	return llm.Marshal(m)
}

// cloneModel copies m deeply enough that overrides on the copy never touch
// the original (slices and maps are copied; opaque raw values are shared,
// they are never mutated in place).
func cloneModel(m *llm.Model) *llm.Model {
	c := *m
	c.Input = append([]string(nil), m.Input...)
	c.Cost.Tiers = append([]llm.CostTier(nil), m.Cost.Tiers...)
	if m.ThinkingLevelMap != nil {
		c.ThinkingLevelMap = maps.Clone(m.ThinkingLevelMap)
	}
	if m.PromptCache != nil {
		pc := *m.PromptCache
		c.PromptCache = &pc
	}
	if m.Headers != nil {
		c.Headers = maps.Clone(m.Headers)
	}
	if m.Compat != nil {
		c.Compat = cloneCompat(m.Compat)
	}
	if m.SamplingParams != nil {
		c.SamplingParams = maps.Clone(m.SamplingParams)
	}
	if m.SamplingParamsByThinkingLevel != nil {
		c.SamplingParamsByThinkingLevel = make(map[string]map[string]any, len(m.SamplingParamsByThinkingLevel))
		for k, v := range m.SamplingParamsByThinkingLevel {
			c.SamplingParamsByThinkingLevel[k] = maps.Clone(v)
		}
	}
	return &c
}

func cloneCompat(c *llm.Compat) *llm.Compat {
	cc := *c
	if c.ReasoningEffortMap != nil {
		cc.ReasoningEffortMap = maps.Clone(c.ReasoningEffortMap)
	}
	if c.ChatTemplateKwargs != nil {
		cc.ChatTemplateKwargs = maps.Clone(c.ChatTemplateKwargs)
	}
	if c.Extra != nil {
		cc.Extra = maps.Clone(c.Extra)
	}
	return &cc
}
