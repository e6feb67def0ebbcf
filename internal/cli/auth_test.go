package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/auth"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/models"
)

func runAuthIn(t *testing.T, dir string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	m := map[string]string{"RELAY_CODING_AGENT_DIR": dir}
	for k, v := range env {
		m[k] = v
	}
	var out, errOut bytes.Buffer
	code := runAuth(context.Background(), args, config.EnvFromMap(m), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestAuthCommands(t *testing.T) {
	future := time.Now().Add(24 * time.Hour).UnixMilli()
	for _, tc := range []struct {
		name     string
		authJSON string
		env      map[string]string
		args     []string
		code     int
		out      string
		errPart  string
	}{
		{name: "api key from auth.json", authJSON: `{"groq":{"type":"api_key","key":"gsk-1"}}`,
			args: []string{"print-api-key", "--provider", "groq"}, out: "gsk-1\n"},
		{name: "positional provider", env: map[string]string{"GROQ_API_KEY": "env-key"},
			args: []string{"print-api-key", "groq"}, out: "env-key\n"},
		{name: "bearer from ANTHROPIC_AUTH_TOKEN is a key print", env: map[string]string{"ANTHROPIC_AUTH_TOKEN": "bt"},
			args: []string{"print-api-key", "--provider=anthropic"}, out: "bt\n"},
		{name: "api key of an oauth provider", authJSON: fmt.Sprintf(`{"anthropic":{"type":"oauth","access":"sk-ant-oat-1","refresh":"r","expires":%d}}`, future),
			args: []string{"print-api-key", "--provider", "anthropic"}, code: 1, errPart: `provider "anthropic" is configured with OAuth, not an API key`},
		{name: "bearer token", authJSON: fmt.Sprintf(`{"anthropic":{"type":"oauth","access":"sk-ant-oat-1","refresh":"r","expires":%d}}`, future),
			args: []string{"print-bearer-token", "--provider", "anthropic"}, out: "sk-ant-oat-1\n"},
		{name: "bearer token of an api key", authJSON: `{"groq":{"type":"api_key","key":"k"}}`,
			args: []string{"print-bearer-token", "--provider", "groq"}, code: 1, errPart: `provider "groq" is not configured with an OAuth bearer token`},
		{name: "unknown provider", args: []string{"print-api-key", "--provider", "nope"}, code: 1, errPart: `unknown provider "nope"`},
		{name: "no key", args: []string{"print-api-key", "--provider", "groq"}, code: 1, errPart: "No API key for provider: groq"},
		{name: "check ready", env: map[string]string{"GROQ_API_KEY": "k"}, args: []string{"check", "--provider", "groq"}, out: "ready\n"},
		{name: "check json", authJSON: fmt.Sprintf(`{"anthropic":{"type":"oauth","access":"a","refresh":"r","expires":%d}}`, future),
			args: []string{"check", "--provider", "anthropic", "--json", "--credentials"},
			out:  `{"status":"ready","provider":"anthropic","authType":"oauth","credential":"a"}` + "\n"},
		{name: "check not configured", args: []string{"check", "--provider", "groq", "--json"}, code: 1,
			out: `{"status":"not_ready","provider":"groq","reason":"credentials_not_configured"}` + "\n"},
		{name: "check unknown provider", args: []string{"check", "--provider", "nope"}, code: 1, out: "not_ready\n"},
		{name: "hand-edited wrong shape names the provider", authJSON: `{"anthropic":{"type":"oauth","access":7}}`,
			args: []string{"check", "--provider", "anthropic"}, code: 2, out: "invalid\n", errPart: `provider "anthropic": "access" must be a string`},
		{name: "expired token without refresh", authJSON: `{"groq":{"type":"oauth","access":"a","expires":1}}`,
			args: []string{"check", "--provider", "groq"}, code: 1, out: "not_ready\n", errPart: "sign in again: run /login groq"},
		{name: "no-refresh reports what is stored", authJSON: `{"groq":{"type":"oauth","access":"a","expires":1}}`,
			args: []string{"check", "--provider", "groq", "--no-refresh"}, out: "ready\n"},
		{name: "needs a provider", args: []string{"check"}, code: 1, errPart: "auth checks require --provider"},
		{name: "flag of another command", args: []string{"print-api-key", "--provider", "groq", "--json"}, code: 1, errPart: "--json is only supported by auth check"},
		{name: "bad duration", args: []string{"print-bearer-token", "--provider", "x", "--min-expiry", "soon"}, code: 1, errPart: "--min-expiry must use a duration"},
		{name: "unknown command", args: []string{"login"}, code: 1, errPart: `unknown auth command "login"`},
		{name: "help", args: []string{"--help"}, out: authUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.authJSON != "" {
				os.WriteFile(filepath.Join(dir, "auth.json"), []byte(tc.authJSON), 0o600)
			}
			code, out, errOut := runAuthIn(t, dir, tc.env, tc.args...)
			if code != tc.code || (tc.out != "" && out != tc.out) || !strings.Contains(errOut, tc.errPart) {
				t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
			}
		})
	}
}

// TestAuthBearerTokenRefreshes runs print-bearer-token on a Claude token
// with less than --min-expiry left: it is renewed against a fake token
// endpoint, printed, and saved (0600) for the next process.
func TestAuthBearerTokenRefreshes(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var body map[string]string
		json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&body)
		if body["grant_type"] != "refresh_token" || body["refresh_token"] != "r0" || body["client_id"] == "" {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		io.WriteString(w, `{"access_token":"sk-ant-oat-new","refresh_token":"r1","expires_in":28800}`)
	}))
	defer srv.Close()
	old := newSignIns
	newSignIns = func(env config.Env, _ *models.Registry) *auth.Set {
		return auth.New(auth.Config{Getenv: env.Get, Anthropic: auth.AnthropicEndpoints{Token: srv.URL}})
	}
	defer func() { newSignIns = old }()

	dir := t.TempDir()
	path := filepath.Join(dir, "auth.json")
	os.WriteFile(path, []byte(fmt.Sprintf(`{"anthropic":{"type":"oauth","access":"sk-ant-oat-old","refresh":"r0","expires":%d}}`,
		time.Now().Add(20*time.Minute).UnixMilli())), 0o600)
	// 20 minutes left is enough for a request...
	if code, out, errOut := runAuthIn(t, dir, nil, "print-bearer-token", "--provider", "anthropic", "--min-expiry", "10m"); code != 0 || out != "sk-ant-oat-old\n" {
		t.Fatalf("exit %d %q %q", code, out, errOut)
	}
	// ...but not for the default 30 minutes.
	if code, out, errOut := runAuthIn(t, dir, nil, "print-bearer-token", "--provider", "anthropic"); code != 0 || out != "sk-ant-oat-new\n" {
		t.Fatalf("exit %d %q %q", code, out, errOut)
	}
	if calls.Load() != 1 {
		t.Fatalf("%d refreshes", calls.Load())
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"refresh":"r1"`) || !strings.Contains(string(data), `"access":"sk-ant-oat-new"`) {
		t.Fatalf("auth.json: %s", data)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
}
