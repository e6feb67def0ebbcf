package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// Workload identity federation: a workload's OIDC token (a Kubernetes
// projected service-account token, a CI id-token) is exchanged at
// {base}/v1/oauth/token (the JWT-bearer grant, with the federation rule and
// organization) for a short-lived Anthropic access token, sent as a bearer
// token. The token file is re-read on every exchange, so rotated tokens are
// picked up without a restart.

// jwtBearerGrant is the OAuth grant type of the exchange (RFC 7523).
const jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// federationRefreshMargin renews the access token this long before it
// expires.
const federationRefreshMargin = time.Minute

// maxIdentityToken bounds the identity token file.
const maxIdentityToken = 64 << 10

// FederationConfigured reports whether the environment asks for workload
// identity federation: ANTHROPIC_FEDERATION_RULE_ID and
// ANTHROPIC_ORGANIZATION_ID, with ANTHROPIC_IDENTITY_TOKEN_FILE (or the
// token itself in ANTHROPIC_IDENTITY_TOKEN).
func FederationConfigured(getenv func(string) string) bool {
	set := func(k string) bool { return strings.TrimSpace(getenv(k)) != "" }
	return set("ANTHROPIC_FEDERATION_RULE_ID") && set("ANTHROPIC_ORGANIZATION_ID") &&
		(set("ANTHROPIC_IDENTITY_TOKEN_FILE") || set("ANTHROPIC_IDENTITY_TOKEN"))
}

// Federation exchanges the workload's identity token for access tokens and
// caches the current one; safe for concurrent use (one exchange at a time).
type Federation struct {
	getenv func(string) string
	now    func() time.Time

	mu      sync.Mutex
	token   string
	expires time.Time
}

// NewFederation returns a Federation reading getenv.
func NewFederation(getenv func(string) string) *Federation {
	return &Federation{getenv: getenv, now: time.Now}
}

// Token returns a valid access token for base (the API root), exchanging
// the identity token when none is cached or the cached one is about to
// expire. A valid token costs no request.
func (f *Federation) Token(ctx context.Context, hc *http.Client, base string) (string, *llm.ProviderError) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.token != "" && f.now().Add(federationRefreshMargin).Before(f.expires) {
		return f.token, nil
	}
	get := func(k string) string { return strings.TrimSpace(f.getenv(k)) }
	assertion := get("ANTHROPIC_IDENTITY_TOKEN")
	if p := get("ANTHROPIC_IDENTITY_TOKEN_FILE"); p != "" {
		data, err := readBounded(p, maxIdentityToken)
		if err != nil {
			return "", &llm.ProviderError{Kind: llm.ErrAuth, Message: "anthropic federation: read ANTHROPIC_IDENTITY_TOKEN_FILE: " + err.Error()}
		}
		assertion = strings.TrimSpace(string(data))
	}
	if assertion == "" {
		return "", &llm.ProviderError{Kind: llm.ErrAuth, Message: "anthropic federation: the identity token is empty (ANTHROPIC_IDENTITY_TOKEN_FILE)"}
	}
	body := map[string]string{
		"grant_type":         jwtBearerGrant,
		"assertion":          assertion,
		"federation_rule_id": get("ANTHROPIC_FEDERATION_RULE_ID"),
		"organization_id":    get("ANTHROPIC_ORGANIZATION_ID"),
	}
	if v := get("ANTHROPIC_SERVICE_ACCOUNT_ID"); v != "" {
		body["service_account_id"] = v
	}
	if v := get("ANTHROPIC_WORKSPACE_ID"); v != "" {
		body["workspace_id"] = v
	}
	payload, _ := json.Marshal(body)
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+"/v1/oauth/token", bytes.NewReader(payload))
	if err != nil {
		return "", &llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: "anthropic federation: " + err.Error()}
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(hr)
	if err != nil {
		if pe := llm.ErrorFromContext(ctx); pe != nil {
			return "", pe
		}
		return "", &llm.ProviderError{Kind: llm.ErrNetwork, Message: "anthropic federation: token exchange: " + err.Error()}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		pe := llm.ClassifyHTTP(resp.StatusCode, resp.Header, raw)
		if resp.StatusCode == 400 || resp.StatusCode == 401 || resp.StatusCode == 403 {
			pe.Kind = llm.ErrAuth // a rejected assertion or rule does not heal by retrying
		}
		pe.Message = "anthropic federation: token exchange refused (rule " + body["federation_rule_id"] + ", organization " +
			body["organization_id"] + "): " + pe.Message
		return "", pe
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
		TokenType   string `json:"token_type"`
	}
	if err := json.Unmarshal(raw, &tok); err != nil || tok.AccessToken == "" {
		return "", &llm.ProviderError{Kind: llm.ErrMalformed, Message: fmt.Sprintf("anthropic federation: token response without access_token: %.200q", raw)}
	}
	f.token = tok.AccessToken
	if tok.ExpiresIn <= 0 {
		tok.ExpiresIn = 300 // unknown lifetime: assume a short one
	}
	f.expires = f.now().Add(time.Duration(tok.ExpiresIn) * time.Second)
	return f.token, nil
}

func readBounded(path string, n int64) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, n+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > n {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, n)
	}
	return data, nil
}
