package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/relay-agent/relay/internal/llm/responses"
	"github.com/relay-agent/relay/internal/models"
)

// CodexEndpoints are ChatGPT (Codex) sign-in's servers (zero = real).
type CodexEndpoints struct {
	// Base is the auth server (https://auth.openai.com); the authorize,
	// token and device endpoints hang off it.
	Base         string
	CallbackPort int // 0 = the registered 1455; -1 = any (tests)
	ClientID     string
	// PollInterval overrides the device flow's interval (tests).
	PollInterval time.Duration
}

var codexDefaults = CodexEndpoints{Base: "https://auth.openai.com", CallbackPort: 1455, ClientID: "app_EMoamEEZ73f0CkXaXp7hrann"}

const (
	codexScope     = "openid profile email offline_access"
	codexOrigin    = "pi" // the originator the original sends
	codexDeviceTTL = 15 * time.Minute
)

func codexProvider(c *Config) *Provider {
	e := c.Codex
	fill(&e.Base, codexDefaults.Base)
	fill(&e.ClientID, codexDefaults.ClientID)
	port := callbackPort(e.CallbackPort, codexDefaults.CallbackPort)
	tokenURL := e.Base + "/oauth/token"

	toCred := func(op string, st int, body []byte, start time.Time) (*models.Credential, error) {
		t, err := readToken("OpenAI Codex", op, st, body, true)
		if err != nil {
			return nil, err
		}
		in, ok := t.expiresIn()
		if !ok {
			return nil, errMissing("OpenAI Codex", op, "expires_in")
		}
		acc, err := responses.CodexAccountID(t.AccessToken)
		if err != nil {
			return nil, fmt.Errorf("OpenAI Codex token %s: %w", op, err)
		}
		cred := &models.Credential{Type: "oauth", Access: t.AccessToken, Refresh: t.RefreshToken, Expires: start.UnixMilli() + int64(in*1000)}
		cred.SetExtra("accountId", acc)
		return cred, nil
	}
	exchange := func(ctx context.Context, code, verifier, redirect string) (*models.Credential, error) {
		start := c.Now()
		st, body, err := postForm(ctx, c.HTTP, tokenURL, url.Values{"grant_type": {"authorization_code"}, "client_id": {e.ClientID},
			"code": {code}, "code_verifier": {verifier}, "redirect_uri": {redirect}}, nil)
		if err != nil {
			return nil, wrapNet("OpenAI Codex token exchange", err)
		}
		return toCred("exchange", st, body, start)
	}

	browser := func(ctx context.Context) (*Flow, error) {
		verifier, challenge := pkce()
		state := randomHex(16)
		f, fctx := newFlow(ctx, "openai-codex")
		f.AcceptsInput = true
		cb := startCallback(callbackHost(c), port, "localhost", "/auth/callback", state)
		redirect := "http://localhost:1455/auth/callback"
		if cb != nil {
			redirect = cb.redirect
		}
		q := url.Values{"response_type": {"code"}, "client_id": {e.ClientID}, "redirect_uri": {redirect}, "scope": {codexScope},
			"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {state},
			"id_token_add_organizations": {"true"}, "codex_cli_simplified_flow": {"true"}, "originator": {codexOrigin}}
		f.URL = e.Base + "/oauth/authorize?" + q.Encode()
		f.Instructions = "Complete login in your browser. If the browser is on another machine, paste the final redirect URL."
		f.run(func() (*models.Credential, error) {
			defer cb.close()
			code, _, err := waitCode(fctx, "OpenAI Codex", cb, f.input, state)
			if err != nil {
				return nil, err
			}
			return exchange(fctx, code, verifier, redirect)
		})
		return f, nil
	}

	device := func(ctx context.Context) (*Flow, error) {
		st, body, err := postJSON(ctx, c.HTTP, e.Base+"/api/accounts/deviceauth/usercode", map[string]string{"client_id": e.ClientID}, nil)
		if err != nil {
			return nil, wrapNet("OpenAI Codex device code", err)
		}
		if st == http.StatusNotFound {
			return nil, errors.New("OpenAI Codex device code login is not enabled for this server; use browser login")
		}
		if st != http.StatusOK {
			return nil, fmt.Errorf("OpenAI Codex device code request failed (%d): %s", st, snippet(body))
		}
		var d struct {
			ID       string          `json:"device_auth_id"`
			UserCode string          `json:"user_code"`
			Interval json.RawMessage `json:"interval"`
		}
		if json.Unmarshal(body, &d) != nil || d.ID == "" || d.UserCode == "" {
			return nil, fmt.Errorf("OpenAI Codex device code: invalid answer: %s", snippet(body))
		}
		interval := e.PollInterval
		if interval == 0 {
			secs, ok := (&tokenAnswer{ExpiresIn: d.Interval}).expiresIn()
			if !ok {
				secs = 5
			}
			interval = time.Duration(secs * float64(time.Second))
		}
		f, fctx := newFlow(ctx, "openai-codex")
		f.URL, f.UserCode = e.Base+"/codex/device", d.UserCode
		f.Instructions = "Open the page and enter the code to sign in with ChatGPT."
		f.run(func() (*models.Credential, error) {
			dctx, cancel := context.WithTimeout(fctx, codexDeviceTTL)
			defer cancel()
			for {
				select {
				case <-dctx.Done():
					return nil, fmt.Errorf("OpenAI Codex device sign-in: %w", dctx.Err())
				case <-time.After(interval):
				}
				st, body, err := postJSON(dctx, c.HTTP, e.Base+"/api/accounts/deviceauth/token",
					map[string]string{"device_auth_id": d.ID, "user_code": d.UserCode}, nil)
				if err != nil {
					return nil, wrapNet("OpenAI Codex device sign-in", err)
				}
				switch code := errorCode(body); {
				case st == http.StatusOK:
					var ok struct {
						Code     string `json:"authorization_code"`
						Verifier string `json:"code_verifier"`
					}
					if json.Unmarshal(body, &ok) != nil || ok.Code == "" || ok.Verifier == "" {
						return nil, fmt.Errorf("OpenAI Codex device sign-in: invalid answer: %s", snippet(body))
					}
					return exchange(dctx, ok.Code, ok.Verifier, e.Base+"/deviceauth/callback")
				case st == http.StatusForbidden || st == http.StatusNotFound || code == "deviceauth_authorization_pending":
				case code == "slow_down":
					if e.PollInterval == 0 {
						interval += 5 * time.Second
					}
				default:
					return nil, fmt.Errorf("OpenAI Codex device sign-in failed (%d): %s", st, snippet(body))
				}
			}
		})
		return f, nil
	}

	return &Provider{
		ID: "openai-codex", Name: "OpenAI (ChatGPT Plus/Pro)", Methods: []string{MethodBrowser, MethodDeviceCode},
		start: func(ctx context.Context, o LoginOptions) (*Flow, error) {
			if o.Method == MethodDeviceCode || (o.Method == "" && o.NoBrowser) {
				return device(ctx)
			}
			return browser(ctx)
		},
		refresh: func(ctx context.Context, cur *models.Credential) (*models.Credential, error) {
			start := c.Now()
			st, body, err := postForm(ctx, c.HTTP, tokenURL, url.Values{"grant_type": {"refresh_token"},
				"refresh_token": {cur.Refresh}, "client_id": {e.ClientID}}, nil)
			if err != nil {
				return nil, wrapNet("OpenAI Codex token refresh", err)
			}
			return toCred("refresh", st, body, start)
		},
		use: func(cr *models.Credential) (models.OAuthUse, error) {
			// The wire client reads the account id from the token itself;
			// a token without one cannot be used.
			if _, err := responses.CodexAccountID(cr.Access); err != nil {
				return models.OAuthUse{}, err
			}
			return models.OAuthUse{APIKey: cr.Access}, nil
		},
	}
}
