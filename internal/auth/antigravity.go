package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/relay-agent/relay/internal/models"
)

// AntigravityEndpoints are Google Antigravity sign-in's servers (zero =
// real).
type AntigravityEndpoints struct {
	Authorize string
	Token     string
	// CodeAssist are the Cloud Code Assist origins tried in order (a 403
	// or 404 moves to the next).
	CodeAssist   []string
	CallbackPort int // 0 = the registered 51121; -1 = any (tests)
}

var antigravityDefaults = AntigravityEndpoints{
	Authorize:    "https://accounts.google.com/o/oauth2/v2/auth",
	Token:        "https://oauth2.googleapis.com/token",
	CodeAssist:   []string{"https://daily-cloudcode-pa.googleapis.com", "https://cloudcode-pa.googleapis.com"},
	CallbackPort: 51121,
}

var antigravityScopes = []string{"cloud-platform", "userinfo.email", "userinfo.profile", "cclog", "experimentsandconfigs"}

func antigravityProvider(c *Config) *Provider {
	e := c.Antigravity
	fill(&e.Authorize, antigravityDefaults.Authorize)
	fill(&e.Token, antigravityDefaults.Token)
	if len(e.CodeAssist) == 0 {
		e.CodeAssist = antigravityDefaults.CodeAssist
	}
	port := callbackPort(e.CallbackPort, antigravityDefaults.CallbackPort)
	client := func(op string) (id, secret string, err error) {
		id, secret = c.Getenv("RELAY_AI_ANTIGRAVITY_CLIENT_ID"), c.Getenv("RELAY_AI_ANTIGRAVITY_CLIENT_SECRET")
		if id == "" || secret == "" {
			return "", "", fmt.Errorf("set RELAY_AI_ANTIGRAVITY_CLIENT_ID and RELAY_AI_ANTIGRAVITY_CLIENT_SECRET to %s Google Antigravity", op)
		}
		return id, secret, nil
	}
	exchange := func(ctx context.Context, op string, form url.Values, prev *models.Credential) (*models.Credential, error) {
		id, secret, err := client(map[string]string{"exchange": "sign in with", "refresh": "refresh the sign-in of"}[op])
		if err != nil {
			return nil, err
		}
		form.Set("client_id", id)
		form.Set("client_secret", secret)
		start := c.Now()
		st, body, err := postForm(ctx, c.HTTP, e.Token, form, nil)
		if err != nil {
			return nil, wrapNet("Antigravity token "+op, err)
		}
		t, err := readToken("Antigravity", op, st, body, false)
		if err != nil {
			return nil, err
		}
		in, ok := t.expiresIn()
		if !ok {
			return nil, errMissing("Antigravity", op, "expires_in")
		}
		refresh := t.RefreshToken
		if refresh == "" && prev != nil {
			refresh = prev.Refresh // Google does not rotate refresh tokens
		}
		if refresh == "" {
			return nil, errMissing("Antigravity", op, "refresh_token")
		}
		life := int64(in*1000) - 60_000
		if life < 0 {
			life = 0
		}
		return &models.Credential{Type: "oauth", Access: t.AccessToken, Refresh: refresh, Expires: start.UnixMilli() + life}, nil
	}
	// project asks Cloud Code Assist for the account's project
	// (loadCodeAssist) and remembers which origin answered.
	project := func(ctx context.Context, access string) (id, baseURL string, err error) {
		version := firstNonEmpty(c.Getenv("RELAY_AI_ANTIGRAVITY_VERSION"), "1.21.9")
		hdr := map[string]string{"User-Agent": "antigravity/" + version, "Authorization": "Bearer " + access}
		body := map[string]any{"metadata": map[string]string{"ideType": "ANTIGRAVITY", "platform": "PLATFORM_UNSPECIFIED", "pluginType": "GEMINI"}}
		for i, origin := range e.CodeAssist {
			st, b, err := postJSON(ctx, c.HTTP, strings.TrimRight(origin, "/")+"/v1internal:loadCodeAssist", body, hdr)
			if err != nil {
				return "", "", wrapNet("Antigravity loadCodeAssist", err)
			}
			if (st == http.StatusForbidden || st == http.StatusNotFound) && i < len(e.CodeAssist)-1 {
				continue
			}
			if st != http.StatusOK {
				return "", "", fmt.Errorf("Antigravity loadCodeAssist failed (%d): %s", st, snippet(b))
			}
			var r struct {
				Project json.RawMessage `json:"cloudaicompanionProject"`
			}
			if json.Unmarshal(b, &r) != nil {
				return "", "", fmt.Errorf("Antigravity loadCodeAssist: invalid answer: %s", snippet(b))
			}
			var s string
			if json.Unmarshal(r.Project, &s) != nil {
				var o struct{ ID string }
				_ = json.Unmarshal(r.Project, &o)
				s = o.ID
			}
			if s == "" {
				return "", "", errors.New("no Antigravity project found: open Antigravity and finish account setup, then sign in again")
			}
			return s, origin, nil
		}
		return "", "", errors.New("no Antigravity endpoint available")
	}
	return &Provider{
		ID: "google-antigravity", Name: "Google Antigravity", Methods: []string{MethodBrowser},
		start: func(ctx context.Context, o LoginOptions) (*Flow, error) {
			id, _, err := client("sign in with")
			if err != nil {
				return nil, err
			}
			verifier, challenge := pkce()
			state := randomHex(16)
			f, fctx := newFlow(ctx, "google-antigravity")
			f.AcceptsInput = true
			cb := startCallback(callbackHost(c), port, "localhost", "/oauth-callback", state)
			redirect := "http://localhost:51121/oauth-callback"
			if cb != nil {
				redirect = cb.redirect
			}
			scopes := make([]string, len(antigravityScopes))
			for i, s := range antigravityScopes {
				scopes[i] = "https://www.googleapis.com/auth/" + s
			}
			q := url.Values{"client_id": {id}, "response_type": {"code"}, "redirect_uri": {redirect}, "scope": {strings.Join(scopes, " ")},
				"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {state}, "access_type": {"offline"}, "prompt": {"consent"}}
			f.URL = e.Authorize + "?" + q.Encode()
			f.Instructions = "Sign in with the Google account you use for Antigravity. If the browser is on another machine, paste the final redirect URL."
			f.run(func() (*models.Credential, error) {
				defer cb.close()
				code, _, err := waitCode(fctx, "Antigravity", cb, f.input, state)
				if err != nil {
					return nil, err
				}
				cred, err := exchange(fctx, "exchange", url.Values{"grant_type": {"authorization_code"}, "code": {code},
					"code_verifier": {verifier}, "redirect_uri": {redirect}}, nil)
				if err != nil {
					return nil, err
				}
				pid, origin, err := project(fctx, cred.Access)
				if err != nil {
					return nil, err
				}
				cred.SetExtra("projectId", pid)
				cred.SetExtra("baseUrl", origin)
				return cred, nil
			})
			return f, nil
		},
		refresh: func(ctx context.Context, cur *models.Credential) (*models.Credential, error) {
			return exchange(ctx, "refresh", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {cur.Refresh}}, cur)
		},
		use: func(cr *models.Credential) (models.OAuthUse, error) {
			pid := cr.ExtraString("projectId")
			if pid == "" {
				return models.OAuthUse{}, errors.New("missing Antigravity project")
			}
			return models.OAuthUse{APIKey: cr.Access, Headers: map[string]string{"X-Goog-User-Project": pid}, BaseURL: cr.ExtraString("baseUrl")}, nil
		},
	}
}
