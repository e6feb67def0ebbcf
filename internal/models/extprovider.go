package models

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// extProvider is a provider an extension registered at run time
// (registerProvider). Its configuration has the shape of a models.json
// provider entry and is validated by the same rules.
type extProvider struct {
	config map[string]json.RawMessage // the merged registrations, as sent
	p      *customProvider
	oauth  bool // the extension supplies a sign-in (apiKey is optional)
	source string
}

// ExtProviderError is a refused registerProvider: which provider, and each
// offending key as a path into the configuration (models[1].api).
type ExtProviderError struct {
	Provider string
	Problems []Problem
}

func (e *ExtProviderError) Error() string {
	parts := make([]string, 0, len(e.Problems))
	for _, p := range e.Problems {
		if p.Path == "" {
			parts = append(parts, p.Message)
			continue
		}
		parts = append(parts, p.Path+": "+p.Message)
	}
	return fmt.Sprintf("registerProvider %q: %s", e.Provider, strings.Join(parts, "; "))
}

// ProviderConfig is what an extension passed to registerProvider, without
// its functions: Config is the JSON object (baseUrl, apiKey, api, headers,
// authHeader, compat, models, modelOverrides, name), OAuth says whether it
// brought a sign-in, Source names the extension.
type ProviderConfig struct {
	Name   string
	Config json.RawMessage
	OAuth  bool
	Source string
}

// RegisterProvider adds or updates a provider an extension registered,
// with the semantics the original documents: models replace every model
// the provider had (built-in or models.json); without models, baseUrl and
// headers apply to the provider's existing models. A second registration
// of the same name updates the keys it sets and keeps the others. It takes
// effect at once for Find, All, Available and the credentials.
func (r *Registry) RegisterProvider(pc ProviderConfig) error {
	name := strings.TrimSpace(pc.Name)
	if name == "" || strings.ContainsAny(name, "/ \t\n") {
		return &ExtProviderError{Provider: pc.Name, Problems: []Problem{{Message: "the provider name must be non-empty without spaces or \"/\""}}}
	}
	var fresh map[string]json.RawMessage
	if len(pc.Config) > 0 && string(pc.Config) != "null" {
		if err := json.Unmarshal(pc.Config, &fresh); err != nil {
			return &ExtProviderError{Provider: name, Problems: []Problem{{Message: "the configuration must be an object"}}}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	merged := map[string]json.RawMessage{}
	oauth := pc.OAuth
	if old := r.ext[name]; old != nil {
		for k, v := range old.config {
			merged[k] = v
		}
		oauth = oauth || old.oauth
	}
	for k, v := range fresh {
		merged[k] = v
	}
	p, err := parseExtProvider(name, merged, oauth)
	if err != nil {
		return err
	}
	// The models it would produce are checked now, so the extension hears
	// about a model without api or baseUrl instead of a later request.
	if _, cerr := applyExt(slices.Clone(r.base), p); cerr != nil {
		return &ExtProviderError{Provider: name, Problems: cerr.Problems}
	}
	if r.ext == nil {
		r.ext = map[string]*extProvider{}
	}
	if r.ext[name] == nil {
		r.extOrder = append(r.extOrder, name)
	}
	r.ext[name] = &extProvider{config: merged, p: p, oauth: oauth, source: pc.Source}
	r.applyExtLocked()
	return nil
}

// UnregisterProvider removes a provider an extension registered and
// restores what it replaced or overrode. It reports whether there was one.
func (r *Registry) UnregisterProvider(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ext[name] == nil {
		return false
	}
	delete(r.ext, name)
	r.extOrder = slices.DeleteFunc(r.extOrder, func(n string) bool { return n == name })
	r.applyExtLocked()
	return true
}

// parseExtProvider validates a registration with the models.json rules,
// plus the original's: models need an apiKey or a sign-in.
func parseExtProvider(name string, config map[string]json.RawMessage, oauth bool) (*customProvider, error) {
	raw, err := json.Marshal(config)
	if err != nil {
		return nil, &ExtProviderError{Provider: name, Problems: []Problem{{Message: err.Error()}}}
	}
	root, err := decodeOrdered(raw)
	if err != nil {
		return nil, &ExtProviderError{Provider: name, Problems: []Problem{{Message: "the configuration is not JSON"}}}
	}
	v := &validator{ext: true}
	p := v.provider("", name, root)
	if p != nil && len(p.models) > 0 && p.apiKey == "" && !oauth {
		v.fail("apiKey", "required when defining models (an environment variable name, $NAME, !command or the key), unless the provider has oauth")
	}
	if len(v.problems) > 0 {
		return nil, &ExtProviderError{Provider: name, Problems: v.problems}
	}
	return p, nil
}

// applyExt lays one registration over models: its models replace the
// provider's; without models its baseUrl, headers and compat apply to the
// provider's models (copies: models may be shared).
func applyExt(models []*llm.Model, p *customProvider) ([]*llm.Model, *ConfigError) {
	out := make([]*llm.Model, 0, len(models)+len(p.models))
	for _, m := range models {
		if m.Provider == p.id {
			if len(p.models) > 0 {
				continue
			}
			m = cloneModel(m)
		}
		out = append(out, m)
	}
	res, _, cerr := applyConfig("registerProvider", out, &modelsConfig{providers: []*customProvider{p}})
	return res, cerr
}

// applyExtLocked recomputes the model list: the catalog and models.json
// (r.base), then each registration in order (under r.mu).
func (r *Registry) applyExtLocked() {
	models := slices.Clone(r.base)
	for _, name := range r.extOrder {
		e := r.ext[name]
		next, cerr := applyExt(models, e.p)
		if cerr != nil {
			// Checked when registered; a models.json reload cannot make
			// a registration invalid, but never lose the list over it.
			continue
		}
		models = next
	}
	r.models = models
	r.gen.Add(1)
}

// Generation changes whenever the model list may have: a models.json
// reload, a provider registered or removed.
func (r *Registry) Generation() uint64 { return r.gen.Load() }

// extCustom is the request configuration (apiKey, authHeader) of an
// extension's provider, when it set one: it replaces models.json's, as
// the original's registry does.
func (r *Registry) extCustom(id string) *customProvider {
	e := r.ext[id]
	if e == nil {
		return nil
	}
	if e.p.apiKey == "" && !e.p.authHeader && len(e.p.headers) == 0 {
		return nil
	}
	return e.p
}
