package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/models"
)

// fakeJWT is an unsigned token with the given claims, as the Codex token
// endpoint returns them.
func fakeJWT(claims map[string]any) string {
	b, _ := json.Marshal(claims)
	return "eyJhbGciOiJub25lIn0." + base64.RawURLEncoding.EncodeToString(b) + ".sig"
}

func codexToken(account string) string {
	return fakeJWT(map[string]any{"https://api.openai.com/auth": map[string]string{"chatgpt_account_id": account}})
}

var testNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// request is what a fake endpoint saw.
type request struct {
	Method, Path, Query string
	Header              http.Header
	Form                url.Values
	JSON                map[string]any
}

func record(r *http.Request) request {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	rq := request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		json.Unmarshal(body, &rq.JSON)
	} else {
		rq.Form, _ = url.ParseQuery(string(body))
	}
	return rq
}

func TestRefreshEachProvider(t *testing.T) {
	type answer struct {
		status int
		body   string
	}
	for _, tc := range []struct {
		provider string
		cur      *models.Credential
		answers  map[string]answer // path -> answer
		check    func(t *testing.T, seen map[string]request, got *models.Credential)
		wantErr  string
		revoked  bool
	}{
		{provider: "anthropic", cur: &models.Credential{Refresh: "r0"},
			answers: map[string]answer{"/v1/oauth/token": {200, `{"access_token":"sk-ant-oat01-x","refresh_token":"r1","expires_in":3600}`}},
			check: func(t *testing.T, seen map[string]request, got *models.Credential) {
				rq := seen["/v1/oauth/token"]
				if rq.JSON["grant_type"] != "refresh_token" || rq.JSON["refresh_token"] != "r0" || rq.JSON["client_id"] != anthropicDefaults.ClientID {
					t.Fatalf("request %+v", rq.JSON)
				}
				if got.Access != "sk-ant-oat01-x" || got.Refresh != "r1" || got.Expires != testNow.UnixMilli()+3600_000-300_000 {
					t.Fatalf("got %+v", got)
				}
			}},
		{provider: "anthropic", cur: &models.Credential{Refresh: "r0"}, revoked: true, wantErr: "invalid_grant",
			answers: map[string]answer{"/v1/oauth/token": {400, `{"error":"invalid_grant","error_description":"Refresh token not found or invalid"}`}}},
		{provider: "anthropic", cur: &models.Credential{Refresh: "r0"}, wantErr: "not JSON",
			answers: map[string]answer{"/v1/oauth/token": {200, `<html>`}}},
		{provider: "anthropic", cur: &models.Credential{Refresh: "r0"}, wantErr: "lacks expires_in",
			answers: map[string]answer{"/v1/oauth/token": {200, `{"access_token":"a"}`}}},
		{provider: "openai-codex", cur: &models.Credential{Refresh: "r0"},
			answers: map[string]answer{"/oauth/token": {200, fmt.Sprintf(`{"access_token":%q,"refresh_token":"r1","expires_in":"864000"}`, codexToken("acct-9"))}},
			check: func(t *testing.T, seen map[string]request, got *models.Credential) {
				f := seen["/oauth/token"].Form
				if f.Get("grant_type") != "refresh_token" || f.Get("refresh_token") != "r0" || f.Get("client_id") != codexDefaults.ClientID {
					t.Fatalf("form %v", f)
				}
				if got.ExtraString("accountId") != "acct-9" || got.Expires != testNow.UnixMilli()+864000_000 {
					t.Fatalf("got %+v", got)
				}
			}},
		{provider: "openai-codex", cur: &models.Credential{Refresh: "r0"}, wantErr: "no ChatGPT account id",
			answers: map[string]answer{"/oauth/token": {200, `{"access_token":"not-a-jwt","refresh_token":"r1","expires_in":10}`}}},
		{provider: "openai-codex", cur: &models.Credential{Refresh: "r0"}, revoked: true, wantErr: "refresh_token_reused",
			answers: map[string]answer{"/oauth/token": {401, `{"error":{"code":"refresh_token_reused","message":"used"}}`}}},
		{provider: "github-copilot", cur: func() *models.Credential {
			c := &models.Credential{Refresh: "gho_github"}
			c.SetExtra("enterpriseUrl", "ghe.example.com")
			return c
		}(),
			answers: map[string]answer{
				"/copilot_internal/v2/token": {200, `{"token":"tid=1;exp=2;proxy-ep=proxy.enterprise.githubcopilot.com;","expires_at":1767000000}`},
				"/models": {200, `{"data":[{"id":"gpt-5","model_picker_enabled":true,"policy":{"state":"enabled"}},` +
					`{"id":"embed","model_picker_enabled":true,"capabilities":{"supports":{"tool_calls":false}}},` +
					`{"id":"claude-x","model_picker_enabled":true,"policy":{"state":"disabled"}}]}`}},
			check: func(t *testing.T, seen map[string]request, got *models.Credential) {
				rq := seen["/copilot_internal/v2/token"]
				if rq.Header.Get("Authorization") != "Bearer gho_github" || rq.Header.Get("Editor-Version") != "vscode/1.107.0" {
					t.Fatalf("headers %v", rq.Header)
				}
				if seen["/models"].Header.Get("X-Github-Api-Version") != copilotAPIVersion {
					t.Fatalf("models headers %v", seen["/models"].Header)
				}
				if got.Refresh != "gho_github" || got.Expires != 1767000000_000-300_000 || got.ExtraString("enterpriseUrl") != "ghe.example.com" ||
					string(got.Extra["availableModelIds"]) != `["gpt-5"]` {
					t.Fatalf("got %+v extras %s", got, got.Extra["availableModelIds"])
				}
			}},
		{provider: "github-copilot", cur: &models.Credential{Refresh: "gho_revoked"}, revoked: true, wantErr: "401",
			answers: map[string]answer{"/copilot_internal/v2/token": {401, `{"message":"Bad credentials"}`}}},
		{provider: "google-antigravity", cur: func() *models.Credential {
			c := &models.Credential{Refresh: "1//r"}
			c.SetExtra("projectId", "proj-1")
			return c
		}(),
			answers: map[string]answer{"/token": {200, `{"access_token":"ya29.x","expires_in":3599}`}},
			check: func(t *testing.T, seen map[string]request, got *models.Credential) {
				f := seen["/token"].Form
				if f.Get("client_id") != "cid" || f.Get("client_secret") != "secret" || f.Get("refresh_token") != "1//r" {
					t.Fatalf("form %v", f)
				}
				if got.Refresh != "1//r" || got.Expires != testNow.UnixMilli()+3599_000-60_000 {
					t.Fatalf("got %+v", got)
				}
			}},
	} {
		t.Run(tc.provider+"/"+tc.wantErr, func(t *testing.T) {
			seen := map[string]request{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen[r.URL.Path] = record(r)
				a, ok := tc.answers[r.URL.Path]
				if !ok {
					http.NotFound(w, r)
					return
				}
				w.WriteHeader(a.status)
				io.WriteString(w, a.body)
			}))
			defer srv.Close()
			set := New(Config{Now: func() time.Time { return testNow }, Getenv: func(k string) string {
				return map[string]string{"RELAY_AI_ANTIGRAVITY_CLIENT_ID": "cid", "RELAY_AI_ANTIGRAVITY_CLIENT_SECRET": "secret"}[k]
			},
				Anthropic:   AnthropicEndpoints{Token: srv.URL + "/v1/oauth/token"},
				Codex:       CodexEndpoints{Base: srv.URL},
				Copilot:     CopilotEndpoints{API: srv.URL, CopilotAPI: srv.URL},
				Antigravity: AntigravityEndpoints{Token: srv.URL + "/token"},
			})
			tc.cur.Type = "oauth"
			got, err := set.Get(tc.provider).Refresh(context.Background(), tc.cur)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || errors.Is(err, models.ErrRevoked) != tc.revoked {
					t.Fatalf("err = %v (revoked %v)", err, errors.Is(err, models.ErrRevoked))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, seen, got)
		})
	}
}

func TestUse(t *testing.T) {
	set := New(Config{})
	c := &models.Credential{Type: "oauth", Access: "tid=1;proxy-ep=proxy.individual.githubcopilot.com;x=y"}
	if u, _ := set.Get("github-copilot").Use(c); u.BaseURL != "https://api.individual.githubcopilot.com" || u.APIKey != c.Access ||
		u.Headers["Authorization"] != "Bearer "+c.Access || u.Headers["Copilot-Integration-Id"] != "vscode-chat" {
		t.Fatalf("copilot %+v", u)
	}
	c = &models.Credential{Type: "oauth", Access: "opaque"}
	c.SetExtra("enterpriseUrl", "https://ghe.example.com/")
	if u, _ := set.Get("github-copilot").Use(c); u.BaseURL != "https://copilot-api.ghe.example.com" {
		t.Fatalf("enterprise %+v", u)
	}
	if _, err := set.Get("openai-codex").Use(&models.Credential{Access: "opaque"}); err == nil {
		t.Fatal("codex token without an account id was accepted")
	}
	g := &models.Credential{Access: "ya29"}
	if _, err := set.Get("google-antigravity").Use(g); err == nil {
		t.Fatal("antigravity without a project was accepted")
	}
	g.SetExtra("projectId", "p1")
	if u, _ := set.Get("google-antigravity").Use(g); u.Headers["X-Goog-User-Project"] != "p1" {
		t.Fatalf("antigravity %+v", u)
	}
	if set.OAuth("groq") != nil {
		t.Fatal("a provider without sign-in has one")
	}
}
