package cli

import (
	"bytes"
	"context"
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

// TestGeminiCLISubscriptionKeepsWorkingPastExpiry runs relay -p on a
// google-gemini-cli model whose stored token is about to expire, with a
// tool call in between: every request finds the token near expiry (the
// fake Google token server hands out short-lived ones), renews it, and
// goes to the Cloud Code Assist origin of the sign-in with the new token
// and the account's project in the envelope.
func TestGeminiCLISubscriptionKeepsWorkingPastExpiry(t *testing.T) {
	srv, agent := fakeProviderEnv(t,
		llmtest.Response{ToolCalls: []llmtest.Block{{Type: "toolCall", Name: "read", Args: json.RawMessage(`{"path":"note.txt"}`)}}},
		llmtest.Response{Text: "the note says hi"})
	os.WriteFile("note.txt", []byte("hi from the note"), 0o644)
	var refreshes atomic.Int32
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		f, _ := url.ParseQuery(string(body))
		if f.Get("grant_type") != "refresh_token" || f.Get("refresh_token") != "1//rt" || f.Get("client_id") == "" {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		n := refreshes.Add(1)
		// Google does not rotate the refresh token; 301 s leaves less than
		// the renewal margin once the minute the original keeps is taken.
		fmt.Fprintf(w, `{"access_token":"ya29.tok-%d","expires_in":301,"token_type":"Bearer"}`, n)
	}))
	defer tokens.Close()
	old := newSignIns
	newSignIns = func(env config.Env, _ *models.Registry) *auth.Set {
		return auth.New(auth.Config{Getenv: env.Get, GeminiCLI: auth.GeminiCLIEndpoints{Token: tokens.URL}})
	}
	defer func() { newSignIns = old }()
	os.WriteFile(filepath.Join(agent, "auth.json"), []byte(fmt.Sprintf(
		`{"google-gemini-cli":{"type":"oauth","access":"ya29.old","refresh":"1//rt","expires":%d,"projectId":"proj-42","baseUrl":%q}}`,
		time.Now().Add(time.Minute).UnixMilli(), srv.URL)), 0o600)

	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"-p", "--model", "google-gemini-cli/gemini-2.5-pro", "what does note.txt say?"}, strings.NewReader(""), &out, &errb)
	if code != 0 || strings.TrimSpace(out.String()) != "the note says hi" {
		t.Fatalf("exit %d stdout %q stderr %s", code, out.String(), errb.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || refreshes.Load() != 2 {
		t.Fatalf("%d requests, %d refreshes", len(reqs), refreshes.Load())
	}
	for i, rq := range reqs {
		if rq.Path != "/v1internal:streamGenerateContent" || rq.Header.Get("Authorization") != fmt.Sprintf("Bearer ya29.tok-%d", i+1) ||
			rq.Header.Get("X-Goog-User-Project") != "" || rq.Body["project"] != "proj-42" || rq.Body["model"] != "gemini-2.5-pro" {
			t.Fatalf("request %d: %s %v %v", i, rq.Path, rq.Header, rq.Body["project"])
		}
	}
	if second := string(reqs[1].Raw); !strings.Contains(second, `"functionResponse"`) || !strings.Contains(second, "hi from the note") {
		t.Errorf("second request lacks the tool result: %.500s", second)
	}
	data, _ := os.ReadFile(filepath.Join(agent, "auth.json"))
	for _, want := range []string{`"access":"ya29.tok-2"`, `"refresh":"1//rt"`, `"projectId":"proj-42"`, `"baseUrl":"` + srv.URL + `"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("auth.json lacks %s: %s", want, data)
		}
	}
}

// TestAntigravitySignInWithoutProject: a stored Antigravity sign-in that
// names no project stops before any request, saying how to fix it.
func TestAntigravitySignInWithoutProject(t *testing.T) {
	srv, agent := fakeProviderEnv(t, llmtest.Response{Text: "never"})
	os.WriteFile(filepath.Join(agent, "auth.json"), []byte(fmt.Sprintf(
		`{"google-antigravity":{"type":"oauth","access":"ya29.a","refresh":"1//r","expires":%d,"baseUrl":%q}}`,
		time.Now().Add(time.Hour).UnixMilli(), srv.URL)), 0o600)
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"-p", "--model", "google-antigravity/gemini-3-flash", "hi"}, strings.NewReader(""), &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "/login google-antigravity") || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d stdout %q stderr %s, %d requests", code, out.String(), errb.String(), len(srv.Requests()))
	}
}

// TestSignInBrowserOnlyInTheTerminalUI: /login opens pages only for a
// person at this machine's terminal UI; the other modes, a non-terminal
// stdin and SSH sessions get the page printed only.
func TestSignInBrowserOnlyInTheTerminalUI(t *testing.T) {
	desktop := config.EnvFromMap(map[string]string{"DISPLAY": ":0"})
	ssh := config.EnvFromMap(map[string]string{"DISPLAY": ":0", "SSH_CONNECTION": "1 2 3 4"})
	for _, tt := range []struct {
		name  string
		mode  mode
		stdin io.Reader
		env   config.Env
	}{
		{"print mode", modePrint, strings.NewReader(""), desktop},
		{"json mode", modeJSON, strings.NewReader(""), desktop},
		{"rpc mode", modeRPC, strings.NewReader(""), desktop},
		{"tui without a terminal", modeTUI, strings.NewReader(""), desktop},
		{"tui over ssh", modeTUI, strings.NewReader(""), ssh},
	} {
		l := &launch{mode: tt.mode, stdin: tt.stdin, env: tt.env}
		if l.browser() != nil {
			t.Errorf("%s: a browser would open", tt.name)
		}
	}
}

// TestSignInRefusedTokenIsRenewedOnce: Cloud Code Assist refuses a token
// the stored expiry still calls valid (revoked early, a skewed clock):
// relay renews it once and sends again, the person sees only the answer.
// When the renewal is refused too, the error says to sign in again and
// auth.json is kept.
func TestSignInRefusedTokenIsRenewedOnce(t *testing.T) {
	unauthenticated := `{"error":{"code":401,"message":"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.","status":"UNAUTHENTICATED"}}`
	for _, tc := range []struct {
		name        string
		grant       bool
		wantOut     string
		wantErr     string
		wantModelRq int
	}{
		{"renewed", true, "after renewal", "", 2},
		{"renewal refused", false, "", "sign in again: run /login google-gemini-cli", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, agent := fakeProviderEnv(t,
				llmtest.Response{Fault: &llmtest.Fault{Status: 401, Body: unauthenticated}},
				llmtest.Response{Text: "after renewal"})
			var refreshes atomic.Int32
			tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				refreshes.Add(1)
				if !tc.grant {
					w.WriteHeader(400)
					io.WriteString(w, `{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`)
					return
				}
				io.WriteString(w, `{"access_token":"ya29.renewed","expires_in":3599,"token_type":"Bearer"}`)
			}))
			defer tokens.Close()
			old := newSignIns
			newSignIns = func(env config.Env, _ *models.Registry) *auth.Set {
				return auth.New(auth.Config{Getenv: env.Get, GeminiCLI: auth.GeminiCLIEndpoints{Token: tokens.URL}})
			}
			defer func() { newSignIns = old }()
			before := fmt.Sprintf(`{"google-gemini-cli":{"type":"oauth","access":"ya29.revoked","refresh":"1//rt","expires":%d,"projectId":"proj-1","baseUrl":%q}}`,
				time.Now().Add(time.Hour).UnixMilli(), srv.URL)
			os.WriteFile(filepath.Join(agent, "auth.json"), []byte(before), 0o600)

			var out, errb bytes.Buffer
			code := Main(context.Background(), []string{"-p", "--model", "google-gemini-cli/gemini-2.5-flash", "hi"}, strings.NewReader(""), &out, &errb)
			if strings.TrimSpace(out.String()) != tc.wantOut || (tc.wantErr == "") != (code == 0) || !strings.Contains(errb.String(), tc.wantErr) {
				t.Fatalf("exit %d stdout %q stderr %s", code, out.String(), errb.String())
			}
			reqs := srv.Requests()
			if len(reqs) != tc.wantModelRq || refreshes.Load() != 1 || reqs[0].Header.Get("Authorization") != "Bearer ya29.revoked" {
				t.Fatalf("%d model requests, %d refreshes", len(reqs), refreshes.Load())
			}
			after, _ := os.ReadFile(filepath.Join(agent, "auth.json"))
			if tc.grant {
				if reqs[1].Header.Get("Authorization") != "Bearer ya29.renewed" || !strings.Contains(string(after), `"access":"ya29.renewed"`) {
					t.Fatalf("second request %v, auth.json %s", reqs[1].Header, after)
				}
			} else if string(after) != before {
				t.Fatalf("auth.json changed: %s", after)
			}
		})
	}
}
