package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/auth"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm/llmtest"
	"github.com/relay-agent/relay/internal/models"
)

func chatgptToken(account, tag string) string {
	b, _ := json.Marshal(map[string]any{"https://api.openai.com/auth": map[string]string{"chatgpt_account_id": account}, "tag": tag})
	return "eyJhbGciOiJSUzI1NiJ9." + base64.RawURLEncoding.EncodeToString(b) + ".sig"
}

// TestCodexSubscriptionPastExpiry runs relay -p on an openai-codex model
// whose stored ChatGPT token is about to expire: the token is renewed
// once against the fake auth server before the request, the request goes
// to the Codex endpoint with the new token and its account id, and a
// second run uses the saved token without another refresh.
func TestCodexSubscriptionPastExpiry(t *testing.T) {
	srv, agent := fakeProviderEnv(t, llmtest.Response{Text: "first"}, llmtest.Response{Text: "second"})
	fresh := chatgptToken("acct-5", "new")
	var refreshes atomic.Int32
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		f, _ := url.ParseQuery(string(body))
		if r.URL.Path != "/oauth/token" || f.Get("grant_type") != "refresh_token" || f.Get("refresh_token") != "rt-old" {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		refreshes.Add(1)
		fmt.Fprintf(w, `{"access_token":%q,"refresh_token":"rt-new","expires_in":864000}`, fresh)
	}))
	defer tokens.Close()
	old := newSignIns
	newSignIns = func(env config.Env, _ *models.Registry) *auth.Set {
		return auth.New(auth.Config{Getenv: env.Get, Codex: auth.CodexEndpoints{Base: tokens.URL}})
	}
	defer func() { newSignIns = old }()

	os.WriteFile(filepath.Join(agent, "models.json"), []byte(fmt.Sprintf(`{"providers":{"openai-codex":{"baseUrl":%q}}}`, srv.URL)), 0o644)
	os.WriteFile(filepath.Join(agent, "auth.json"), []byte(fmt.Sprintf(
		`{"openai-codex":{"type":"oauth","access":%q,"refresh":"rt-old","expires":%d,"accountId":"acct-5"}}`,
		chatgptToken("acct-5", "old"), time.Now().Add(time.Minute).UnixMilli())), 0o600)

	for i, want := range []string{"first", "second"} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), []string{"-p", "--model", "openai-codex/gpt-5.5", "hi"}, strings.NewReader(""), &out, &errb)
		if code != 0 || strings.TrimSpace(out.String()) != want {
			t.Fatalf("run %d: exit %d stdout %q stderr %s", i, code, out.String(), errb.String())
		}
	}
	if n := refreshes.Load(); n != 1 {
		t.Fatalf("%d refreshes, want 1", n)
	}
	for _, rq := range srv.Requests() {
		if rq.Path != "/codex/responses" || rq.Header.Get("Authorization") != "Bearer "+fresh || rq.Header.Get("Chatgpt-Account-Id") != "acct-5" {
			t.Fatalf("request %s %v", rq.Path, rq.Header)
		}
		if _, ok := rq.Body["instructions"].(string); !ok {
			t.Fatalf("no instructions: %v", rq.Body)
		}
	}
	data, _ := os.ReadFile(filepath.Join(agent, "auth.json"))
	if !strings.Contains(string(data), `"refresh":"rt-new"`) || !strings.Contains(string(data), `"accountId":"acct-5"`) {
		t.Fatalf("auth.json %s", data)
	}
}

// TestRevokedSubscriptionSaysSignInAgain: a refresh the server refuses for
// good stops the request with the command to run, and keeps auth.json.
func TestRevokedSubscriptionSaysSignInAgain(t *testing.T) {
	srv, agent := fakeProviderEnv(t, llmtest.Response{Text: "never"})
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		io.WriteString(w, `{"error":"invalid_grant","error_description":"refresh token revoked"}`)
	}))
	defer tokens.Close()
	old := newSignIns
	newSignIns = func(env config.Env, _ *models.Registry) *auth.Set {
		return auth.New(auth.Config{Getenv: env.Get, Anthropic: auth.AnthropicEndpoints{Token: tokens.URL}})
	}
	defer func() { newSignIns = old }()
	t.Setenv("ANTHROPIC_API_KEY", "")
	before := fmt.Sprintf(`{"anthropic":{"type":"oauth","access":"sk-ant-oat01-old","refresh":"r","expires":%d}}`, time.Now().Add(-time.Hour).UnixMilli())
	os.WriteFile(filepath.Join(agent, "auth.json"), []byte(before), 0o600)
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"-p", "--model", "anthropic/claude-sonnet-4-5", "hi"}, strings.NewReader(""), &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "sign in again: run /login anthropic") {
		t.Fatalf("exit %d stdout %q stderr %s", code, out.String(), errb.String())
	}
	if len(srv.Requests()) != 0 {
		t.Fatalf("%d model requests with a revoked sign-in", len(srv.Requests()))
	}
	if after, _ := os.ReadFile(filepath.Join(agent, "auth.json")); string(after) != before {
		t.Fatalf("auth.json changed: %s", after)
	}
}

// TestCopilotSubscriptionRequest: a GitHub Copilot sign-in sends the
// request to the endpoint its token names, with the Copilot token as the
// bearer and the editor headers.
func TestCopilotSubscriptionRequest(t *testing.T) {
	srv, agent := fakeProviderEnv(t, llmtest.Response{Text: "hello from copilot"})
	old := newSignIns
	newSignIns = func(env config.Env, _ *models.Registry) *auth.Set {
		return auth.New(auth.Config{Getenv: env.Get, Copilot: auth.CopilotEndpoints{CopilotAPI: srv.URL}})
	}
	defer func() { newSignIns = old }()
	os.WriteFile(filepath.Join(agent, "models.json"), []byte(`{"providers":{"github-copilot":{"baseUrl":"https://api.individual.githubcopilot.com","api":"openai-completions","models":[{"id":"gpt-x"}]}}}`), 0o644)
	token := "tid=1;exp=9;proxy-ep=proxy.individual.githubcopilot.com;"
	os.WriteFile(filepath.Join(agent, "auth.json"), []byte(fmt.Sprintf(
		`{"github-copilot":{"type":"oauth","access":%q,"refresh":"gho_x","expires":%d}}`, token, time.Now().Add(time.Hour).UnixMilli())), 0o600)
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"-p", "--model", "github-copilot/gpt-x", "hi"}, strings.NewReader(""), &out, &errb); code != 0 ||
		strings.TrimSpace(out.String()) != "hello from copilot" {
		t.Fatalf("exit %d stdout %q stderr %s", code, out.String(), errb.String())
	}
	h := srv.Requests()[0].Header
	if h.Get("Authorization") != "Bearer "+token || h.Get("Editor-Version") != "vscode/1.107.0" || h.Get("Copilot-Integration-Id") != "vscode-chat" ||
		h.Get("X-Initiator") != "user" {
		t.Fatalf("headers %v", h)
	}
}
