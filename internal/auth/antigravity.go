package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
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
	// project asks Cloud Code Assist for the account's project
	// (loadCodeAssist) and remembers which origin answered.
	project := func(ctx context.Context, access string) (map[string]string, error) {
		version := firstNonEmpty(c.Getenv("RELAY_AI_ANTIGRAVITY_VERSION"), "1.21.9")
		hdr := map[string]string{"User-Agent": "antigravity/" + version, "Authorization": "Bearer " + access}
		body := map[string]any{"metadata": map[string]string{"ideType": "ANTIGRAVITY", "platform": "PLATFORM_UNSPECIFIED", "pluginType": "GEMINI"}}
		for i, origin := range e.CodeAssist {
			st, b, err := postJSON(ctx, c.HTTP, strings.TrimRight(origin, "/")+"/v1internal:loadCodeAssist", body, hdr)
			if err != nil {
				return nil, wrapNet("Antigravity loadCodeAssist", err)
			}
			if (st == http.StatusForbidden || st == http.StatusNotFound) && i < len(e.CodeAssist)-1 {
				continue
			}
			if st != http.StatusOK {
				return nil, fmt.Errorf("Antigravity loadCodeAssist failed (%d): %s", st, snippet(b))
			}
			var r struct {
				Project json.RawMessage `json:"cloudaicompanionProject"`
			}
			if json.Unmarshal(b, &r) != nil {
				return nil, fmt.Errorf("Antigravity loadCodeAssist: invalid answer: %s", snippet(b))
			}
			s := projectID(r.Project)
			if s == "" {
				return nil, errors.New("no Antigravity project found: open Antigravity and finish account setup, then sign in again")
			}
			return map[string]string{"projectId": s, "baseUrl": origin}, nil
		}
		return nil, errors.New("no Antigravity endpoint available")
	}
	return googleProvider(c, googleSpec{
		id: "google-antigravity", name: "Google Antigravity", label: "Antigravity",
		authorize: e.Authorize, token: e.Token, port: e.CallbackPort, defaultPort: antigravityDefaults.CallbackPort,
		path: "/oauth-callback", scopes: antigravityScopes,
		instructions: "Sign in with the Google account you use for Antigravity.",
		client: func(op string) (string, string, error) {
			id, secret := c.Getenv("RELAY_AI_ANTIGRAVITY_CLIENT_ID"), c.Getenv("RELAY_AI_ANTIGRAVITY_CLIENT_SECRET")
			if id == "" || secret == "" {
				return "", "", fmt.Errorf("set RELAY_AI_ANTIGRAVITY_CLIENT_ID and RELAY_AI_ANTIGRAVITY_CLIENT_SECRET to %s Google Antigravity", op)
			}
			return id, secret, nil
		},
		discover: project,
		use:      projectUse("Antigravity"),
	})
}

// projectID reads cloudaicompanionProject: a string or {"id": ...}.
func projectID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct{ ID string }
	_ = json.Unmarshal(raw, &o)
	return o.ID
}
