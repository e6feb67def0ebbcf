package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeOAuthServer is an MCP server behind a bearer token plus the
// authorization server that issues it (discovery, registration, PKCE code
// flow, refresh).
type fakeOAuthServer struct {
	srv *httptest.Server

	mu        sync.Mutex
	challenge string // code_challenge of the pending authorization
	access    string // the token the MCP endpoint accepts
	refresh   string
	refreshes int
	issued    int
}

func newFakeOAuthServer(t *testing.T) *fakeOAuthServer {
	f := &fakeOAuthServer{}
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return helperServer() }, nil)
	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": f.srv.URL + "/mcp", "authorization_servers": []string{f.srv.URL}, "scopes_supported": []string{"tools"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": f.srv.URL, "authorization_endpoint": f.srv.URL + "/authorize",
			"token_endpoint": f.srv.URL + "/token", "registration_endpoint": f.srv.URL + "/register",
			"code_challenge_methods_supported": []string{"S256"}, "response_types_supported": []string{"code"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var meta map[string]any
		json.NewDecoder(r.Body).Decode(&meta)
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, map[string]any{"client_id": "client-1", "redirect_uris": meta["redirect_uris"], "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != "client-1" || q.Get("code_challenge_method") != "S256" || q.Get("resource") != f.srv.URL+"/mcp" {
			http.Error(w, "bad authorization request "+r.URL.RawQuery, 400)
			return
		}
		f.mu.Lock()
		f.challenge = q.Get("code_challenge")
		f.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=the-code&state="+q.Get("state"), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		f.mu.Lock()
		defer f.mu.Unlock()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if r.Form.Get("code") != "the-code" || base64.RawURLEncoding.EncodeToString(sum[:]) != f.challenge {
				w.WriteHeader(400)
				writeJSON(w, map[string]string{"error": "invalid_grant"})
				return
			}
		case "refresh_token":
			if r.Form.Get("refresh_token") != f.refresh {
				w.WriteHeader(400)
				writeJSON(w, map[string]string{"error": "invalid_grant"})
				return
			}
			f.refreshes++
		default:
			w.WriteHeader(400)
			return
		}
		f.issued++
		f.access, f.refresh = fmt.Sprintf("access-%d", f.issued), fmt.Sprintf("refresh-%d", f.issued)
		writeJSON(w, map[string]any{"access_token": f.access, "refresh_token": f.refresh, "token_type": "Bearer", "expires_in": 3600})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		ok := f.access != "" && r.Header.Get("Authorization") == "Bearer "+f.access
		f.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, f.srv.URL))
			http.Error(w, "unauthorized", 401)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// revoke makes the MCP endpoint reject the current access token, as after
// it expired on the server's side.
func (f *fakeOAuthServer) revoke() {
	f.mu.Lock()
	f.access = "revoked"
	f.mu.Unlock()
}

func TestOAuthSignInRefreshAndSignOut(t *testing.T) {
	f := newFakeOAuthServer(t)
	agentDir := t.TempDir()
	cwd := t.TempDir()
	var out, errb bytes.Buffer
	opts := CommandOptions{AgentDir: agentDir, Cwd: cwd, Stdout: &out, Stderr: &errb}
	if code := Command(context.Background(), []string{"add", "remote", "--url", f.srv.URL + "/mcp"}, opts); code != 0 {
		t.Fatalf("add: %s", errb.String())
	}
	if !strings.Contains(out.String(), "relay mcp login remote") {
		t.Fatalf("add output = %s", out.String())
	}
	loaded := Load(LoadOptions{UserConfig: filepath.Join(agentDir, "mcp.json")})
	creds := NewCredentialStore(filepath.Join(agentDir, "mcp-auth.json"))

	// Before signing in the server needs it.
	m := NewManager(Options{Cwd: cwd, Config: loaded, Auth: creds})
	_, err := m.Server("remote").session(context.Background())
	m.Close()
	if err == nil || !strings.Contains(err.Error(), "requires sign-in") || m.Server("remote").Status().State != StateClosed && m.Server("remote").Status().State != StateNeedsAuth {
		t.Fatalf("before sign-in: %v", err)
	}

	// Sign in: the "browser" follows the authorization URL to the callback.
	opts.OpenURL = func(u string) {
		go func() {
			resp, err := http.Get(u)
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	out.Reset()
	if code := Command(context.Background(), []string{"login", "remote", "--timeout", "30"}, opts); code != 0 {
		t.Fatalf("login: %s", errb.String())
	}
	st, err := os.Stat(filepath.Join(agentDir, "mcp-auth.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mcp-auth.json: %v %v", st, err)
	}

	m = NewManager(Options{Cwd: cwd, Config: loaded, Auth: creds})
	defer m.Close()
	connected(t, m)
	echo := findTool(t, m, "mcp__remote__echo")
	if r := echo.Execute(context.Background(), args(map[string]string{"message": "signed"}), nil); r.IsError || resultText(r) != "echo: signed" {
		t.Fatalf("echo = %+v %s", r, resultText(r))
	}
	// The server rejects the token: after the 401 the stored refresh token
	// gets a new one and the connection is made with it.
	f.revoke()
	if err := m.Server("remote").Reconnect(context.Background()); err != nil {
		t.Fatalf("reconnect after the token was rejected: %v", err)
	}
	f.mu.Lock()
	refreshes := f.refreshes
	f.mu.Unlock()
	if refreshes != 1 {
		t.Fatalf("%d refreshes, want 1", refreshes)
	}
	if r := echo.Execute(context.Background(), args(map[string]string{"message": "again"}), nil); r.IsError {
		t.Fatalf("echo after refresh = %s", resultText(r))
	}

	out.Reset()
	if code := Command(context.Background(), []string{"logout", "remote"}, opts); code != 0 || !strings.Contains(out.String(), "Signed out") {
		t.Fatalf("logout: %s %s", out.String(), errb.String())
	}
	if s, _ := creds.Load("remote", f.srv.URL+"/mcp"); s != nil {
		t.Fatal("credentials kept after logout")
	}
}

func TestOAuthRefreshOn401(t *testing.T) {
	f := newFakeOAuthServer(t)
	creds := NewCredentialStore(filepath.Join(t.TempDir(), "mcp-auth.json"))
	url := f.srv.URL + "/mcp"
	// Stored state as after a sign-in whose access token the server no
	// longer accepts; the refresh token is still good.
	f.mu.Lock()
	f.issued, f.access, f.refresh = 1, "access-current", "refresh-1"
	f.mu.Unlock()
	if err := creds.Save("remote", url, &OAuthState{ClientID: "client-1", TokenURL: f.srv.URL + "/token",
		AccessToken: "access-stale", RefreshToken: "refresh-1", TokenType: "Bearer"}); err != nil {
		t.Fatal(err)
	}
	m := NewManager(Options{Config: &Loaded{Servers: []Entry{{Name: "remote", Config: ServerConfig{URL: url}}}}, Auth: creds})
	defer m.Close()
	connected(t, m)
	f.mu.Lock()
	refreshes := f.refreshes
	f.mu.Unlock()
	if refreshes != 1 {
		t.Fatalf("%d refreshes, want 1", refreshes)
	}
	st, _ := creds.Load("remote", url)
	if st.AccessToken != "access-2" || st.RefreshToken != "refresh-2" {
		t.Fatalf("stored = %+v", st)
	}
}

// Two relay processes (two stores on one mcp-auth.json) whose access
// token expired at the same moment: the refresh runs once, under the
// file's lock, and the second uses the tokens the first stored instead of
// spending the rotated refresh token again.
func TestRefreshIsSerializedAcrossProcesses(t *testing.T) {
	f := newFakeOAuthServer(t)
	arrived, release := make(chan struct{}, 4), make(chan struct{})
	var held sync.Once
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			arrived <- struct{}{}
			<-release
		}
		f.srv.Config.Handler.ServeHTTP(w, r)
	})
	front := httptest.NewServer(slow)
	defer front.Close()
	path := filepath.Join(t.TempDir(), "mcp-auth.json")
	a, b := NewCredentialStore(path), NewCredentialStore(path)
	url := f.srv.URL + "/mcp"
	f.mu.Lock()
	f.issued, f.access, f.refresh = 1, "access-1", "refresh-1"
	f.mu.Unlock()
	if err := a.Save("remote", url, &OAuthState{ClientID: "client-1", TokenURL: front.URL + "/token",
		AccessToken: "access-1", RefreshToken: "refresh-1", TokenType: "Bearer"}); err != nil {
		t.Fatal(err)
	}
	busy := make(chan struct{})
	onLockBusy = func() { held.Do(func() { close(busy) }) }
	defer func() { onLockBusy = nil }()
	type res struct {
		st  *OAuthState
		err error
	}
	ra, rb := make(chan res, 1), make(chan res, 1)
	go func() { st, err := a.refresh(context.Background(), "remote", url, "access-1"); ra <- res{st, err} }()
	<-arrived // a holds the lock, its token request in flight
	go func() { st, err := b.refresh(context.Background(), "remote", url, "access-1"); rb <- res{st, err} }()
	select {
	case <-busy: // b found the lock held
	case <-arrived:
		close(release)
		t.Fatal("the second process sent its own token request while the first refreshed")
	}
	close(release)
	x, y := <-ra, <-rb
	if x.err != nil || y.err != nil {
		t.Fatalf("refresh errors: %v, %v", x.err, y.err)
	}
	if x.st.AccessToken != "access-2" || y.st.AccessToken != "access-2" || y.st.RefreshToken != "refresh-2" {
		t.Fatalf("tokens %+v and %+v, want both access-2", x.st, y.st)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refreshes != 1 {
		t.Fatalf("%d token refreshes, want 1", f.refreshes)
	}
	if len(arrived) != 0 {
		t.Fatal("the second process sent a token request of its own")
	}
}
