package auth

import (
	"context"
	"encoding/base64"
	"net/url"
	"time"

	"github.com/relay-agent/relay/internal/models"
)

// AnthropicEndpoints are Claude Pro/Max sign-in's servers (zero = real).
type AnthropicEndpoints struct {
	Authorize string
	Token     string
	// CopyCodeRedirect is where the paste-the-code method sends the
	// browser: a page that shows "code#state".
	CopyCodeRedirect string
	// CallbackPort is the loopback port of the browser method (0 = the
	// registered 53692; tests set -1 for any free port).
	CallbackPort int
	ClientID     string
}

// The original's published values (packages/ai/src/auth/oauth/anthropic.ts).
var anthropicDefaults = AnthropicEndpoints{
	Authorize:        "https://claude.ai/oauth/authorize",
	Token:            "https://platform.claude.com/v1/oauth/token",
	CopyCodeRedirect: "https://platform.claude.com/oauth/code/callback",
	CallbackPort:     53692,
	ClientID:         mustB64("OWQxYzI1MGEtZTYxYi00NGQ5LTg4ZWQtNTk0NGQxOTYyZjVl"),
}

const anthropicScopes = "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload"

// Sign-in methods.
const (
	MethodBrowser    = "browser"
	MethodCopyCode   = "copy_code"
	MethodDeviceCode = "device_code"
)

func mustB64(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func fill(v *string, def string) {
	if *v == "" {
		*v = def
	}
}

func callbackPort(p, def int) int {
	switch {
	case p == 0:
		return def
	case p < 0:
		return 0
	}
	return p
}

func anthropicProvider(c *Config) *Provider {
	e := c.Anthropic
	fill(&e.Authorize, anthropicDefaults.Authorize)
	fill(&e.Token, anthropicDefaults.Token)
	fill(&e.CopyCodeRedirect, anthropicDefaults.CopyCodeRedirect)
	fill(&e.ClientID, anthropicDefaults.ClientID)
	port := callbackPort(e.CallbackPort, anthropicDefaults.CallbackPort)

	// Anthropic subtracts five minutes from the lifetime it stores.
	toCred := func(t *tokenAnswer, start time.Time) *models.Credential {
		in, _ := t.expiresIn()
		return &models.Credential{Type: "oauth", Access: t.AccessToken, Refresh: t.RefreshToken,
			Expires: start.UnixMilli() + int64(in*1000) - int64(5*time.Minute/time.Millisecond)}
	}
	exchange := func(ctx context.Context, code, state, verifier, redirect string) (*models.Credential, error) {
		start := c.Now()
		st, body, err := postJSON(ctx, c.HTTP, e.Token, map[string]string{
			"grant_type": "authorization_code", "client_id": e.ClientID, "code": code, "state": state,
			"redirect_uri": redirect, "code_verifier": verifier,
		}, nil)
		if err != nil {
			return nil, wrapNet("Anthropic token exchange", err)
		}
		t, err := readToken("Anthropic", "exchange", st, body, true)
		if err != nil {
			return nil, err
		}
		if _, ok := t.expiresIn(); !ok {
			return nil, errMissing("Anthropic", "exchange", "expires_in")
		}
		return toCred(t, start), nil
	}
	return &Provider{
		ID: "anthropic", Name: "Anthropic (Claude Pro/Max)", Methods: []string{MethodBrowser, MethodCopyCode},
		start: func(ctx context.Context, o LoginOptions) (*Flow, error) {
			method := o.Method
			if method == "" {
				method = MethodBrowser
				if o.NoBrowser {
					method = MethodCopyCode
				}
			}
			verifier, challenge := pkce()
			f, fctx := newFlow(ctx, "anthropic")
			f.AcceptsInput = true
			var cb *callback
			redirect := e.CopyCodeRedirect
			if method == MethodBrowser {
				cb = startCallback(callbackHost(c), port, "localhost", "/callback", verifier)
				if cb != nil {
					redirect = cb.redirect
				} else {
					redirect = "http://localhost:" + itoa(anthropicDefaults.CallbackPort) + "/callback"
				}
				f.Instructions = "Complete login in your browser. If the browser is on another machine, paste the final redirect URL."
			} else {
				f.Instructions = "Complete login in your browser, then paste the code Anthropic shows (code#state)."
			}
			q := url.Values{"code": {"true"}, "client_id": {e.ClientID}, "response_type": {"code"}, "redirect_uri": {redirect},
				"scope": {anthropicScopes}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {verifier}}
			f.URL = e.Authorize + "?" + q.Encode()
			f.run(func() (*models.Credential, error) {
				defer cb.close()
				code, state, err := waitCode(fctx, "Anthropic", cb, f.input, verifier)
				if err != nil {
					return nil, err
				}
				return exchange(fctx, code, state, verifier, redirect)
			})
			return f, nil
		},
		refresh: func(ctx context.Context, cur *models.Credential) (*models.Credential, error) {
			start := c.Now()
			st, body, err := postJSON(ctx, c.HTTP, e.Token, map[string]string{
				"grant_type": "refresh_token", "client_id": e.ClientID, "refresh_token": cur.Refresh,
			}, nil)
			if err != nil {
				return nil, wrapNet("Anthropic token refresh", err)
			}
			t, err := readToken("Anthropic", "refresh", st, body, false)
			if err != nil {
				return nil, err
			}
			if _, ok := t.expiresIn(); !ok {
				return nil, errMissing("Anthropic", "refresh", "expires_in")
			}
			return toCred(t, start), nil
		},
	}
}
