// Package models owns the model catalog (embedded, parsed on first use),
// models.json (custom providers, models and overrides), auth.json, the
// credential resolution order and model lookup by pattern.
package models

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// Registry is the merged view of the built-in catalog and models.json,
// plus the credential sources. It is safe for concurrent use.
type Registry struct {
	modelsPath string
	storePath  string
	auth       *AuthStore
	getenv     func(string) string
	oauth      func(provider string) OAuthProvider
	signIns    []string
	now        func() time.Time

	mu        sync.RWMutex
	models    []*llm.Model // base with the extensions' providers laid over
	base      []*llm.Model // the catalog and models.json
	custom    map[string]*customProvider
	ext       map[string]*extProvider // registerProvider, by name
	gen       atomic.Uint64
	extOrder  []string
	configErr error
	llama     *llamaState // nil while the llama.cpp provider is off
}

// Options configure NewRegistry. Zero values mean the defaults of Load.
type Options struct {
	// ModelsJSON is the models.json path ("" = no custom configuration).
	ModelsJSON string
	// AuthJSON is the auth.json path ("" = credentials from env only).
	AuthJSON string
	// Getenv replaces os.Getenv (tests, embedding).
	Getenv func(string) string
	// Store is models-store.json, the refreshed catalogs ("" = none).
	Store string
	// OAuth returns the subscription sign-in of a provider (nil when it
	// has none); stored OAuth tokens are renewed through it.
	OAuth func(provider string) OAuthProvider
	// Now replaces time.Now (tests).
	Now func() time.Time
}

// Load builds the registry for an agent dir: the catalog merged with
// <agentDir>/models.json, credentials from <agentDir>/auth.json. The
// registry is always usable; a models.json problem is returned as a
// *ConfigError and leaves only the built-in models.
func Load(agentDir string, getenv func(string) string) (*Registry, error) {
	return NewRegistry(Options{
		ModelsJSON: filepath.Join(agentDir, "models.json"),
		AuthJSON:   filepath.Join(agentDir, "auth.json"),
		Store:      filepath.Join(agentDir, "models-store.json"),
		Getenv:     getenv,
	})
}

// NewRegistry is Load with explicit paths.
func NewRegistry(o Options) (*Registry, error) {
	r := &Registry{modelsPath: o.ModelsJSON, storePath: o.Store, getenv: o.Getenv, oauth: o.OAuth, now: o.Now}
	if r.getenv == nil {
		r.getenv = osGetenv
	}
	if o.AuthJSON != "" {
		r.auth = NewAuthStore(o.AuthJSON)
	}
	err := r.Reload()
	return r, err
}

// SetOAuth installs the subscription sign-ins stored OAuth tokens are
// renewed through (Load's registries start without); ids are the
// providers that have one, for /login's list.
func (r *Registry) SetOAuth(fn func(provider string) OAuthProvider, ids ...string) {
	r.mu.Lock()
	r.oauth, r.signIns = fn, append([]string(nil), ids...)
	r.mu.Unlock()
}

// SignInProviders are the providers with a subscription sign-in.
func (r *Registry) SignInProviders() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]string(nil), r.signIns...)
}

func (r *Registry) oauthFor(provider string) OAuthProvider {
	r.mu.RLock()
	fn := r.oauth
	r.mu.RUnlock()
	if fn == nil {
		return nil
	}
	return fn(provider)
}

// Auth returns the auth.json store (nil when the registry has none).
func (r *Registry) Auth() *AuthStore { return r.auth }

// Reload re-reads models.json (the original reloads it when /model
// opens). On error the previous custom configuration is dropped and only
// the built-in models remain.
func (r *Registry) Reload() error {
	models := r.baseModels()
	var cfg *modelsConfig
	var cerr *ConfigError
	if r.modelsPath != "" {
		cfg, cerr = readModelsJSON(r.modelsPath)
	}
	custom := map[string]*customProvider{}
	if cerr == nil && cfg != nil {
		models, custom, cerr = applyConfig(r.modelsPath, models, cfg)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if cerr != nil {
		r.base, r.custom, r.configErr = r.baseModels(), map[string]*customProvider{}, cerr
		r.applyExtLocked()
		return cerr
	}
	r.base, r.custom, r.configErr = models, custom, nil
	r.applyExtLocked()
	return nil
}

// baseModels is the built-in catalog with the refreshed catalogs of
// models-store.json laid over it (an unreadable store is ignored: it is
// only a cache).
func (r *Registry) baseModels() []*llm.Model {
	models := builtinModels()
	if store, err := readStore(r.storePath); err == nil {
		models = overlayModels(models, storeOverlay(store))
	}
	return models
}

// ConfigError returns the last models.json error, nil when it applied.
func (r *Registry) ConfigError() error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.configErr
}

// applyConfig merges a validated models.json into models (§6.4): provider
// baseUrl/headers/compat apply to the provider's existing models,
// modelOverrides merge into them (unknown ids are ignored), then models[]
// replace same-id models or are added.
func applyConfig(file string, models []*llm.Model, cfg *modelsConfig) ([]*llm.Model, map[string]*customProvider, *ConfigError) {
	var problems []Problem
	custom := map[string]*customProvider{}
	for _, p := range cfg.providers {
		custom[p.id] = p
		def, _ := builtinProviderDefaults(p.id)
		for _, m := range models {
			if m.Provider != p.id {
				continue
			}
			if p.baseURL != "" {
				m.BaseURL = p.baseURL
			}
			if len(p.headers) > 0 {
				m.Headers = mergeHeaders(m.Headers, p.headers)
			}
			if len(p.compat) > 0 {
				merged, err := mergeCompatRaw(m.Compat, p.compat)
				if err != nil {
					problems = append(problems, Problem{Path: p.path + ".compat", Message: err.Error()})
					continue
				}
				m.Compat = merged
			}
		}
		// Overrides apply to the built-in models; custom models are merged
		// after them, so a custom model replaces an overridden entry.
		for _, ov := range p.overrides {
			for _, m := range models {
				if m.Provider == p.id && m.ID == ov.id {
					if err := applyOverride(m, ov); err != nil {
						problems = append(problems, Problem{Path: ov.fields.path, Message: err.Error()})
					}
				}
			}
		}
		for _, md := range p.models {
			m := md.model
			m.Provider = p.id
			m.API = firstNonEmpty(m.API, p.api, def.API)
			if m.API == "" {
				problems = append(problems, Problem{Path: md.path + ".api",
					Message: "required: set \"api\" on the model or on provider \"" + p.id + "\" (no built-in default for this provider)"})
			}
			m.BaseURL = firstNonEmpty(m.BaseURL, p.baseURL, def.BaseURL)
			if m.BaseURL == "" {
				problems = append(problems, Problem{Path: md.path + ".baseUrl",
					Message: "required: set \"baseUrl\" on the model or on provider \"" + p.id + "\" (no built-in default for this provider)"})
			}
			if m.Name == "" {
				m.Name = m.ID
			}
			if !md.set["input"] {
				m.Input = []string{"text"}
			}
			if m.ContextWindow == 0 {
				m.ContextWindow = 128000
			}
			if m.MaxTokens == 0 {
				m.MaxTokens = 16384
			}
			if len(p.headers) > 0 || len(m.Headers) > 0 {
				m.Headers = mergeHeaders(p.headers, m.Headers)
			}
			if len(p.compat) > 0 || len(md.compat) > 0 {
				base, err := mergeObjects(p.compat, md.compat)
				if err == nil {
					var c llm.Compat
					err = json.Unmarshal(base, &c)
					m.Compat = &c
				}
				if err != nil {
					problems = append(problems, Problem{Path: md.path + ".compat", Message: err.Error()})
				}
			}
			nm := cloneModel(&m)
			replaced := false
			for i, old := range models {
				if old.Provider == p.id && old.ID == nm.ID {
					models[i], replaced = nm, true
					break
				}
			}
			if !replaced {
				models = append(models, nm)
			}
		}
	}
	if len(problems) > 0 {
		return nil, nil, &ConfigError{File: file, Problems: problems}
	}
	return models, custom, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func mergeHeaders(base, over map[string]string) map[string]string {
	out := make(map[string]string, len(base)+len(over))
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}

// mergeCompatRaw lays the compat members in over on top of c.
func mergeCompatRaw(c *llm.Compat, over json.RawMessage) (*llm.Compat, error) {
	var base json.RawMessage
	if c != nil {
		b, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		base = b
	}
	merged, err := mergeObjects(base, over)
	if err != nil {
		return nil, err
	}
	var out llm.Compat
	if err := json.Unmarshal(merged, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// applyOverride merges a modelOverrides entry into m: scalars replace,
// maps merge per key, cost rates replace individually.
func applyOverride(m *llm.Model, ov modelOverride) error {
	f, set := ov.fields.model, ov.fields.set
	if set["name"] {
		m.Name = f.Name
	}
	if set["reasoning"] {
		m.Reasoning = f.Reasoning
	}
	if set["input"] {
		m.Input = f.Input
	}
	if set["inputLimits"] {
		m.InputLimits = f.InputLimits
	}
	if set["contextWindow"] {
		m.ContextWindow = f.ContextWindow
	}
	if set["maxTokens"] {
		m.MaxTokens = f.MaxTokens
	}
	if set["thinkingLevelMap"] {
		if m.ThinkingLevelMap == nil {
			m.ThinkingLevelMap = map[string]*string{}
		}
		maps.Copy(m.ThinkingLevelMap, f.ThinkingLevelMap)
	}
	if set["promptCache"] && f.PromptCache != nil {
		if m.PromptCache == nil {
			m.PromptCache = &llm.PromptCache{}
		}
		if f.PromptCache.Short > 0 {
			m.PromptCache.Short = f.PromptCache.Short
		}
		if f.PromptCache.Long > 0 {
			m.PromptCache.Long = f.PromptCache.Long
		}
	}
	if set["headers"] {
		m.Headers = mergeHeaders(m.Headers, f.Headers)
	}
	if set["samplingParams"] {
		if m.SamplingParams == nil {
			m.SamplingParams = map[string]any{}
		}
		maps.Copy(m.SamplingParams, f.SamplingParams)
	}
	if set["samplingParamsByThinkingLevel"] {
		if m.SamplingParamsByThinkingLevel == nil {
			m.SamplingParamsByThinkingLevel = map[string]map[string]any{}
		}
		for lvl, params := range f.SamplingParamsByThinkingLevel {
			cur := m.SamplingParamsByThinkingLevel[lvl]
			if cur == nil {
				cur = map[string]any{}
			}
			maps.Copy(cur, params)
			m.SamplingParamsByThinkingLevel[lvl] = cur
		}
	}
	if set["compat"] {
		c, err := mergeCompatRaw(m.Compat, ov.fields.compat)
		if err != nil {
			return err
		}
		m.Compat = c
	}
	for k, v := range ov.cost {
		switch k {
		case "input":
			m.Cost.Input = v
		case "output":
			m.Cost.Output = v
		case "cacheRead":
			m.Cost.CacheRead = v
		case "cacheWrite":
			m.Cost.CacheWrite = v
		}
	}
	if set["cost.tiers"] {
		m.Cost.Tiers = f.Cost.Tiers
	}
	return nil
}

// All returns every model (catalog + models.json), catalog order first.
// The models are shared: callers must not modify them.
func (r *Registry) All() []*llm.Model {
	discovered := r.llamaModels()
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := append([]*llm.Model(nil), r.models...)
	for _, m := range discovered {
		// A models.json entry for the same id wins over discovery.
		if !hasModel(r.models, m.Provider, m.ID) {
			out = append(out, m)
		}
	}
	return out
}

func hasModel(models []*llm.Model, provider, id string) bool {
	for _, m := range models {
		if m.Provider == provider && m.ID == id {
			return true
		}
	}
	return false
}

// Find returns the model with this provider and id, or nil.
// Asking for a llama.cpp model waits for discovery (bounded).
func (r *Registry) Find(provider, id string) *llm.Model {
	if provider == LlamaProvider {
		_ = r.WaitLlama(context.Background())
	}
	for _, m := range r.All() {
		if m.Provider == provider && m.ID == id {
			return m
		}
	}
	return nil
}

// Available returns the models whose provider has configured credentials
// (what /model and cycling offer). Nothing is executed to decide this.
func (r *Registry) Available(ctx context.Context) []*llm.Model {
	all := r.All()
	ok := map[string]bool{}
	enabled := map[string]map[string]bool{}
	var out []*llm.Model
	for _, m := range all {
		has, seen := ok[m.Provider]
		if !seen {
			has = r.HasAuth(m.Provider)
			ok[m.Provider] = has
			enabled[m.Provider] = r.signedInModels(m.Provider)
		}
		if ids := enabled[m.Provider]; has && (ids == nil || ids[m.ID]) {
			out = append(out, m)
		}
	}
	return out
}

// signedInModels is the model list a subscription sign-in stored
// (availableModelIds: GitHub Copilot lists the models the account may
// use), nil when there is none.
func (r *Registry) signedInModels(provider string) map[string]bool {
	if r.auth == nil {
		return nil
	}
	c, err := r.auth.Get(provider)
	if err != nil || c == nil || c.Type != "oauth" {
		return nil
	}
	raw, ok := c.Extra["availableModelIds"]
	if !ok {
		return nil
	}
	var ids []string
	if json.Unmarshal(raw, &ids) != nil || len(ids) == 0 {
		return nil
	}
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return set
}

// DefaultModel picks a model when nothing is configured: the preferred
// model of the first provider (in the original's order) that has
// credentials, else the first available model, else nil.
func (r *Registry) DefaultModel(ctx context.Context) *llm.Model {
	avail := r.Available(ctx)
	if len(avail) == 0 && r.llamaStarted() {
		// Nothing else has a key: a llama.cpp server may be the only
		// model source, so its answer (bounded) decides.
		_ = r.WaitLlama(ctx)
		avail = r.Available(ctx)
	}
	for _, d := range defaultModels {
		for _, m := range avail {
			if m.Provider == d.provider && m.ID == d.id {
				return m
			}
		}
	}
	if len(avail) > 0 {
		return avail[0]
	}
	return nil
}

func (r *Registry) customProvider(id string) *customProvider {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if p := r.extCustom(id); p != nil {
		return p
	}
	return r.custom[id]
}
