package auth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/models"
)

// authServer is a fake authorization server: it records requests by path
// and answers with handlers the test sets.
type authServer struct {
	*httptest.Server
	mu       sync.Mutex
	seen     map[string][]request
	handlers map[string]func(w http.ResponseWriter, rq request)
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{seen: map[string][]request{}, handlers: map[string]func(http.ResponseWriter, request){}}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq := record(r)
		a.mu.Lock()
		a.seen[r.URL.Path] = append(a.seen[r.URL.Path], rq)
		h := a.handlers[r.URL.Path]
		a.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, rq)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *authServer) handle(path string, h func(w http.ResponseWriter, rq request)) {
	a.mu.Lock()
	a.handlers[path] = h
	a.mu.Unlock()
}

func reply(status int, body string) func(http.ResponseWriter, request) {
	return func(w http.ResponseWriter, _ request) {
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// dropConn closes the connection without an answer (the network dropping).
func dropConn(w http.ResponseWriter, _ request) {
	conn, _, _ := w.(http.Hijacker).Hijack()
	conn.Close()
}

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// browse plays the browser coming back to the redirect URI.
func browse(t *testing.T, redirect string, q url.Values) int {
	t.Helper()
	resp, err := http.Get(redirect + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func wait(t *testing.T, f *Flow) (*models.Credential, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return f.Wait(ctx)
}

func testSet(a *authServer) *Set {
	return New(Config{Getenv: func(k string) string {
		return map[string]string{"RELAY_AI_ANTIGRAVITY_CLIENT_ID": "cid", "RELAY_AI_ANTIGRAVITY_CLIENT_SECRET": "secret"}[k]
	},
		Anthropic: AnthropicEndpoints{Authorize: a.URL + "/oauth/authorize", Token: a.URL + "/v1/oauth/token",
			CopyCodeRedirect: a.URL + "/oauth/code/callback", CallbackPort: -1},
		Codex:       CodexEndpoints{Base: a.URL, CallbackPort: -1, PollInterval: time.Millisecond},
		Copilot:     CopilotEndpoints{GitHub: a.URL, API: a.URL, CopilotAPI: a.URL, PollInterval: time.Millisecond, ModelIDs: []string{"claude-x", "gpt-5"}},
		Antigravity: AntigravityEndpoints{Authorize: a.URL + "/o/oauth2/v2/auth", Token: a.URL + "/token", CodeAssist: []string{a.URL + "/daily", a.URL + "/prod"}, CallbackPort: -1},
	})
}

// anthropicToken checks an authorization_code exchange like the real
// endpoint: the verifier must match the challenge of the authorize URL.
func anthropicToken(t *testing.T, authURL *url.URL) func(http.ResponseWriter, request) {
	return func(w http.ResponseWriter, rq request) {
		q := authURL.Query()
		if rq.JSON["grant_type"] != "authorization_code" || rq.JSON["code"] != "the-code" ||
			s256(fmt.Sprint(rq.JSON["code_verifier"])) != q.Get("code_challenge") ||
			rq.JSON["redirect_uri"] != q.Get("redirect_uri") || rq.JSON["client_id"] != q.Get("client_id") ||
			rq.JSON["state"] != q.Get("state") {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		io.WriteString(w, `{"access_token":"sk-ant-oat01-new","refresh_token":"sk-ant-ort01-r","expires_in":28800,"token_type":"Bearer"}`)
	}
}

func TestAnthropicBrowserSignIn(t *testing.T) {
	a := newAuthServer(t)
	f, err := testSet(a).Get("anthropic").Start(context.Background(), LoginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(f.URL)
	q := u.Query()
	if u.Path != "/oauth/authorize" || q.Get("code") != "true" || q.Get("response_type") != "code" || q.Get("scope") != anthropicScopes ||
		q.Get("code_challenge_method") != "S256" || q.Get("client_id") != anthropicDefaults.ClientID ||
		!strings.HasPrefix(q.Get("redirect_uri"), "http://localhost:") || !strings.HasSuffix(q.Get("redirect_uri"), "/callback") {
		t.Fatalf("authorize URL %s", f.URL)
	}
	a.handle("/v1/oauth/token", anthropicToken(t, u))
	redirect := strings.Replace(q.Get("redirect_uri"), "localhost", "127.0.0.1", 1)
	// An answer for another sign-in is refused and the flow keeps waiting.
	if st := browse(t, redirect, url.Values{"code": {"x"}, "state": {"other"}}); st != 400 {
		t.Fatalf("state mismatch answered %d", st)
	}
	if st := browse(t, redirect, url.Values{"code": {"the-code"}, "state": {q.Get("state")}}); st != 200 {
		t.Fatalf("callback answered %d", st)
	}
	c, err := wait(t, f)
	if err != nil || c.Access != "sk-ant-oat01-new" || c.Refresh != "sk-ant-ort01-r" || c.Type != "oauth" {
		t.Fatalf("got %+v, %v", c, err)
	}
}

func TestAnthropicCopyCodeSignIn(t *testing.T) {
	a := newAuthServer(t)
	f, err := testSet(a).Get("anthropic").Start(context.Background(), LoginOptions{NoBrowser: true})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(f.URL)
	if u.Query().Get("redirect_uri") != a.URL+"/oauth/code/callback" || !f.AcceptsInput {
		t.Fatalf("copy-code URL %s", f.URL)
	}
	a.handle("/v1/oauth/token", anthropicToken(t, u))
	if err := f.Submit("  the-code#" + u.Query().Get("state") + "\n"); err != nil {
		t.Fatal(err)
	}
	if c, err := wait(t, f); err != nil || c.Access != "sk-ant-oat01-new" {
		t.Fatalf("got %+v, %v", c, err)
	}
}

func TestSignInFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		token   func(http.ResponseWriter, request)
		act     func(t *testing.T, f *Flow, q url.Values)
		wantErr string
	}{
		{name: "denied consent", act: func(t *testing.T, f *Flow, q url.Values) {
			browse(t, strings.Replace(q.Get("redirect_uri"), "localhost", "127.0.0.1", 1), url.Values{"error": {"access_denied"}, "state": {q.Get("state")}})
		}, wantErr: "Anthropic sign-in was denied (access_denied)"},
		{name: "pasted answer of another sign-in", act: func(t *testing.T, f *Flow, q url.Values) {
			f.Submit("code#not-the-state")
		}, wantErr: "state mismatch"},
		{name: "pasted denial", act: func(t *testing.T, f *Flow, q url.Values) {
			f.Submit("http://localhost:53692/callback?error=access_denied&state=" + q.Get("state"))
		}, wantErr: "denied"},
		{name: "empty paste", act: func(t *testing.T, f *Flow, q url.Values) { f.Submit("   ") }, wantErr: "no authorization code"},
		{name: "wrong client id", token: reply(401, `{"error":"invalid_client"}`), act: func(t *testing.T, f *Flow, q url.Values) {
			f.Submit("the-code#" + q.Get("state"))
		}, wantErr: "refused (401 invalid_client)"},
		{name: "malformed token answer", token: reply(200, `{"access_token":"a","refresh_token":`), act: func(t *testing.T, f *Flow, q url.Values) {
			f.Submit("the-code")
		}, wantErr: "not JSON"},
		{name: "network drop during exchange", token: dropConn, act: func(t *testing.T, f *Flow, q url.Values) {
			f.Submit("the-code")
		}, wantErr: "(network)"},
		{name: "cancelled", act: func(t *testing.T, f *Flow, q url.Values) { f.Cancel() }, wantErr: "context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAuthServer(t)
			f, err := testSet(a).Get("anthropic").Start(context.Background(), LoginOptions{})
			if err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse(f.URL)
			if tc.token != nil {
				a.handle("/v1/oauth/token", tc.token)
			}
			tc.act(t, f, u.Query())
			c, err := wait(t, f)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || c != nil {
				t.Fatalf("got %+v, %v; want error %q", c, err, tc.wantErr)
			}
		})
	}
}

func TestCodexBrowserSignIn(t *testing.T) {
	a := newAuthServer(t)
	f, err := testSet(a).Get("openai-codex").Start(context.Background(), LoginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(f.URL)
	q := u.Query()
	if u.Path != "/oauth/authorize" || q.Get("scope") != codexScope || q.Get("originator") != "pi" ||
		q.Get("codex_cli_simplified_flow") != "true" || q.Get("id_token_add_organizations") != "true" ||
		!strings.HasSuffix(q.Get("redirect_uri"), "/auth/callback") || len(q.Get("state")) != 32 {
		t.Fatalf("authorize URL %s", f.URL)
	}
	access := codexToken("acct-42")
	a.handle("/oauth/token", func(w http.ResponseWriter, rq request) {
		if rq.Form.Get("grant_type") != "authorization_code" || s256(rq.Form.Get("code_verifier")) != q.Get("code_challenge") ||
			rq.Form.Get("redirect_uri") != q.Get("redirect_uri") || rq.Form.Get("code") != "c0de" {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		fmt.Fprintf(w, `{"access_token":%q,"refresh_token":"rt","expires_in":864000,"id_token":"x"}`, access)
	})
	browse(t, strings.Replace(q.Get("redirect_uri"), "localhost", "127.0.0.1", 1), url.Values{"code": {"c0de"}, "state": {q.Get("state")}})
	c, err := wait(t, f)
	if err != nil || c.Access != access || c.ExtraString("accountId") != "acct-42" {
		t.Fatalf("got %+v, %v", c, err)
	}
}

func TestCodexDeviceSignIn(t *testing.T) {
	a := newAuthServer(t)
	a.handle("/api/accounts/deviceauth/usercode", reply(200, `{"device_auth_id":"dev-1","user_code":"ABCD-1234","interval":"5"}`))
	polls := 0
	a.handle("/api/accounts/deviceauth/token", func(w http.ResponseWriter, rq request) {
		polls++
		switch {
		case rq.JSON["device_auth_id"] != "dev-1" || rq.JSON["user_code"] != "ABCD-1234":
			reply(400, `{"error":"bad"}`)(w, rq)
		case polls == 1:
			reply(403, ``)(w, rq)
		case polls == 2:
			reply(400, `{"error":{"code":"deviceauth_authorization_pending"}}`)(w, rq)
		default:
			reply(200, `{"authorization_code":"dc","code_verifier":"dv"}`)(w, rq)
		}
	})
	a.handle("/oauth/token", func(w http.ResponseWriter, rq request) {
		if rq.Form.Get("code") != "dc" || rq.Form.Get("code_verifier") != "dv" || rq.Form.Get("redirect_uri") != a.URL+"/deviceauth/callback" {
			reply(400, `{"error":"invalid_grant"}`)(w, rq)
			return
		}
		fmt.Fprintf(w, `{"access_token":%q,"refresh_token":"rt","expires_in":60}`, codexToken("acct-d"))
	})
	f, err := testSet(a).Get("openai-codex").Start(context.Background(), LoginOptions{NoBrowser: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.UserCode != "ABCD-1234" || f.URL != a.URL+"/codex/device" || f.AcceptsInput {
		t.Fatalf("flow %+v", f)
	}
	if c, err := wait(t, f); err != nil || c.ExtraString("accountId") != "acct-d" {
		t.Fatalf("got %+v, %v", c, err)
	}
	// Not enabled on the server.
	b := newAuthServer(t)
	if _, err := testSet(b).Get("openai-codex").Start(context.Background(), LoginOptions{Method: MethodDeviceCode}); err == nil || !strings.Contains(err.Error(), "not enabled") {
		t.Fatalf("err = %v", err)
	}
}

func TestCopilotDeviceSignIn(t *testing.T) {
	a := newAuthServer(t)
	a.handle("/login/device/code", func(w http.ResponseWriter, rq request) {
		if rq.Form.Get("client_id") != copilotClientID || rq.Form.Get("scope") != "read:user" {
			reply(400, `{"error":"bad"}`)(w, rq)
			return
		}
		fmt.Fprintf(w, `{"device_code":"dc","user_code":"WXYZ-0000","verification_uri":"https://github.com/login/device","interval":5,"expires_in":900}`)
	})
	polls := 0
	a.handle("/login/oauth/access_token", func(w http.ResponseWriter, rq request) {
		polls++
		if rq.Form.Get("device_code") != "dc" || rq.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:device_code" {
			reply(200, `{"error":"bad_verification_code"}`)(w, rq)
			return
		}
		switch polls {
		case 1:
			reply(200, `{"error":"authorization_pending"}`)(w, rq)
		case 2:
			reply(200, `{"error":"slow_down","interval":10}`)(w, rq)
		default:
			reply(200, `{"access_token":"gho_abc","token_type":"bearer","scope":"read:user"}`)(w, rq)
		}
	})
	a.handle("/copilot_internal/v2/token", reply(200, `{"token":"tid=9;proxy-ep=proxy.individual.githubcopilot.com;","expires_at":1900000000}`))
	var enabled sync.Map
	for _, id := range []string{"claude-x", "gpt-5"} {
		a.handle("/models/"+id+"/policy", func(w http.ResponseWriter, rq request) {
			if rq.JSON["state"] == "enabled" && rq.Header.Get("Openai-Intent") == "chat-policy" {
				enabled.Store(id, true)
			}
			reply(200, `{}`)(w, rq)
		})
	}
	a.handle("/models", reply(200, `{"data":[{"id":"gpt-5","model_picker_enabled":true},{"id":"claude-x","model_picker_enabled":true}]}`))
	f, err := testSet(a).Get("github-copilot").Start(context.Background(), LoginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.UserCode != "WXYZ-0000" || f.URL != "https://github.com/login/device" {
		t.Fatalf("flow %+v", f)
	}
	c, err := wait(t, f)
	if err != nil || c.Access != "tid=9;proxy-ep=proxy.individual.githubcopilot.com;" || c.Refresh != "gho_abc" ||
		string(c.Extra["availableModelIds"]) != `["gpt-5","claude-x"]` {
		t.Fatalf("got %+v, %v", c, err)
	}
	for _, id := range []string{"claude-x", "gpt-5"} {
		if _, ok := enabled.Load(id); !ok {
			t.Errorf("model %s not enabled", id)
		}
	}
}

func TestCopilotDeviceFailures(t *testing.T) {
	for _, tc := range []struct {
		name, device, poll, wantErr string
		domain                      string
	}{
		{name: "denied", device: `{"device_code":"d","user_code":"u","verification_uri":"https://g/x","expires_in":900}`,
			poll: `{"error":"access_denied"}`, wantErr: "denied"},
		{name: "code expired", device: `{"device_code":"d","user_code":"u","verification_uri":"https://g/x","expires_in":0.05}`,
			poll: `{"error":"authorization_pending"}`, wantErr: "expired"},
		{name: "untrusted page", device: `{"device_code":"d","user_code":"u","verification_uri":"file:///etc/passwd","expires_in":900}`,
			wantErr: "untrusted verification_uri"},
		{name: "malformed device answer", device: `{"device_code":"d"}`, wantErr: "invalid answer"},
		{name: "bad enterprise domain", domain: "http://", wantErr: "invalid GitHub Enterprise"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAuthServer(t)
			a.handle("/login/device/code", reply(200, tc.device))
			a.handle("/login/oauth/access_token", reply(200, tc.poll))
			f, err := testSet(a).Get("github-copilot").Start(context.Background(), LoginOptions{Domain: tc.domain})
			if err == nil {
				_, err = wait(t, f)
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestAntigravitySignIn(t *testing.T) {
	a := newAuthServer(t)
	f, err := testSet(a).Get("google-antigravity").Start(context.Background(), LoginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(f.URL)
	q := u.Query()
	if q.Get("access_type") != "offline" || q.Get("prompt") != "consent" || q.Get("client_id") != "cid" ||
		!strings.Contains(q.Get("scope"), "https://www.googleapis.com/auth/cloud-platform") {
		t.Fatalf("authorize URL %s", f.URL)
	}
	a.handle("/token", func(w http.ResponseWriter, rq request) {
		if rq.Form.Get("client_secret") != "secret" || s256(rq.Form.Get("code_verifier")) != q.Get("code_challenge") {
			reply(400, `{"error":"invalid_grant"}`)(w, rq)
			return
		}
		reply(200, `{"access_token":"ya29.a","refresh_token":"1//r","expires_in":3599}`)(w, rq)
	})
	a.handle("/daily/v1internal:loadCodeAssist", reply(404, ``))
	a.handle("/prod/v1internal:loadCodeAssist", func(w http.ResponseWriter, rq request) {
		if rq.Header.Get("Authorization") != "Bearer ya29.a" || !strings.HasPrefix(rq.Header.Get("User-Agent"), "antigravity/") {
			reply(401, ``)(w, rq)
			return
		}
		reply(200, `{"cloudaicompanionProject":{"id":"proj-7"}}`)(w, rq)
	})
	// Pasting the redirect URL finishes it too (the browser elsewhere).
	f.Submit(q.Get("redirect_uri") + "?state=" + q.Get("state") + "&code=4/0abc")
	c, err := wait(t, f)
	if err != nil || c.ExtraString("projectId") != "proj-7" || c.ExtraString("baseUrl") != a.URL+"/prod" || c.Refresh != "1//r" {
		t.Fatalf("got %+v, %v", c, err)
	}
	// Without the client id the sign-in explains what to set.
	if _, err := New(Config{}).Get("google-antigravity").Start(context.Background(), LoginOptions{}); err == nil || !strings.Contains(err.Error(), "RELAY_AI_ANTIGRAVITY_CLIENT_ID") {
		t.Fatalf("err = %v", err)
	}
}

func TestGeminiCLISignIn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		load    string
		wantPID string
		wantErr string
	}{
		{name: "existing project", load: `{"cloudaicompanionProject":"proj-existing","currentTier":{"id":"standard-tier"}}`, wantPID: "proj-existing"},
		{name: "free tier is onboarded", load: `{"allowedTiers":[{"id":"legacy-tier"},{"id":"free-tier","isDefault":true}]}`, wantPID: "proj-free"},
		{name: "paid tier needs a project", load: `{"currentTier":{"id":"standard-tier"}}`, wantErr: "set GOOGLE_CLOUD_PROJECT"},
		{name: "paid tier with a project", env: map[string]string{"GOOGLE_CLOUD_PROJECT": "mine"}, load: `{"currentTier":{"id":"standard-tier"}}`, wantPID: "mine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAuthServer(t)
			set := New(Config{Getenv: func(k string) string { return tc.env[k] },
				GeminiCLI: GeminiCLIEndpoints{Authorize: a.URL + "/auth", Token: a.URL + "/token", CodeAssist: a.URL, CallbackPort: -1, PollInterval: time.Millisecond}})
			f, err := set.Get("google-gemini-cli").Start(context.Background(), LoginOptions{})
			if err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse(f.URL)
			q := u.Query()
			if q.Get("client_id") != geminiCLIClientID || !strings.HasSuffix(q.Get("redirect_uri"), "/oauth2callback") {
				t.Fatalf("authorize URL %s", f.URL)
			}
			a.handle("/token", func(w http.ResponseWriter, rq request) {
				if rq.Form.Get("client_secret") != geminiCLIClientSecret || s256(rq.Form.Get("code_verifier")) != q.Get("code_challenge") {
					reply(400, `{"error":"invalid_grant"}`)(w, rq)
					return
				}
				reply(200, `{"access_token":"ya29.g","refresh_token":"1//g","expires_in":3599}`)(w, rq)
			})
			a.handle("/v1internal:loadCodeAssist", func(w http.ResponseWriter, rq request) {
				meta, _ := rq.JSON["metadata"].(map[string]any)
				if rq.Header.Get("Authorization") != "Bearer ya29.g" || meta["pluginType"] != "GEMINI" {
					reply(401, ``)(w, rq)
					return
				}
				reply(200, tc.load)(w, rq)
			})
			a.handle("/v1internal:onboardUser", func(w http.ResponseWriter, rq request) {
				if rq.JSON["tierId"] != "free-tier" {
					reply(400, `{"error":"tier"}`)(w, rq)
					return
				}
				reply(200, `{"name":"operations/onb-1","done":false}`)(w, rq)
			})
			a.handle("/v1internal/operations/onb-1", reply(200, `{"name":"operations/onb-1","done":true,"response":{"cloudaicompanionProject":{"id":"proj-free"}}}`))
			browse(t, strings.Replace(q.Get("redirect_uri"), "localhost", "127.0.0.1", 1), url.Values{"code": {"4/x"}, "state": {q.Get("state")}})
			c, err := wait(t, f)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil || c.ExtraString("projectId") != tc.wantPID || c.Refresh != "1//g" {
				t.Fatalf("got %+v, %v", c, err)
			}
			if u, err := set.Get("google-gemini-cli").Use(c); err != nil || u.Headers["X-Goog-User-Project"] != tc.wantPID || u.BaseURL != a.URL {
				t.Fatalf("use %+v %v", u, err)
			}
		})
	}
}
