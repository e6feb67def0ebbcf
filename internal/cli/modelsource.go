package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/anthropic"
	"github.com/relay-agent/relay/internal/llm/bedrock"
	"github.com/relay-agent/relay/internal/llm/cloudcode"
	"github.com/relay-agent/relay/internal/llm/gemini"
	"github.com/relay-agent/relay/internal/llm/mistral"
	"github.com/relay-agent/relay/internal/llm/openai"
	"github.com/relay-agent/relay/internal/llm/responses"
	"github.com/relay-agent/relay/internal/llm/vertex"
	"github.com/relay-agent/relay/internal/models"
)

// modelSource adapts the registry and the wire clients to app.Models.
type modelSource struct {
	reg    *models.Registry
	cliKey string // --api-key, for the chosen model's provider only
	keyFor string
	// attribution adds provider attribution headers (enableInstallTelemetry,
	// RELAY_TELEMETRY).
	attribution bool
	// cloud holds the clients that keep state per provider (a loaded AWS
	// configuration and its credential cache), keyed by API and provider.
	cloud sync.Map
}

// cloudClient returns the cached client of key, making it with mk once.
func (s *modelSource) cloudClient(key string, mk func() llm.Client) llm.Client {
	if c, ok := s.cloud.Load(key); ok {
		return c.(llm.Client)
	}
	c, _ := s.cloud.LoadOrStore(key, mk())
	return c.(llm.Client)
}

func (s *modelSource) Client(m *llm.Model) (llm.Client, error) {
	c, err := s.apiClient(m)
	if err == nil && llm.IsCloudflareProvider(m.Provider) {
		c = cloudflareClient{c, s.reg.ProviderEnv(m.Provider)}
	}
	return c, err
}

func (s *modelSource) apiClient(m *llm.Model) (llm.Client, error) {
	if cloudcode.Handles(m) {
		// The Gemini CLI and Antigravity subscriptions: Cloud Code Assist
		// at the origin the sign-in found.
		return s.signedIn(m, cloudcode.New(cloudcode.Config{Getenv: s.reg.ProviderEnv(m.Provider)})), nil
	}
	switch m.API {
	case llm.APIAnthropicMessages:
		if env := s.reg.ProviderEnv(m.Provider); m.Provider == "anthropic" && anthropic.FederationConfigured(env) {
			return s.cloudClient(llm.APIAnthropicMessages+"\x00"+m.Provider, func() llm.Client {
				return &anthropic.Client{Federation: anthropic.NewFederation(env)}
			}), nil
		}
		return s.signedIn(m, anthropic.New()), nil
	case llm.APIOpenAICompletions:
		return s.signedIn(m, openai.New()), nil
	case "openai-codex-responses":
		return responses.NewCodex(), nil
	case llm.APIOpenAIResponses:
		return s.signedIn(m, responses.New()), nil
	case mistral.API:
		return mistral.New(), nil
	case vertex.API:
		return s.cloudClient(vertex.API+"\x00"+m.Provider, func() llm.Client {
			return vertex.New(vertex.Config{Getenv: s.reg.ProviderEnv(m.Provider)})
		}), nil
	case responses.AzureAPI:
		return responses.NewAzure(s.reg.ProviderEnv(m.Provider)), nil
	case llm.APIGoogleGenerativeAI:
		return gemini.New(), nil
	case bedrock.API:
		return s.cloudClient(bedrock.API+"\x00"+m.Provider, func() llm.Client {
			return bedrock.New(bedrock.Config{Getenv: s.reg.ProviderEnv(m.Provider)})
		}), nil
	}
	return nil, fmt.Errorf("model %s/%s uses API %q, which relay does not speak (supported: anthropic-messages, openai-completions, openai-responses, openai-codex-responses, google-generative-ai, google-gemini-cli, bedrock-converse-stream, azure-openai-responses, google-vertex, mistral-conversations)", m.Provider, m.ID, m.API)
}

// signedIn sends a provider's requests to the endpoint its subscription
// sign-in names (GitHub Copilot's comes with the token), read from the
// stored credential at request time; other providers' clients are
// returned as they are.
func (s *modelSource) signedIn(m *llm.Model, c llm.Client) llm.Client {
	if !endpointFromSignIn[m.Provider] {
		return c
	}
	return accountClient{c, s.reg}
}

// endpointFromSignIn are the providers whose endpoint depends on the
// account (GitHub Copilot: the token's proxy-ep, or the Enterprise host;
// the Google subscriptions: the Cloud Code Assist origin that answered
// the sign-in's project discovery).
var endpointFromSignIn = map[string]bool{"github-copilot": true, cloudcode.GeminiCLI: true, cloudcode.Antigravity: true}

type accountClient struct {
	llm.Client
	reg *models.Registry
}

// renewAll is the validity asked of a token to renew it whatever its
// stored expiry says.
const renewAll = 100 * 365 * 24 * time.Hour

// Stream sends req to the account's endpoint. A 401 to the stored
// sign-in's token before anything streamed (revoked early, a clock off by
// more than the renewal margin) renews the token once and sends again,
// invisibly; a renewal that fails says to sign in again.
func (a accountClient) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	if req.Model == nil {
		return a.Client.Stream(ctx, req, emit)
	}
	provider := req.Model.Provider
	signedIn := false
	if st := a.reg.Auth(); st != nil && req.APIKey != "" {
		c, err := st.Get(provider)
		signedIn = err == nil && c != nil && c.Type == "oauth" && c.Access == req.APIKey
	}
	if !signedIn {
		return a.Client.Stream(ctx, a.atAccount(req), emit)
	}
	// The start event of the first attempt waits until it is known that
	// the attempt is not refused.
	var held []llm.AssistantEvent
	passing, refused := false, false
	first := func(e llm.AssistantEvent) {
		switch {
		case passing:
			emit(e)
		case e.Type == llm.EventStart:
			held = append(held, e)
		case e.Type == llm.EventError && e.Message != nil && e.Message.Err != nil && e.Message.Err.Status == http.StatusUnauthorized:
			refused = true
		default:
			passing = true
			for _, h := range held {
				emit(h)
			}
			emit(e)
		}
	}
	msg := a.Client.Stream(ctx, a.atAccount(req), first)
	if !refused {
		return msg
	}
	use, err := a.reg.OAuthUse(ctx, provider, renewAll)
	if err == nil && use.APIKey == req.APIKey {
		err = &models.SignInError{Provider: provider, Err: errors.New("the server refused the token and it could not be renewed")}
	}
	if err != nil {
		return llm.NewMessageBuilder(req.Model, emit).Fail(&llm.ProviderError{Kind: llm.ErrAuth, Status: http.StatusUnauthorized,
			Message: fmt.Sprintf("%s (after %s)", err.Error(), msg.ErrorMessage)})
	}
	r := *req
	r.APIKey = use.APIKey
	r.Headers = make(map[string]string, len(req.Headers)+len(use.Headers))
	for k, v := range req.Headers {
		r.Headers[k] = v
	}
	for k, v := range use.Headers {
		r.Headers[k] = v
	}
	return a.Client.Stream(ctx, a.atAccount(&r), emit)
}

// atAccount points req at the endpoint the stored sign-in names.
func (a accountClient) atAccount(req *llm.Request) *llm.Request {
	if base := a.reg.OAuthBaseURL(req.Model.Provider); base != "" && base != req.Model.BaseURL {
		m := *req.Model
		m.BaseURL = base
		r := *req
		r.Model = &m
		return &r
	}
	return req
}

// cloudflareClient fills a Cloudflare model's account and gateway ids into
// its base URL from the provider's environment at request time, and sends
// the gateway's key as cf-aig-authorization (llm.CloudflareRequest).
type cloudflareClient struct {
	llm.Client
	getenv func(string) string
}

func (c cloudflareClient) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	r, perr := llm.CloudflareRequest(req, c.getenv)
	if perr != nil {
		return llm.NewMessageBuilder(req.Model, emit).Fail(perr)
	}
	return c.Client.Stream(ctx, r, emit)
}

func (s *modelSource) Auth(ctx context.Context, m *llm.Model) (string, map[string]string, error) {
	key := ""
	if m.Provider == s.keyFor {
		key = s.cliKey
	}
	apiKey, headers, err := s.reg.ResolveAuth(ctx, m, key)
	if err == nil && s.attribution {
		headers = models.WithAttribution(m, headers)
	}
	return apiKey, headers, err
}

func (s *modelSource) Find(provider, id string) *llm.Model { return s.reg.Find(provider, id) }

func (s *modelSource) Available() []*llm.Model { return s.reg.Available(context.Background()) }

// Login, Logout and AuthSource let /login and /logout go through the
// registry, so a new key works without a restart.
func (s *modelSource) Login(provider, key string) error { return s.reg.Login(provider, key) }

// LoginLlama is /login llama.cpp <url> [key].
func (s *modelSource) LoginLlama(ctx context.Context, url, key string) (string, error) {
	return s.reg.LoginLlama(ctx, url, key)
}

// SaveCredential stores a raw auth.json entry (a subscription sign-in).
func (s *modelSource) SaveCredential(provider string, entry json.RawMessage) error {
	if s.reg.Auth() == nil {
		return fmt.Errorf("login %s: no auth.json configured", provider)
	}
	return s.reg.Auth().Set(provider, entry)
}

// Logout removes a stored credential.
func (s *modelSource) Logout(provider string) error { return s.reg.Logout(provider) }

// AuthSource names where a provider's credential comes from.
func (s *modelSource) AuthSource(provider string) string { return s.reg.AuthSource(provider) }
