package llm

import (
	"maps"
	"regexp"
)

// Cloudflare's providers: Workers AI (an OpenAI-compatible endpoint under
// the account) and AI Gateway (Anthropic, OpenAI and Workers AI behind one
// gateway of the account).
const (
	ProviderCloudflareWorkersAI = "cloudflare-workers-ai"
	ProviderCloudflareAIGateway = "cloudflare-ai-gateway"
)

// IsCloudflareProvider reports whether provider is one of Cloudflare's.
func IsCloudflareProvider(provider string) bool {
	return provider == ProviderCloudflareWorkersAI || provider == ProviderCloudflareAIGateway
}

var baseURLVar = regexp.MustCompile(`\{([A-Z_][A-Z0-9_]*)\}`)

// CloudflareRequest prepares a request to a Cloudflare provider, as the
// original does: the {NAME} placeholders of the model's base URL (the
// catalog's {CLOUDFLARE_ACCOUNT_ID}, {CLOUDFLARE_GATEWAY_ID}) are filled
// from getenv (the provider's environment: auth.json's env over the
// process's), and an unset one is an error naming it. Through the gateway
// the key authenticates relay to the gateway (cf-aig-authorization) and is
// sent neither as Authorization nor as x-api-key, which belong to the
// upstream provider (set them in models.json headers to pass one through).
// req is not modified; other providers' requests are returned as they are.
func CloudflareRequest(req *Request, getenv func(string) string) (*Request, *ProviderError) {
	if req.Model == nil || !IsCloudflareProvider(req.Model.Provider) {
		return req, nil
	}
	var missing string
	base := baseURLVar.ReplaceAllStringFunc(req.Model.BaseURL, func(m string) string {
		name := m[1 : len(m)-1]
		v := getenv(name)
		if v == "" && missing == "" {
			missing = name
		}
		return v
	})
	if missing != "" {
		return nil, &ProviderError{Kind: ErrInvalidRequest,
			Message: missing + " is required for provider " + req.Model.Provider + " but is not set."}
	}
	r := *req
	if base != req.Model.BaseURL {
		m := *req.Model
		m.BaseURL = base
		r.Model = &m
	}
	if req.Model.Provider == ProviderCloudflareAIGateway && req.APIKey != "" {
		h := maps.Clone(req.Headers)
		if h == nil {
			h = map[string]string{}
		}
		h["cf-aig-authorization"] = "Bearer " + req.APIKey
		r.Headers = h
		r.APIKey = ""
	}
	return &r, nil
}
