// Package auth signs in to the subscriptions the original supports (Claude
// Pro/Max, ChatGPT Plus/Pro through Codex, GitHub Copilot, Google
// Antigravity, Google Gemini CLI) and renews their tokens. The credentials it produces are
// auth.json OAuth entries ({"type":"oauth","access","refresh","expires",
// ...provider extras}) in the original's shape; internal/models stores them
// and calls back here (models.OAuthProvider) to renew them.
package auth

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"time"

	"github.com/relay-agent/relay/internal/models"
)

// Provider is one subscription sign-in.
type Provider struct {
	ID   string
	Name string
	// Methods are the ways to sign in, the first the default (Start's
	// LoginOptions.Method).
	Methods []string

	start   func(ctx context.Context, o LoginOptions) (*Flow, error)
	refresh func(ctx context.Context, c *models.Credential) (*models.Credential, error)
	use     func(c *models.Credential) (models.OAuthUse, error)
}

// Refresh renews c (models.OAuthProvider).
func (p *Provider) Refresh(ctx context.Context, c *models.Credential) (*models.Credential, error) {
	return p.refresh(ctx, c)
}

// Use says how requests authenticate with c (models.OAuthProvider).
func (p *Provider) Use(c *models.Credential) (models.OAuthUse, error) {
	if p.use == nil {
		return models.OAuthUse{APIKey: c.Access}, nil
	}
	return p.use(c)
}

// LoginOptions tune a sign-in.
type LoginOptions struct {
	// Method picks one of Provider.Methods ("" = the default).
	Method string
	// NoBrowser asks for the flow that works when the browser is on
	// another machine (paste the code, or a device code).
	NoBrowser bool
	// Domain is a GitHub Enterprise host for Copilot ("" = github.com).
	Domain string
}

// Start begins an interactive sign-in; the returned flow says what to show
// and finishes in the background.
func (p *Provider) Start(ctx context.Context, o LoginOptions) (*Flow, error) {
	if o.Method != "" {
		ok := false
		for _, m := range p.Methods {
			ok = ok || m == o.Method
		}
		if !ok {
			return nil, errors.New(p.ID + ": unknown sign-in method " + o.Method + " (have " + joinComma(p.Methods) + ")")
		}
	}
	return p.start(ctx, o)
}

// Config is what the sign-ins share. Zero values are the real endpoints
// and defaults; tests point the endpoints at fakes.
type Config struct {
	// HTTP carries every request (nil = a client with a 30 s timeout).
	HTTP *http.Client
	// Now replaces time.Now.
	Now func() time.Time
	// Getenv reads the variables the sign-ins honour
	// (RELAY_OAUTH_CALLBACK_HOST, RELAY_AI_ANTIGRAVITY_CLIENT_ID/SECRET,
	// GOOGLE_CLOUD_PROJECT for Gemini CLI).
	Getenv func(string) string

	Anthropic   AnthropicEndpoints
	Codex       CodexEndpoints
	Copilot     CopilotEndpoints
	Antigravity AntigravityEndpoints
	GeminiCLI   GeminiCLIEndpoints
}

func (c *Config) defaults() {
	if c.HTTP == nil {
		c.HTTP = &http.Client{Timeout: 30 * time.Second}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Getenv == nil {
		c.Getenv = func(string) string { return "" }
	}
}

// Set is the sign-ins by provider id.
type Set struct {
	byID map[string]*Provider
}

// New builds the sign-ins.
func New(c Config) *Set {
	c.defaults()
	s := &Set{byID: map[string]*Provider{}}
	for _, p := range []*Provider{anthropicProvider(&c), codexProvider(&c), copilotProvider(&c), antigravityProvider(&c), geminiCLIProvider(&c)} {
		s.byID[p.ID] = p
	}
	return s
}

// Get returns the sign-in of provider, nil when it has none.
func (s *Set) Get(provider string) *Provider {
	if s == nil {
		return nil
	}
	return s.byID[provider]
}

// OAuth is Get as models.Registry wants it (a nil interface, not a nil
// pointer, for providers without a sign-in).
func (s *Set) OAuth(provider string) models.OAuthProvider {
	if p := s.Get(provider); p != nil {
		return p
	}
	return nil
}

// IDs lists the providers with a sign-in, sorted.
func (s *Set) IDs() []string {
	var ids []string
	for _, p := range s.Providers() {
		ids = append(ids, p.ID)
	}
	return ids
}

// Providers lists the sign-ins sorted by id.
func (s *Set) Providers() []*Provider {
	out := make([]*Provider, 0, len(s.byID))
	for _, p := range s.byID {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func joinComma(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}
