package apikeys

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/auth"
)

// TestLoginSubscription signs in to Claude Pro/Max with the paste-the-code
// method against a fake token endpoint: /login anthropic shows the URL,
// /login anthropic <code#state> finishes, auth.json holds the OAuth entry
// (0600), and the notice says so.
func TestLoginSubscription(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]string
		json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&body)
		if body["grant_type"] != "authorization_code" || body["code"] != "abc" {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		io.WriteString(w, `{"access_token":"sk-ant-oat01-t","refresh_token":"sk-ant-ort01-r","expires_in":28800}`)
	}))
	defer srv.Close()
	e := newEnv(t)
	var mu sync.Mutex
	var notices []string
	o := e.k.o
	o.SignIn = auth.New(auth.Config{Anthropic: auth.AnthropicEndpoints{Token: srv.URL, CallbackPort: -1}})
	o.NoBrowser = true
	o.Notify = func(_, text string) { mu.Lock(); notices = append(notices, text); mu.Unlock() }
	k := &Keys{rt: e.rt, o: o}
	ctx := context.Background()
	run := func(line string) (string, error) {
		provider, key, _ := strings.Cut(line, " ")
		if p := o.SignIn.Get(provider); p != nil {
			text, handled, err := k.signIn(ctx, p, key)
			if handled {
				return text, err
			}
		}
		return k.Login(provider, key)
	}

	out, err := run("anthropic")
	if err != nil || !strings.Contains(out, "Sign in to Anthropic (Claude Pro/Max)") || !strings.Contains(out, "/login anthropic <code>") {
		t.Fatalf("%q %v", out, err)
	}
	m := regexp.MustCompile(`https?://\S+`).FindString(out)
	u, _ := url.Parse(m)
	state := u.Query().Get("state")
	if state == "" || u.Query().Get("redirect_uri") != "https://platform.claude.com/oauth/code/callback" {
		t.Fatalf("authorize URL %q", m)
	}
	if _, err := run("anthropic wrong#other-state"); err == nil || !strings.Contains(err.Error(), "state mismatch") {
		t.Fatalf("wrong state: %v", err)
	}
	// A failed sign-in ends it: start again, then paste the right code.
	if _, err := run("anthropic"); err != nil {
		t.Fatal(err)
	}
	k.flows.mu.Lock()
	f := k.flows.pending["anthropic"]
	k.flows.mu.Unlock()
	fu, _ := url.Parse(f.URL)
	out, err = run("anthropic abc#" + fu.Query().Get("state"))
	if err != nil || !strings.HasPrefix(out, "Signed in to Anthropic (Claude Pro/Max)") {
		t.Fatalf("%q %v", out, err)
	}
	path := filepath.Join(e.agentDir, "auth.json")
	data, _ := os.ReadFile(path)
	var entries map[string]map[string]any
	if err := json.Unmarshal(data, &entries); err != nil || entries["anthropic"]["type"] != "oauth" ||
		entries["anthropic"]["access"] != "sk-ant-oat01-t" || entries["anthropic"]["refresh"] != "sk-ant-ort01-r" {
		t.Fatalf("auth.json %s", data)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		got := strings.Join(notices, "\n")
		mu.Unlock()
		if strings.Contains(got, "Signed in to Anthropic") && strings.Contains(got, "Sign-in to Anthropic (Claude Pro/Max) failed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("notices %q", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// An API key is still an API key while nothing waits.
	if out, err := run("anthropic sk-ant-api03-k"); err != nil || !strings.Contains(out, "Saved API key for anthropic") {
		t.Fatalf("%q %v", out, err)
	}
	// /logout removes the subscription like a key.
	if out, err := k.Logout("anthropic"); err != nil || !strings.Contains(out, "Removed") {
		t.Fatalf("%q %v", out, err)
	}
	// The list names every subscription.
	list := k.subscriptionList()
	for _, id := range []string{"anthropic", "openai-codex", "github-copilot", "google-antigravity"} {
		if !strings.Contains(list, "/login "+id) {
			t.Fatalf("list %q", list)
		}
	}
}

// TestLoginOpensTheBrowser: a sign-in started where a browser can be
// reached opens its page, and prints it too; when opening fails the
// answer says so and the page is still there to copy.
func TestLoginOpensTheBrowser(t *testing.T) {
	e := newEnv(t)
	var opened []string
	fail := error(nil)
	o := e.k.o
	o.SignIn = auth.New(auth.Config{GeminiCLI: auth.GeminiCLIEndpoints{CallbackPort: -1}})
	o.OpenURL = func(page string) error { opened = append(opened, page); return fail }
	k := &Keys{rt: e.rt, o: o}
	p := o.SignIn.Get("google-gemini-cli")
	out, handled, err := k.signIn(context.Background(), p, "")
	if err != nil || !handled {
		t.Fatal(handled, err)
	}
	k.flows.mu.Lock()
	f := k.flows.pending["google-gemini-cli"]
	k.flows.mu.Unlock()
	defer f.Cancel()
	if len(opened) != 1 || opened[0] != f.URL || !strings.Contains(out, f.URL) || !strings.Contains(out, "opened in your browser") {
		t.Fatalf("opened %q, answer %q", opened, out)
	}
	fail = errors.New(`xdg-open: executable file not found in $PATH`)
	out, _, _ = k.signIn(context.Background(), p, "")
	k.flows.mu.Lock()
	f2 := k.flows.pending["google-gemini-cli"]
	k.flows.mu.Unlock()
	defer f2.Cancel()
	if len(opened) != 2 || !strings.Contains(out, f2.URL) || !strings.Contains(out, "No browser opened: xdg-open: executable file not found") {
		t.Fatalf("answer %q", out)
	}
	// Without an opener (print, JSON, RPC modes, remote sessions) the page
	// is only printed.
	k.o.OpenURL = nil
	out, _, _ = k.signIn(context.Background(), p, "")
	k.flows.mu.Lock()
	f3 := k.flows.pending["google-gemini-cli"]
	k.flows.mu.Unlock()
	defer f3.Cancel()
	if len(opened) != 2 || !strings.Contains(out, f3.URL) || strings.Contains(out, "browser") && strings.Contains(out, "opened") {
		t.Fatalf("answer %q", out)
	}
}
