package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// fedServer is the token endpoint plus the Messages API of llmtest.
type fedServer struct {
	*httptest.Server
	api *llmtest.Server

	mu        sync.Mutex
	exchanges []map[string]string
	refuse    bool
}

func newFedServer(t *testing.T, answers ...llmtest.Response) *fedServer {
	f := &fedServer{api: llmtest.NewServer(&llmtest.Script{Responses: answers})}
	t.Cleanup(f.api.Close)
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/oauth/token" {
			f.api.ServeHTTP(w, r)
			return
		}
		var body map[string]string
		json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.exchanges = append(f.exchanges, body)
		n, refuse := len(f.exchanges), f.refuse
		f.mu.Unlock()
		if refuse || body["grant_type"] != jwtBearerGrant {
			w.WriteHeader(401)
			fmt.Fprint(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid assertion"}}`)
			return
		}
		fmt.Fprintf(w, `{"access_token":"sk-ant-fed-%d","token_type":"Bearer","expires_in":3600}`, n)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fedServer) got() []map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]string(nil), f.exchanges...)
}

func fedEnv(t *testing.T, extra map[string]string) (func(string) string, string) {
	tokenFile := filepath.Join(t.TempDir(), "id-token")
	os.WriteFile(tokenFile, []byte("eyJhbGciOiJSUzI1NiJ9.first.sig\n"), 0o600)
	m := map[string]string{"ANTHROPIC_FEDERATION_RULE_ID": "fdrl_01", "ANTHROPIC_ORGANIZATION_ID": "org_01",
		"ANTHROPIC_IDENTITY_TOKEN_FILE": tokenFile, "ANTHROPIC_SERVICE_ACCOUNT_ID": "svac_01"}
	for k, v := range extra {
		m[k] = v
	}
	return func(k string) string { return m[k] }, tokenFile
}

func TestFederationExchangesOnceAndRotates(t *testing.T) {
	srv := newFedServer(t, llmtest.Response{Text: "one"}, llmtest.Response{Text: "two"}, llmtest.Response{Text: "three"})
	env, tokenFile := fedEnv(t, map[string]string{"ANTHROPIC_WORKSPACE_ID": "wrkspc_01"})
	if !FederationConfigured(env) {
		t.Fatal("not configured")
	}
	fed := NewFederation(env)
	now := time.Now()
	fed.now = func() time.Time { return now }
	c := &Client{Federation: fed}
	run := func(want string) {
		t.Helper()
		msg := c.Stream(context.Background(), &llm.Request{Model: sonnet(srv.URL), APIKey: llm.AmbientKey,
			Messages: []llm.Message{&llm.UserMessage{Content: llm.StringContent("hi")}}}, nil)
		if msg.Text() != want {
			t.Fatalf("%q %s", msg.Text(), msg.ErrorMessage)
		}
	}
	run("one")
	run("two")
	if got := srv.got(); len(got) != 1 {
		t.Fatalf("%d exchanges for two requests with a valid token", len(got))
	}
	ex := srv.got()[0]
	if ex["assertion"] != "eyJhbGciOiJSUzI1NiJ9.first.sig" || ex["federation_rule_id"] != "fdrl_01" || ex["organization_id"] != "org_01" ||
		ex["service_account_id"] != "svac_01" || ex["workspace_id"] != "wrkspc_01" {
		t.Errorf("exchange body %v", ex)
	}
	for _, r := range srv.api.Requests() {
		if r.Header.Get("Authorization") != "Bearer sk-ant-fed-1" || r.Header.Get("x-api-key") != "" {
			t.Errorf("messages auth: %q / x-api-key %q", r.Header.Get("Authorization"), r.Header.Get("x-api-key"))
		}
	}
	// Near expiry the rotated identity token is read and exchanged again.
	os.WriteFile(tokenFile, []byte("eyJhbGciOiJSUzI1NiJ9.second.sig"), 0o600)
	now = now.Add(3600*time.Second - 30*time.Second)
	run("three")
	if got := srv.got(); len(got) != 2 || got[1]["assertion"] != "eyJhbGciOiJSUzI1NiJ9.second.sig" {
		t.Fatalf("exchanges %v", got)
	}
	if got := srv.api.Requests()[2].Header.Get("Authorization"); got != "Bearer sk-ant-fed-2" {
		t.Errorf("after refresh: %q", got)
	}
}

func TestFederationFailures(t *testing.T) {
	srv := newFedServer(t, llmtest.Response{Text: "never"})
	srv.mu.Lock()
	srv.refuse = true
	srv.mu.Unlock()
	env, _ := fedEnv(t, nil)
	msg := (&Client{Federation: NewFederation(env)}).Stream(context.Background(), &llm.Request{Model: sonnet(srv.URL), APIKey: llm.AmbientKey}, nil)
	if msg.Err == nil || msg.Err.Kind != llm.ErrAuth || !strings.Contains(msg.ErrorMessage, "fdrl_01") || !strings.Contains(msg.ErrorMessage, "invalid assertion") {
		t.Fatalf("%+v", msg.Err)
	}
	if n := len(srv.api.Requests()); n != 0 {
		t.Errorf("%d model requests after a refused exchange", n)
	}

	env2, tokenFile := fedEnv(t, nil)
	os.Remove(tokenFile)
	msg = (&Client{Federation: NewFederation(env2)}).Stream(context.Background(), &llm.Request{Model: sonnet(srv.URL), APIKey: llm.AmbientKey}, nil)
	if msg.Err == nil || msg.Err.Kind != llm.ErrAuth || !strings.Contains(msg.ErrorMessage, "ANTHROPIC_IDENTITY_TOKEN_FILE") {
		t.Fatalf("missing file: %+v", msg.Err)
	}
	for _, env := range []map[string]string{
		{"ANTHROPIC_FEDERATION_RULE_ID": "r", "ANTHROPIC_IDENTITY_TOKEN_FILE": "/f"},
		{"ANTHROPIC_ORGANIZATION_ID": "o", "ANTHROPIC_IDENTITY_TOKEN_FILE": "/f"},
		{"ANTHROPIC_FEDERATION_RULE_ID": "r", "ANTHROPIC_ORGANIZATION_ID": "o"},
	} {
		if FederationConfigured(func(k string) string { return env[k] }) {
			t.Errorf("configured with %v", env)
		}
	}
}
