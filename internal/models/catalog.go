package models

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"sync"

	"github.com/relay-agent/relay/internal/llm"
)

// catalogJSON is the built-in model catalog. It is parsed on first use, not
// at start-up: `relay --version` must not pay for it.
//
//go:embed catalog.json
var catalogJSON []byte

// catalogProvider is one provider block of catalog.json. Its api, baseUrl,
// headers, compat and promptCache are defaults for its models; compat and
// promptCache only apply to models that use the provider's api.
type catalogProvider struct {
	Provider    string            `json:"provider"`
	API         string            `json:"api"`
	BaseURL     string            `json:"baseUrl"`
	Headers     map[string]string `json:"headers"`
	Compat      json.RawMessage   `json:"compat"`
	PromptCache *llm.PromptCache  `json:"promptCache"`
	Models      []json.RawMessage `json:"models"`
}

var builtin struct {
	once      sync.Once
	models    []*llm.Model
	providers map[string]providerDefaults
	err       error
}

// providerDefaults are what a models.json model of a built-in provider
// inherits when it sets no api or baseUrl.
type providerDefaults struct {
	API     string
	BaseURL string
}

func loadBuiltin() {
	builtin.once.Do(func() {
		builtin.models, builtin.providers, builtin.err = parseCatalog(catalogJSON)
	})
}

func parseCatalog(data []byte) ([]*llm.Model, map[string]providerDefaults, error) {
	var provs []catalogProvider
	if err := json.Unmarshal(data, &provs); err != nil {
		return nil, nil, fmt.Errorf("parse model catalog: %w", err)
	}
	var out []*llm.Model
	defs := make(map[string]providerDefaults, len(provs))
	for _, p := range provs {
		defs[p.Provider] = providerDefaults{API: p.API, BaseURL: p.BaseURL}
		for _, raw := range p.Models {
			var m llm.Model
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, nil, fmt.Errorf("parse model catalog: %s: %w", p.Provider, err)
			}
			m.Provider = p.Provider
			if m.API == "" {
				m.API = p.API
			}
			if m.BaseURL == "" {
				m.BaseURL = p.BaseURL
			}
			if m.Name == "" {
				m.Name = m.ID
			}
			if len(p.Headers) > 0 {
				h := maps.Clone(p.Headers)
				maps.Copy(h, m.Headers)
				m.Headers = h
			}
			if m.API == p.API {
				if len(p.Compat) > 0 {
					c, err := mergeCompat(p.Compat, m.Compat)
					if err != nil {
						return nil, nil, fmt.Errorf("parse model catalog: %s/%s: %w", p.Provider, m.ID, err)
					}
					m.Compat = c
				}
				if m.PromptCache == nil && p.PromptCache != nil {
					pc := *p.PromptCache
					m.PromptCache = &pc
				}
			}
			out = append(out, &m)
		}
	}
	return out, defs, nil
}

// builtinModels returns fresh copies of the catalog models.
func builtinModels() ([]*llm.Model, error) {
	loadBuiltin()
	if builtin.err != nil {
		return nil, builtin.err
	}
	out := make([]*llm.Model, len(builtin.models))
	for i, m := range builtin.models {
		out[i] = cloneModel(m)
	}
	return out, nil
}

func builtinProviderDefaults(provider string) (providerDefaults, bool) {
	loadBuiltin()
	d, ok := builtin.providers[provider]
	return d, ok
}

// mergeCompat overlays the members of over on base (both JSON objects, or
// a Compat for over) and returns the combined Compat: maps merge per key.
func mergeCompat(base json.RawMessage, over *llm.Compat) (*llm.Compat, error) {
	var overRaw json.RawMessage
	if over != nil {
		b, err := json.Marshal(over)
		if err != nil {
			return nil, err
		}
		overRaw = b
	}
	merged, err := mergeObjects(base, overRaw)
	if err != nil {
		return nil, err
	}
	var c llm.Compat
	if err := json.Unmarshal(merged, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

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
		cc := *m.Compat
		if m.Compat.ReasoningEffortMap != nil {
			cc.ReasoningEffortMap = maps.Clone(m.Compat.ReasoningEffortMap)
		}
		if m.Compat.Extra != nil {
			cc.Extra = maps.Clone(m.Compat.Extra)
		}
		c.Compat = &cc
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
