package models

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// Sources of a resolved credential, as shown by /session and `auth check`.
const (
	SourceRuntime    = "--api-key"
	SourceAuthFile   = "auth.json"
	SourceAuthOAuth  = "auth.json (oauth)"
	SourceModelsJSON = "models.json"
	SourceAmbient    = "ambient credentials"
	// Environment sources are "env:<VARIABLE>".
)

// ambientKey is what the original reports as the key of providers that
// authenticate through cloud SDK credentials; their clients ignore it.
const ambientKey = llm.AmbientKey

// Auth is a resolved credential for one request.
type Auth struct {
	APIKey  string
	Headers map[string]string // resolved model/provider headers (may be nil)
	Source  string
}

// MissingKeyError is returned when no source yields a key. Its first line
// is exactly "No API key for provider: <p>"; the second says how to set one.
type MissingKeyError struct {
	Provider string
	EnvVars  []string
}

func (e *MissingKeyError) Error() string {
	return "No API key for provider: " + e.Provider + "\n" + e.Hint()
}

// Hint says how to configure a key for the provider.
func (e *MissingKeyError) Hint() string {
	switch len(e.EnvVars) {
	case 0:
		return "Run /login, or set \"apiKey\" for provider \"" + e.Provider + "\" in models.json."
	case 1:
		return "Set " + e.EnvVars[0] + " or run /login."
	default:
		return "Set " + strings.Join(e.EnvVars[:len(e.EnvVars)-1], ", ") + " or " + e.EnvVars[len(e.EnvVars)-1] + ", or run /login."
	}
}

// ResolveAuth returns the API key and request headers for a model, trying
// in order (§6.1): the runtime --api-key (cliKey; pass it only for the
// provider it was given for), auth.json, models.json apiKey, then the
// provider's environment variables. Header values and models.json keys
// are resolved now ($NAME, ${NAME}, !command run every time);
// auth.json commands run once per process. A configured command that
// fails (exit status, timeout after CommandTimeout, no output) is a
// *CommandError naming the provider and the value, never a silent
// fallback to another credential.
func (r *Registry) ResolveAuth(ctx context.Context, m *llm.Model, cliKey string) (string, map[string]string, error) {
	a, err := r.ResolveAuthSource(ctx, m, cliKey)
	return a.APIKey, a.Headers, err
}

// ResolveAuthSource is ResolveAuth that also reports which source won.
func (r *Registry) ResolveAuthSource(ctx context.Context, m *llm.Model, cliKey string) (Auth, error) {
	provider := m.Provider
	getenv := r.getenv
	var a Auth
	var stored *Credential
	if r.auth != nil {
		var err error
		stored, err = r.auth.Get(provider)
		if err != nil && cliKey == "" {
			return a, err
		}
		if stored != nil && stored.Type == "api_key" {
			getenv = envWith(stored.Env, r.getenv)
		}
	}
	custom := r.customProvider(provider)

	switch {
	case cliKey != "":
		a.APIKey, a.Source = cliKey, SourceRuntime
	case stored != nil && stored.Type == "oauth":
		use, err := r.OAuthUse(ctx, provider, RefreshMargin)
		if err != nil {
			return a, err
		}
		a.APIKey, a.Source = use.APIKey, SourceAuthOAuth
		for k, v := range use.Headers {
			a.Headers = withHeader(a.Headers, k, v)
		}
	case stored != nil:
		key, _, err := r.auth.APIKey(ctx, provider, r.getenv)
		if err != nil {
			return a, err
		}
		if key != "" {
			a.APIKey, a.Source = key, SourceAuthFile
		}
	}
	if a.Source == "" && custom != nil && custom.apiKey != "" {
		key, err := resolveValue(ctx, custom.apiKey, getenv, nil)
		if err != nil {
			return a, &CommandError{Provider: provider, Source: "models.json apiKey", Err: err}
		}
		if key != "" {
			a.APIKey, a.Source = key, SourceModelsJSON
		}
	}
	var bearer string
	if a.Source == "" {
		a.APIKey, bearer, a.Source = envKey(provider, getenv)
	}

	if len(m.Headers) > 0 {
		// Added to the sign-in's headers (a Google subscription's project),
		// not put in their place.
		if a.Headers == nil {
			a.Headers = make(map[string]string, len(m.Headers))
		}
		for k, v := range m.Headers {
			val, err := resolveValue(ctx, v, getenv, nil)
			if err != nil {
				return a, &CommandError{Provider: provider, Source: fmt.Sprintf("models.json header %q", k), Err: err}
			}
			a.Headers[k] = val
		}
	}
	if bearer != "" {
		a.Headers = withHeader(a.Headers, "Authorization", "Bearer "+bearer)
	}
	if a.Source == "" && provider == LlamaProvider && r.LlamaEnabled() {
		// llama-server without --api-key ignores Authorization; the wire
		// clients refuse to send without a key, so a placeholder goes.
		a.APIKey, a.Source = LlamaNoKey, SourceLocal
	}
	if a.Source == "" {
		return a, &MissingKeyError{Provider: provider, EnvVars: EnvVars(provider)}
	}
	if custom != nil && custom.authHeader {
		if a.APIKey == "" {
			return a, &MissingKeyError{Provider: provider, EnvVars: EnvVars(provider)}
		}
		a.Headers = withHeader(a.Headers, "Authorization", "Bearer "+a.APIKey)
	}
	return a, nil
}

func withHeader(h map[string]string, k, v string) map[string]string {
	if h == nil {
		h = map[string]string{}
	}
	h[k] = v
	return h
}

// envKey looks the provider's variables up. It returns the key, a bearer
// token (Anthropic's ANTHROPIC_AUTH_TOKEN, sent as Authorization instead
// of as the key) and the source, or three empty strings.
func envKey(provider string, getenv func(string) string) (key, bearer, source string) {
	info, ok := Provider(provider)
	if !ok {
		return "", "", ""
	}
	for _, name := range info.EnvVars {
		if v := getenv(name); v != "" {
			return v, "", "env:" + name
		}
	}
	for _, name := range info.BearerEnvVars {
		if v := getenv(name); v != "" {
			return "", v, "env:" + name
		}
	}
	if hasAmbient(provider, getenv) {
		return ambientKey, "", SourceAmbient
	}
	return "", "", ""
}

// hasAmbient reports cloud-SDK credentials the original accepts in place
// of a key (§6.2).
func hasAmbient(provider string, getenv func(string) string) bool {
	set := func(names ...string) bool {
		for _, n := range names {
			if getenv(n) == "" {
				return false
			}
		}
		return true
	}
	switch provider {
	case "anthropic":
		// Workload identity federation; the anthropic client exchanges the
		// identity token for an access token.
		return set("ANTHROPIC_FEDERATION_RULE_ID", "ANTHROPIC_ORGANIZATION_ID") &&
			(set("ANTHROPIC_IDENTITY_TOKEN_FILE") || set("ANTHROPIC_IDENTITY_TOKEN"))
	case "amazon-bedrock":
		return set("AWS_PROFILE") || set("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY") ||
			set("AWS_BEARER_TOKEN_BEDROCK") || set("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") ||
			set("AWS_CONTAINER_CREDENTIALS_FULL_URI") || set("AWS_WEB_IDENTITY_TOKEN_FILE")
	case "google-vertex":
		if !(set("GOOGLE_CLOUD_PROJECT") || set("GCLOUD_PROJECT")) || !set("GOOGLE_CLOUD_LOCATION") {
			return false
		}
		if p := getenv("GOOGLE_APPLICATION_CREDENTIALS"); p != "" {
			_, err := os.Stat(p)
			return err == nil
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return false
		}
		_, err = os.Stat(filepath.Join(home, ".config", "gcloud", "application_default_credentials.json"))
		return err == nil
	}
	return false
}

// HasAuth reports whether a credential is configured for provider, without
// running any command: an auth.json entry, a models.json apiKey, or one
// of the provider's environment variables (or ambient credentials).
func (r *Registry) HasAuth(provider string) bool {
	return r.AuthSource(provider) != ""
}

// AuthSource names the source ResolveAuth would try first for provider
// (ignoring --api-key), or "" when none is configured. Commands are not
// run, so a configured `!command` that fails later still counts.
func (r *Registry) AuthSource(provider string) string {
	getenv := r.getenv
	if r.auth != nil {
		if c, err := r.auth.Get(provider); err == nil && c != nil {
			switch {
			case c.Type == "oauth":
				return SourceAuthOAuth
			case c.Key != "" && valueConfigured(c.Key, envWith(c.Env, r.getenv)):
				return SourceAuthFile
			}
			getenv = envWith(c.Env, r.getenv)
		}
	}
	if p := r.customProvider(provider); p != nil && p.apiKey != "" && valueConfigured(p.apiKey, getenv) {
		return SourceModelsJSON
	}
	_, _, src := envKey(provider, getenv)
	if src == "" && provider == LlamaProvider && r.LlamaEnabled() {
		src = SourceLocal
	}
	return src
}

// OAuthUse returns how requests authenticate with provider's stored OAuth
// credential, renewed first when it expires within minValid (under the
// cross-process lock; see AuthStore.FreshOAuth). A token with time left
// costs nothing: no file read, no request.
func (r *Registry) OAuthUse(ctx context.Context, provider string, minValid time.Duration) (OAuthUse, error) {
	if r.auth == nil {
		return OAuthUse{}, &MissingKeyError{Provider: provider, EnvVars: EnvVars(provider)}
	}
	p := r.oauthFor(provider)
	c, err := r.auth.FreshOAuth(ctx, provider, p, minValid, r.now)
	if err != nil {
		return OAuthUse{}, err
	}
	if c == nil || c.Type != "oauth" {
		return OAuthUse{}, fmt.Errorf("%s: no OAuth sign-in stored in %s", provider, r.auth.Path())
	}
	if p == nil {
		return OAuthUse{APIKey: c.Access}, nil
	}
	use, err := p.Use(c)
	if err != nil {
		return OAuthUse{}, &SignInError{Provider: provider, Err: err}
	}
	return use, nil
}

// OAuthBaseURL is the endpoint provider's stored sign-in names (GitHub
// Copilot's proxy, Antigravity's Cloud Code origin), "" when there is none.
// It reads the cached credential: no file read, no request.
func (r *Registry) OAuthBaseURL(provider string) string {
	if r.auth == nil {
		return ""
	}
	p := r.oauthFor(provider)
	if p == nil {
		return ""
	}
	c, err := r.auth.Get(provider)
	if err != nil || c == nil || c.Type != "oauth" {
		return ""
	}
	use, err := p.Use(c)
	if err != nil {
		return ""
	}
	return use.BaseURL
}

// Login stores an API key for provider in auth.json (/login).
func (r *Registry) Login(provider, key string) error {
	if r.auth == nil {
		return fmt.Errorf("login %s: no auth.json configured", provider)
	}
	return r.auth.Login(provider, key)
}

// Logout removes provider's auth.json credential (/logout).
func (r *Registry) Logout(provider string) error {
	if r.auth == nil {
		return nil
	}
	return r.auth.Logout(provider)
}

// ProviderEnv returns the environment a provider's wire client reads
// (regions, projects, endpoints, cloud credentials): the process
// environment with the provider's auth.json "env" laid over it (§6.3).
// It is looked up on every call, so a /login that changes it applies at
// once.
func (r *Registry) ProviderEnv(provider string) func(string) string {
	return func(name string) string {
		getenv := r.getenv
		if r.auth != nil {
			if c, err := r.auth.Get(provider); err == nil && c != nil && c.Type == "api_key" {
				getenv = envWith(c.Env, r.getenv)
			}
		}
		return getenv(name)
	}
}
