package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/models"
)

// CopilotEndpoints are GitHub Copilot sign-in's servers (zero = real:
// derived from the GitHub domain).
type CopilotEndpoints struct {
	// GitHub is the web origin (https://github.com, or an Enterprise
	// host): device code and access token endpoints.
	GitHub string
	// API is the REST origin the Copilot token comes from
	// (https://api.github.com).
	API string
	// CopilotAPI replaces the chat endpoint taken from the token (tests).
	CopilotAPI string
	ClientID   string
	// PollInterval overrides the device flow's interval (tests).
	PollInterval time.Duration
	// ModelIDs are enabled after sign-in (the catalog's Copilot models).
	ModelIDs []string
}

var copilotClientID = mustB64("SXYxLmI1MDdhMDhjODdlY2ZlOTg=")

// CopilotHeaders identify relay to Copilot the way the original does (an
// editor integration); every Copilot request carries them.
var CopilotHeaders = map[string]string{
	"User-Agent":             "GitHubCopilotChat/0.35.0",
	"Editor-Version":         "vscode/1.107.0",
	"Editor-Plugin-Version":  "copilot-chat/0.35.0",
	"Copilot-Integration-Id": "vscode-chat",
}

const copilotAPIVersion = "2026-06-01"

var proxyEP = regexp.MustCompile(`proxy-ep=([^;]+)`)

// CopilotBaseURL is the chat endpoint of a Copilot token: its proxy-ep
// with "proxy." turned into "api.", else the Enterprise or individual
// default.
func CopilotBaseURL(token, enterprise string) string {
	if m := proxyEP.FindStringSubmatch(token); m != nil {
		host := m[1]
		if strings.HasPrefix(host, "proxy.") {
			host = "api." + strings.TrimPrefix(host, "proxy.")
		}
		return "https://" + host
	}
	if enterprise != "" {
		return "https://copilot-api." + enterprise
	}
	return "https://api.individual.githubcopilot.com"
}

func normalizeDomain(in string) (string, error) {
	s := strings.TrimSpace(in)
	if s == "" {
		return "", nil
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" {
		return "", fmt.Errorf("invalid GitHub Enterprise URL or domain %q", in)
	}
	return u.Hostname(), nil
}

func copilotProvider(c *Config) *Provider {
	e := c.Copilot
	fill(&e.ClientID, copilotClientID)
	origins := func(domain string) (web, api string) {
		if domain == "" {
			domain = "github.com"
		}
		web, api = "https://"+domain, "https://api."+domain
		if e.GitHub != "" {
			web = e.GitHub
		}
		if e.API != "" {
			api = e.API
		}
		return web, api
	}
	base := func(token, enterprise string) string {
		if e.CopilotAPI != "" {
			return e.CopilotAPI
		}
		return CopilotBaseURL(token, enterprise)
	}
	hdr := func(token string, more map[string]string) map[string]string {
		h := map[string]string{"Accept": "application/json", "Authorization": "Bearer " + token}
		for k, v := range CopilotHeaders {
			h[k] = v
		}
		for k, v := range more {
			h[k] = v
		}
		return h
	}
	// copilotToken exchanges the GitHub OAuth token (the credential's
	// refresh) for a short-lived Copilot token (its access).
	copilotToken := func(ctx context.Context, github, enterprise string) (*models.Credential, error) {
		_, api := origins(enterprise)
		st, body, err := call(ctx, c.HTTP, "GET", api+"/copilot_internal/v2/token", nil, hdr(github, nil))
		if err != nil {
			return nil, wrapNet("GitHub Copilot token", err)
		}
		if st == http.StatusUnauthorized || st == http.StatusForbidden {
			return nil, fmt.Errorf("GitHub Copilot token refused (%d): %s: %w", st, snippet(body), models.ErrRevoked)
		}
		if st != http.StatusOK {
			return nil, fmt.Errorf("GitHub Copilot token failed (%d): %s", st, snippet(body))
		}
		var t struct {
			Token     string   `json:"token"`
			ExpiresAt *float64 `json:"expires_at"`
		}
		if json.Unmarshal(body, &t) != nil || t.Token == "" || t.ExpiresAt == nil {
			return nil, fmt.Errorf("GitHub Copilot token: invalid answer: %s", snippet(body))
		}
		cred := &models.Credential{Type: "oauth", Access: t.Token, Refresh: github,
			Expires: int64(*t.ExpiresAt*1000) - int64(5*time.Minute/time.Millisecond)}
		if enterprise != "" {
			cred.SetExtra("enterpriseUrl", enterprise)
		}
		return cred, nil
	}
	// available lists the model ids the account may use: those enabled in
	// the model picker (not disabled by policy), else those whose policy is
	// enabled; models without tool calls are left out.
	available := func(ctx context.Context, token, enterprise string) ([]string, error) {
		st, body, err := call(ctx, c.HTTP, "GET", base(token, enterprise)+"/models", nil,
			hdr(token, map[string]string{"X-GitHub-Api-Version": copilotAPIVersion}))
		if err != nil {
			return nil, wrapNet("GitHub Copilot models", err)
		}
		if st != http.StatusOK {
			return nil, fmt.Errorf("GitHub Copilot models failed (%d): %s", st, snippet(body))
		}
		var r struct {
			Data []struct {
				ID           string `json:"id"`
				PickerOn     bool   `json:"model_picker_enabled"`
				Capabilities struct {
					Supports struct {
						ToolCalls *bool `json:"tool_calls"`
					} `json:"supports"`
				} `json:"capabilities"`
				Policy struct {
					State string `json:"state"`
				} `json:"policy"`
			} `json:"data"`
		}
		if json.Unmarshal(body, &r) != nil || r.Data == nil {
			return nil, fmt.Errorf("GitHub Copilot models: invalid answer: %s", snippet(body))
		}
		var picker, policy []string
		for _, m := range r.Data {
			if m.ID == "" || (m.Capabilities.Supports.ToolCalls != nil && !*m.Capabilities.Supports.ToolCalls) {
				continue
			}
			if m.PickerOn && m.Policy.State != "disabled" {
				picker = append(picker, m.ID)
			}
			if m.Policy.State == "enabled" {
				policy = append(policy, m.ID)
			}
		}
		if len(picker) > 0 {
			return picker, nil
		}
		return policy, nil
	}
	// enable accepts a model's policy (some models, Claude and Grok among
	// them, need it once per account); failures are not fatal.
	enable := func(ctx context.Context, token, enterprise, id string) {
		_, _, _ = postJSON(ctx, c.HTTP, base(token, enterprise)+"/models/"+url.PathEscape(id)+"/policy",
			map[string]string{"state": "enabled"},
			hdr(token, map[string]string{"openai-intent": "chat-policy", "x-interaction-type": "chat-policy"}))
	}
	withModels := func(ctx context.Context, cred *models.Credential, enterprise string) (*models.Credential, error) {
		ids, err := available(ctx, cred.Access, enterprise)
		if err != nil {
			return nil, err
		}
		cred.SetExtra("availableModelIds", ids)
		return cred, nil
	}

	return &Provider{
		ID: "github-copilot", Name: "GitHub Copilot", Methods: []string{MethodDeviceCode},
		start: func(ctx context.Context, o LoginOptions) (*Flow, error) {
			enterprise, err := normalizeDomain(o.Domain)
			if err != nil {
				return nil, err
			}
			web, _ := origins(enterprise)
			st, body, err := postForm(ctx, c.HTTP, web+"/login/device/code",
				url.Values{"client_id": {e.ClientID}, "scope": {"read:user"}},
				map[string]string{"User-Agent": CopilotHeaders["User-Agent"]})
			if err != nil {
				return nil, wrapNet("GitHub device code", err)
			}
			if st != http.StatusOK {
				return nil, fmt.Errorf("GitHub device code request failed (%d): %s", st, snippet(body))
			}
			var d struct {
				DeviceCode string   `json:"device_code"`
				UserCode   string   `json:"user_code"`
				URI        string   `json:"verification_uri"`
				Interval   *float64 `json:"interval"`
				ExpiresIn  *float64 `json:"expires_in"`
			}
			if json.Unmarshal(body, &d) != nil || d.DeviceCode == "" || d.UserCode == "" || d.URI == "" || d.ExpiresIn == nil {
				return nil, fmt.Errorf("GitHub device code: invalid answer: %s", snippet(body))
			}
			// The page is shown (and may be opened): only http(s) URLs.
			if u, err := url.Parse(d.URI); err != nil || (u.Scheme != "https" && u.Scheme != "http") {
				return nil, errors.New("GitHub device code: untrusted verification_uri in the answer")
			}
			interval := e.PollInterval
			if interval == 0 {
				interval = 5 * time.Second
				if d.Interval != nil && *d.Interval > 0 {
					interval = time.Duration(*d.Interval * float64(time.Second))
				}
			}
			f, fctx := newFlow(ctx, "github-copilot")
			f.URL, f.UserCode = d.URI, d.UserCode
			f.Instructions = "Open the page and enter the code to sign in to GitHub Copilot."
			f.run(func() (*models.Credential, error) {
				dctx, cancel := context.WithTimeout(fctx, time.Duration(*d.ExpiresIn*float64(time.Second)))
				defer cancel()
				var github string
				for github == "" {
					select {
					case <-dctx.Done():
						return nil, fmt.Errorf("GitHub device sign-in: the code expired before it was entered (%w)", dctx.Err())
					case <-time.After(interval):
					}
					st, body, err := postForm(dctx, c.HTTP, web+"/login/oauth/access_token",
						url.Values{"client_id": {e.ClientID}, "device_code": {d.DeviceCode}, "grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}},
						map[string]string{"User-Agent": CopilotHeaders["User-Agent"]})
					if err != nil {
						if dctx.Err() != nil {
							return nil, fmt.Errorf("GitHub device sign-in: the code expired before it was entered (%w)", dctx.Err())
						}
						return nil, wrapNet("GitHub device sign-in", err)
					}
					var t struct {
						Access   string   `json:"access_token"`
						Error    string   `json:"error"`
						Desc     string   `json:"error_description"`
						Interval *float64 `json:"interval"`
					}
					if st != http.StatusOK || json.Unmarshal(body, &t) != nil {
						return nil, fmt.Errorf("GitHub device sign-in failed (%d): %s", st, snippet(body))
					}
					switch {
					case t.Access != "":
						github = t.Access
					case t.Error == "authorization_pending":
					case t.Error == "slow_down":
						// RFC 8628: wait longer from now on (a fixed test
						// interval stays).
						switch {
						case e.PollInterval != 0:
						case t.Interval != nil && *t.Interval > 0:
							interval = time.Duration(*t.Interval * float64(time.Second))
						default:
							interval += 5 * time.Second
						}
					case t.Error == "access_denied":
						return nil, errors.New("GitHub device sign-in was denied (access_denied)")
					case t.Error != "":
						return nil, fmt.Errorf("GitHub device sign-in failed: %s %s", t.Error, t.Desc)
					default:
						return nil, fmt.Errorf("GitHub device sign-in: invalid answer: %s", snippet(body))
					}
				}
				cred, err := copilotToken(dctx, github, enterprise)
				if err != nil {
					return nil, err
				}
				var wg sync.WaitGroup
				for _, id := range e.ModelIDs {
					wg.Add(1)
					go func() { defer wg.Done(); enable(dctx, cred.Access, enterprise, id) }()
				}
				wg.Wait()
				return withModels(dctx, cred, enterprise)
			})
			return f, nil
		},
		refresh: func(ctx context.Context, cur *models.Credential) (*models.Credential, error) {
			enterprise, _ := normalizeDomain(cur.ExtraString("enterpriseUrl"))
			cred, err := copilotToken(ctx, cur.Refresh, enterprise)
			if err != nil {
				return nil, err
			}
			// The model list is a convenience: when it cannot be read the
			// stored one stays (FreshOAuth keeps extras not set here).
			if withList, err := withModels(ctx, cred, enterprise); err == nil {
				cred = withList
			}
			return cred, nil
		},
		use: func(cr *models.Credential) (models.OAuthUse, error) {
			enterprise, _ := normalizeDomain(cr.ExtraString("enterpriseUrl"))
			// The editor headers on every request, and the token as a bearer
			// for every wire (the Anthropic client would otherwise send it
			// as x-api-key to Copilot's Claude models).
			h := map[string]string{"Authorization": "Bearer " + cr.Access}
			for k, v := range CopilotHeaders {
				h[k] = v
			}
			return models.OAuthUse{APIKey: cr.Access, BaseURL: base(cr.Access, enterprise), Headers: h}, nil
		},
	}
}
