// Package bedrock is the "bedrock-converse-stream" wire client: Amazon
// Bedrock's ConverseStream operation (POST /model/{id}/converse-stream),
// answered in the AWS event-stream binary framing. Credentials, regions
// and endpoints follow the AWS SDK for Go (aws-sdk-go-v2/config: profiles,
// SSO, environment, container and web-identity credentials; the
// bedrockruntime endpoint rules); requests are signed with SigV4, or carry
// a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK) as a bearer token. The HTTP
// exchange itself goes through llm.Send like every other client (retries,
// idle timeout, the wire hooks), and the stream is decoded here: the SDK's
// generic event decoder costs several microseconds a frame, and a long
// answer is tens of thousands of frames.
package bedrock

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/relay-agent/relay/internal/llm"
)

// API is the api id of the models this client speaks.
const API = "bedrock-converse-stream"

// signingName is Bedrock's SigV4 service name.
const signingName = "bedrock"

// defaultRegion is used when nothing names one (as the original does).
const defaultRegion = "us-east-1"

// Config is what a Client reads from the environment.
type Config struct {
	// Getenv returns the provider's environment: the process environment
	// with auth.json's env for amazon-bedrock laid over it. nil = empty.
	Getenv func(string) string
	// Now is the signing clock; nil = time.Now. Tests pin it.
	Now func() time.Time
}

// Client streams Bedrock answers. It loads the AWS configuration once
// (credentials are cached and refreshed by the SDK) and is safe for
// concurrent use.
type Client struct {
	getenv func(string) string
	now    func() time.Time
	signer *v4.Signer

	mu     sync.Mutex
	awsCfg *aws.Config // nil until loaded
}

// New returns a Client.
func New(cfg Config) *Client {
	c := &Client{getenv: cfg.Getenv, now: cfg.Now, signer: v4.NewSigner()}
	if c.getenv == nil {
		c.getenv = func(string) string { return "" }
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

var _ llm.Client = (*Client)(nil)

// target is where and how one request goes.
type target struct {
	region   string
	url      *url.URL
	bearer   string          // Bedrock API key; "" = SigV4
	creds    aws.Credentials // for SigV4
	claude   bool            // an Anthropic Claude model
	modelID  string
	modelRef string // "model X in region Y", for messages
}

// Stream sends req and streams the answer through emit. It never fails
// with a Go error: failures end the message with stop reason error or
// aborted.
func (c *Client) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	b := llm.NewMessageBuilder(req.Model, emit)
	if req.Model == nil {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: "no model"})
	}
	t, perr := c.resolve(ctx, req)
	if perr != nil {
		return b.Fail(perr)
	}
	payload, err := llm.Marshal(buildBody(req, t, c.getenv))
	if err != nil {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: "encode request: " + err.Error()})
	}

	r := *req
	var errType string
	r.OnResponse = func(status int, h http.Header) {
		if status < 200 || status > 299 {
			errType = h.Get("X-Amzn-Errortype")
		}
		if req.OnResponse != nil {
			req.OnResponse(status, h)
		}
	}
	if t.bearer == "" {
		r.HTTPClient = c.signingClient(req.HTTPClient, t)
	}
	resp, perr := llm.Send(ctx, &r, func(ctx context.Context) (*http.Request, error) {
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url.String(), bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		hr.URL = t.url // keep the escaped path as built (ids hold ':' and '/')
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Accept", "application/vnd.amazon.eventstream")
		if t.bearer != "" {
			hr.Header.Set("Authorization", "Bearer "+t.bearer)
		}
		setHeaders(hr.Header, req.Model.Headers)
		setHeaders(hr.Header, req.Headers)
		return hr, nil
	})
	if perr != nil {
		return b.Fail(httpError(perr, errType, t))
	}
	defer resp.Body.Close()
	b.Begin(resp.Body)
	return readStream(ctx, resp.Body, b, t)
}

// setHeaders copies configured headers, except those SigV4 or the bearer
// token own (authorization, host, x-amz-*): they would break the signature
// or the credentials.
func setHeaders(h http.Header, from map[string]string) {
	for k, v := range from {
		l := strings.ToLower(k)
		if l == "authorization" || l == "host" || strings.HasPrefix(l, "x-amz-") {
			continue
		}
		h.Set(k, v)
	}
}

// resolve picks region, endpoint and credentials for req
// (the original's order): the region embedded in an inference-profile
// ARN, else AWS_REGION / AWS_DEFAULT_REGION, else the region of a
// standard endpoint the model pins, else the profile's region, else
// us-east-1.
func (c *Client) resolve(ctx context.Context, req *llm.Request) (*target, *llm.ProviderError) {
	m := req.Model
	get := c.getenv
	t := &target{claude: isClaude(m)}
	skipAuth := get("AWS_BEDROCK_SKIP_AUTH") == "1"

	bearer := get("AWS_BEARER_TOKEN_BEDROCK")
	if bearer == "" && req.APIKey != "" && req.APIKey != llm.AmbientKey {
		bearer = req.APIKey // a Bedrock API key stored with /login
	}
	if !skipAuth {
		t.bearer = bearer
	}

	configured := firstNonEmpty(get("AWS_REGION"), get("AWS_DEFAULT_REGION"))
	profile := get("AWS_PROFILE")
	stdRegion := standardEndpointRegion(m.BaseURL)
	pinned := m.BaseURL != "" && (stdRegion == "" || configured == "" && profile == "")

	cfg, cfgErr := c.loadConfig(ctx)
	switch {
	case arnRegion(m.ID) != "":
		t.region = arnRegion(m.ID)
	case configured != "":
		t.region = configured
	case pinned && stdRegion != "":
		t.region = stdRegion
	case cfg != nil && cfg.Region != "":
		t.region = cfg.Region
	default:
		t.region = defaultRegion
	}
	t.modelID = m.ID
	t.modelRef = fmt.Sprintf("model %s in region %s", m.ID, t.region)

	base, err := c.endpoint(ctx, m, t.region, pinned, cfg)
	if err != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: fmt.Sprintf("amazon-bedrock: endpoint for %s: %v", t.modelRef, err)}
	}
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || u.Host == "" {
		return nil, &llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: fmt.Sprintf("amazon-bedrock: invalid endpoint URL %q", base)}
	}
	id := url.PathEscape(m.ID)
	id = strings.ReplaceAll(id, ":", "%3A") // PathEscape keeps ':'; Bedrock's ids and ARNs have it
	u.RawPath = u.EscapedPath() + "/model/" + id + "/converse-stream"
	u.Path, _ = url.PathUnescape(u.RawPath)
	t.url = u

	switch {
	case t.bearer != "":
	case skipAuth:
		t.creds = aws.Credentials{AccessKeyID: "dummy-access-key", SecretAccessKey: "dummy-secret-key"}
	default:
		if cfgErr != nil {
			return nil, &llm.ProviderError{Kind: llm.ErrAuth, Message: "amazon-bedrock: load AWS configuration: " + cfgErr.Error()}
		}
		creds, err := cfg.Credentials.Retrieve(ctx)
		if err != nil {
			if pe := llm.ErrorFromContext(ctx); pe != nil {
				return nil, pe
			}
			return nil, &llm.ProviderError{Kind: llm.ErrAuth, Message: "amazon-bedrock: no usable AWS credentials for " + t.modelRef + ": " + err.Error() +
				" (set AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_BEARER_TOKEN_BEDROCK, or run `aws sso login`)"}
		}
		t.creds = creds
	}
	return t, nil
}

// loadConfig loads the AWS shared configuration and credential chain once.
// A failure is not kept: the next request tries again (a profile may have
// been fixed meanwhile).
func (c *Client) loadConfig(ctx context.Context) (*aws.Config, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.awsCfg != nil {
		return c.awsCfg, nil
	}
	get := c.getenv
	var opts []func(*config.LoadOptions) error
	if v := get("AWS_CONFIG_FILE"); v != "" {
		opts = append(opts, config.WithSharedConfigFiles([]string{v}))
	}
	if v := get("AWS_SHARED_CREDENTIALS_FILE"); v != "" {
		opts = append(opts, config.WithSharedCredentialsFiles([]string{v}))
	}
	if r := firstNonEmpty(get("AWS_REGION"), get("AWS_DEFAULT_REGION")); r != "" {
		opts = append(opts, config.WithRegion(r))
	}
	// An explicit profile wins over keys in the environment (the SDK's
	// rule when the profile is given in code, the original's too).
	if p := get("AWS_PROFILE"); p != "" {
		opts = append(opts, config.WithSharedConfigProfile(p))
	} else if id, secret := get("AWS_ACCESS_KEY_ID"), get("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(id, secret, get("AWS_SESSION_TOKEN"))))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, err
	}
	c.awsCfg = &cfg
	return c.awsCfg, nil
}

// endpoint returns the service root: AWS_ENDPOINT_URL_BEDROCK_RUNTIME,
// then AWS_ENDPOINT_URL (unless AWS_IGNORE_CONFIGURED_ENDPOINT_URLS), then
// the model's base URL when it pins one (a proxy or VPC endpoint, or a
// standard endpoint while no region is configured), then an endpoint the
// shared config file names, then the bedrockruntime endpoint rules for
// the region (FIPS with AWS_USE_FIPS_ENDPOINT).
func (c *Client) endpoint(ctx context.Context, m *llm.Model, region string, pinned bool, cfg *aws.Config) (string, error) {
	get := c.getenv
	if !truthy(get("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")) {
		if v := firstNonEmpty(get("AWS_ENDPOINT_URL_BEDROCK_RUNTIME"), get("AWS_ENDPOINT_URL")); v != "" {
			return v, nil
		}
	}
	if pinned {
		return m.BaseURL, nil
	}
	if cfg != nil {
		if be := bedrockruntime.NewFromConfig(*cfg).Options().BaseEndpoint; be != nil && *be != "" {
			return *be, nil
		}
	}
	fips := truthy(get("AWS_USE_FIPS_ENDPOINT"))
	ep, err := bedrockruntime.NewDefaultEndpointResolverV2().ResolveEndpoint(ctx, bedrockruntime.EndpointParameters{
		Region: aws.String(region), UseFIPS: aws.Bool(fips),
	})
	if err != nil {
		return "", err
	}
	return ep.URI.String(), nil
}

var stdEndpointRe = regexp.MustCompile(`^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$`)

// standardEndpointRegion returns the region of a standard Bedrock runtime
// URL, or "" for any other URL (a proxy, a VPC endpoint).
func standardEndpointRegion(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	if m := stdEndpointRe.FindStringSubmatch(strings.ToLower(u.Hostname())); m != nil {
		return m[1]
	}
	return ""
}

var arnRe = regexp.MustCompile(`^arn:aws(?:-[a-z0-9-]+)?:bedrock:([a-z0-9-]+):`)

// arnRegion returns the region of an inference-profile ARN model id.
func arnRegion(id string) string {
	if m := arnRe.FindStringSubmatch(id); m != nil {
		return m[1]
	}
	return ""
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes":
		return true
	}
	return false
}

// signingClient returns a copy of hc (or the default client) whose
// transport signs every request it sends with SigV4: after the wire hooks
// have replaced the body and the headers, so the signature covers what
// goes out.
func (c *Client) signingClient(hc *http.Client, t *target) *http.Client {
	var cp http.Client
	if hc != nil {
		cp = *hc
	}
	base := cp.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cp.Transport = &sigv4Transport{base: base, signer: c.signer, creds: t.creds, region: t.region, now: c.now}
	return &cp
}

type sigv4Transport struct {
	base   http.RoundTripper
	signer *v4.Signer
	creds  aws.Credentials
	region string
	now    func() time.Time
}

func (s *sigv4Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		var err error
		body, err = io.ReadAll(r.Body) // our own request body, already in memory
		r.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read request body: %w", err)
		}
	}
	sum := sha256.Sum256(body)
	out := r.Clone(r.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	if err := s.signer.SignHTTP(r.Context(), s.creds, out, hex.EncodeToString(sum[:]), signingName, s.region, s.now()); err != nil {
		return nil, fmt.Errorf("sign request: %w", err)
	}
	return s.base.RoundTrip(out)
}
