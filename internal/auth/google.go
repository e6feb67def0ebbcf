package auth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/relay-agent/relay/internal/models"
)

// googleSpec is one Google sign-in (Antigravity, Gemini CLI): the same
// authorization code + PKCE flow against Google's OAuth servers, then a
// Cloud Code Assist call that finds the account's project.
type googleSpec struct {
	id, name, label   string
	authorize, token  string
	port, defaultPort int
	path              string
	scopes            []string
	instructions      string
	client            func(op string) (id, secret string, err error)
	discover          func(ctx context.Context, access string) (map[string]string, error)
	use               func(c *models.Credential) (models.OAuthUse, error)
}

func googleProvider(c *Config, g googleSpec) *Provider {
	port := callbackPort(g.port, g.defaultPort)
	exchange := func(ctx context.Context, op string, form url.Values, prev *models.Credential) (*models.Credential, error) {
		id, secret, err := g.client(map[string]string{"exchange": "sign in with", "refresh": "refresh the sign-in of"}[op])
		if err != nil {
			return nil, err
		}
		form.Set("client_id", id)
		form.Set("client_secret", secret)
		start := c.Now()
		st, body, err := postForm(ctx, c.HTTP, g.token, form, nil)
		if err != nil {
			return nil, wrapNet(g.label+" token "+op, err)
		}
		t, err := readToken(g.label, op, st, body, false)
		if err != nil {
			return nil, err
		}
		in, ok := t.expiresIn()
		if !ok {
			return nil, errMissing(g.label, op, "expires_in")
		}
		refresh := t.RefreshToken
		if refresh == "" && prev != nil {
			refresh = prev.Refresh // Google does not rotate refresh tokens
		}
		if refresh == "" {
			return nil, errMissing(g.label, op, "refresh_token")
		}
		// A minute of margin, as the original stores it.
		life := int64(in*1000) - 60_000
		if life < 0 {
			life = 0
		}
		return &models.Credential{Type: "oauth", Access: t.AccessToken, Refresh: refresh, Expires: start.UnixMilli() + life}, nil
	}
	return &Provider{
		ID: g.id, Name: g.name, Methods: []string{MethodBrowser},
		start: func(ctx context.Context, o LoginOptions) (*Flow, error) {
			id, _, err := g.client("sign in with")
			if err != nil {
				return nil, err
			}
			verifier, challenge := pkce()
			state := randomHex(16)
			f, fctx := newFlow(ctx, g.id)
			f.AcceptsInput = true
			cb := startCallback(callbackHost(c), port, "localhost", g.path, state)
			redirect := fmt.Sprintf("http://localhost:%d%s", g.defaultPort, g.path)
			if cb != nil {
				redirect = cb.redirect
			}
			scopes := make([]string, len(g.scopes))
			for i, s := range g.scopes {
				scopes[i] = "https://www.googleapis.com/auth/" + s
			}
			q := url.Values{"client_id": {id}, "response_type": {"code"}, "redirect_uri": {redirect}, "scope": {strings.Join(scopes, " ")},
				"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {state}, "access_type": {"offline"}, "prompt": {"consent"}}
			f.URL = g.authorize + "?" + q.Encode()
			f.Instructions = g.instructions + " If the browser is on another machine, paste the final redirect URL."
			f.run(func() (*models.Credential, error) {
				defer cb.close()
				code, _, err := waitCode(fctx, g.label, cb, f.input, state)
				if err != nil {
					return nil, err
				}
				cred, err := exchange(fctx, "exchange", url.Values{"grant_type": {"authorization_code"}, "code": {code},
					"code_verifier": {verifier}, "redirect_uri": {redirect}}, nil)
				if err != nil {
					return nil, err
				}
				extras, err := g.discover(fctx, cred.Access)
				if err != nil {
					return nil, err
				}
				for k, v := range extras {
					cred.SetExtra(k, v)
				}
				return cred, nil
			})
			return f, nil
		},
		refresh: func(ctx context.Context, cur *models.Credential) (*models.Credential, error) {
			return exchange(ctx, "refresh", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {cur.Refresh}}, cur)
		},
		use: g.use,
	}
}

// projectUse is how both Google sign-ins authenticate: the access token,
// the project as X-Goog-User-Project, and the Cloud Code origin.
func projectUse(label string) func(cr *models.Credential) (models.OAuthUse, error) {
	return func(cr *models.Credential) (models.OAuthUse, error) {
		pid := cr.ExtraString("projectId")
		if pid == "" {
			return models.OAuthUse{}, errors.New("missing " + label + " project")
		}
		return models.OAuthUse{APIKey: cr.Access, Headers: map[string]string{"X-Goog-User-Project": pid}, BaseURL: cr.ExtraString("baseUrl")}, nil
	}
}
