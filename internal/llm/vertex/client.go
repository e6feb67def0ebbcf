// Package vertex is the "google-vertex" wire client: Gemini models on
// Google Cloud Vertex AI. The stream is the Gemini API's
// (streamGenerateContent?alt=sse), so the gemini client does the work;
// this package picks the endpoint and the credentials: a Vertex API key
// (GOOGLE_CLOUD_API_KEY, express mode) or Application Default Credentials
// with GOOGLE_CLOUD_PROJECT / GCLOUD_PROJECT and GOOGLE_CLOUD_LOCATION.
package vertex

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/gemini"
)

// API is the api id of the models this client speaks.
const API = "google-vertex"

// apiVersion is the Vertex REST version the original uses.
const apiVersion = "v1"

// scope is the OAuth scope ADC tokens are requested for.
const scope = "https://www.googleapis.com/auth/cloud-platform"

// credentialsMarker is the original's stand-in key for ADC.
const credentialsMarker = "gcp-vertex-credentials"

// Config is what a Client reads.
type Config struct {
	// Getenv returns the provider's environment (process environment with
	// auth.json's env for google-vertex over it). nil = empty.
	Getenv func(string) string
	// HTTPClient carries token requests of the credentials (refresh-token
	// and service-account exchanges); nil = http.DefaultClient.
	HTTPClient *http.Client
}

// Client streams Vertex AI answers; safe for concurrent use. Its ADC token
// source is made once and refreshes itself.
type Client struct {
	cfg Config

	mu  sync.Mutex
	ts  oauth2.TokenSource
	src string // which credentials ts came from, for messages
}

// New returns a Client.
func New(cfg Config) *Client {
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	return &Client{cfg: cfg}
}

var _ llm.Client = (*Client)(nil)

// Stream sends req and streams the answer through emit.
func (c *Client) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	fail := func(pe *llm.ProviderError) *llm.AssistantMessage {
		return llm.NewMessageBuilder(req.Model, emit).Fail(pe)
	}
	if req.Model == nil {
		return fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: "no model"})
	}
	if key := apiKey(req.APIKey); key != "" {
		endpoint, err := Endpoint(req.Model, "", "", true)
		if err != nil {
			return fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: err.Error()})
		}
		return gemini.StreamAt(ctx, req, endpoint, func(h http.Header) { h.Set("x-goog-api-key", key) }, emit)
	}
	get := c.cfg.Getenv
	project := firstNonEmpty(get("GOOGLE_CLOUD_PROJECT"), get("GCLOUD_PROJECT"))
	if project == "" {
		return fail(&llm.ProviderError{Kind: llm.ErrAuth, Message: "Vertex AI requires a project ID: set GOOGLE_CLOUD_PROJECT or GCLOUD_PROJECT (or GOOGLE_CLOUD_API_KEY for an API key)"})
	}
	location := strings.TrimSpace(get("GOOGLE_CLOUD_LOCATION"))
	if location == "" {
		return fail(&llm.ProviderError{Kind: llm.ErrAuth, Message: "Vertex AI requires a location: set GOOGLE_CLOUD_LOCATION (e.g. us-central1 or global)"})
	}
	endpoint, err := Endpoint(req.Model, project, location, false)
	if err != nil {
		return fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: err.Error()})
	}
	tok, perr := c.token(ctx)
	if perr != nil {
		return fail(perr)
	}
	return gemini.StreamAt(ctx, req, endpoint, func(h http.Header) { tok.SetAuthHeader(&http.Request{Header: h}) }, emit)
}

// apiKey returns a usable Vertex API key, or "" for none, the ambient
// marker or a placeholder such as "<authenticated>".
func apiKey(k string) string {
	k = strings.TrimSpace(k)
	if k == "" || k == llm.AmbientKey || k == credentialsMarker || placeholderRe.MatchString(k) {
		return ""
	}
	return k
}

var placeholderRe = regexp.MustCompile(`^<[^>]+>$`)

// token returns a valid ADC access token (cached until shortly before it
// expires).
func (c *Client) token(ctx context.Context) (*oauth2.Token, *llm.ProviderError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cfg.HTTPClient != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, c.cfg.HTTPClient)
	}
	if c.ts == nil {
		creds, src, err := c.findCredentials(ctx)
		if err != nil {
			return nil, &llm.ProviderError{Kind: llm.ErrAuth, Message: "Vertex AI: no application default credentials: " + err.Error() +
				" (run `gcloud auth application-default login`, set GOOGLE_APPLICATION_CREDENTIALS, or set GOOGLE_CLOUD_API_KEY)"}
		}
		// The token source keeps the context of its first use for later
		// refreshes: give it one that outlives this request.
		c.ts, c.src = creds.TokenSource, src
	}
	tok, err := c.ts.Token()
	if err != nil {
		if pe := llm.ErrorFromContext(ctx); pe != nil {
			return nil, pe
		}
		c.ts = nil // a fixed credentials file is picked up on the next request
		kind := llm.ErrAuth
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) {
			kind = llm.ErrNetwork
		}
		return nil, &llm.ProviderError{Kind: kind, Message: fmt.Sprintf("Vertex AI: get an access token from %s: %v", c.src, err)}
	}
	return tok, nil
}

// findCredentials loads GOOGLE_APPLICATION_CREDENTIALS from the provider
// environment when set, else the standard search (the gcloud
// application_default_credentials.json, then the GCE metadata server).
func (c *Client) findCredentials(ctx context.Context) (*google.Credentials, string, error) {
	// Token requests outlive the request that first needs one.
	base := context.WithoutCancel(ctx)
	if p := strings.TrimSpace(c.cfg.Getenv("GOOGLE_APPLICATION_CREDENTIALS")); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, "", fmt.Errorf("GOOGLE_APPLICATION_CREDENTIALS: %w", err)
		}
		creds, err := google.CredentialsFromJSONWithType(base, data, credentialsType(data), scope)
		if err != nil {
			return nil, "", fmt.Errorf("GOOGLE_APPLICATION_CREDENTIALS %s: %w", p, err)
		}
		return creds, p, nil
	}
	creds, err := google.FindDefaultCredentials(base, scope)
	if err != nil {
		return nil, "", err
	}
	return creds, "application default credentials", nil
}

var typeRe = regexp.MustCompile(`"type"\s*:\s*"([a-z_]+)"`)

// credentialsType reads the "type" of a credentials file, so only the
// kinds ADC accepts load.
func credentialsType(data []byte) google.CredentialsType {
	if m := typeRe.FindSubmatch(data); m != nil {
		return google.CredentialsType(m[1])
	}
	return google.CredentialsType("")
}

// Endpoint returns the streamGenerateContent URL of m. A model base URL
// without a {location} placeholder is a custom root (a proxy) that the
// model path is appended to (with /v1 unless it names a version);
// otherwise express mode (API key) uses aiplatform.googleapis.com and ADC
// the regional endpoint of the project's location (global:
// aiplatform.googleapis.com).
func Endpoint(m *llm.Model, project, location string, express bool) (string, error) {
	model := "publishers/google/models/" + url.PathEscape(m.ID) + ":streamGenerateContent?alt=sse"
	base := strings.TrimRight(strings.TrimSpace(m.BaseURL), "/")
	if base != "" && !strings.Contains(base, "{location}") {
		u, err := url.Parse(base)
		if err != nil || u.Host == "" {
			return "", fmt.Errorf("invalid Vertex AI base URL %q", m.BaseURL)
		}
		if !versionRe.MatchString(u.Path) {
			base += "/" + apiVersion
		}
		return base + "/" + model, nil
	}
	if express {
		return "https://aiplatform.googleapis.com/" + apiVersion + "/" + model, nil
	}
	host := location + "-aiplatform.googleapis.com"
	if location == "global" {
		host = "aiplatform.googleapis.com"
	}
	return "https://" + host + "/" + apiVersion + "/projects/" + url.PathEscape(project) + "/locations/" + url.PathEscape(location) + "/" + model, nil
}

var versionRe = regexp.MustCompile(`(?:^|/)v\d+(?:beta\d*)?(?:/|$)`)

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
