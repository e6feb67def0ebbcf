package models

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
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
	Compat      *llm.Compat       `json:"compat"`
	PromptCache *llm.PromptCache  `json:"promptCache"`
	Models      []llm.Model       `json:"models"`
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
		for i := range p.Models {
			m := &p.Models[i]
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
				if p.Compat != nil {
					m.Compat = overlayCompat(p.Compat, m.Compat)
				}
				if m.PromptCache == nil && p.PromptCache != nil {
					pc := *p.PromptCache
					m.PromptCache = &pc
				}
			}
			out = append(out, m)
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

// overlayCompat returns a copy of base with every member set in over laid
// on top (compat objects merge per top-level key).
func overlayCompat(base, over *llm.Compat) *llm.Compat {
	out := &llm.Compat{}
	if base != nil {
		out = cloneCompat(base)
	}
	if over == nil {
		return out
	}
	dst := reflect.ValueOf(out).Elem()
	src := reflect.ValueOf(over).Elem()
	for i := 0; i < src.NumField(); i++ {
		f := src.Field(i)
		if src.Type().Field(i).Name == "Extra" || f.IsZero() {
			continue
		}
		dst.Field(i).Set(f)
	}
	if len(over.Extra) > 0 {
		if out.Extra == nil {
			out.Extra = llm.Extra{}
		}
		maps.Copy(out.Extra, over.Extra)
	}
	return out
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
