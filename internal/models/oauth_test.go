package models

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// tokenServer is a token endpoint that rotates refresh tokens the way the
// real ones do: a refresh token works once; a second use is invalid_grant.
type tokenServer struct {
	mu       sync.Mutex
	valid    map[string]bool
	n        int
	calls    atomic.Int32
	arrived  chan struct{}
	fail     int // status to answer with (0 = success)
	body     string
	lifetime int
}

func newTokenServer(t *testing.T, refresh string) (*tokenServer, *httptest.Server) {
	ts := &tokenServer{valid: map[string]bool{refresh: true}, arrived: make(chan struct{}, 16), lifetime: 3600}
	srv := httptest.NewServer(ts)
	t.Cleanup(srv.Close)
	return ts, srv
}

func (ts *tokenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ts.calls.Add(1)
	ts.arrived <- struct{}{}
	// Hold the first refresh a moment for a concurrent one to show up: with
	// the lock working none does, and this costs one timer.
	select {
	case <-time.After(500 * time.Millisecond):
	case <-r.Context().Done():
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", 400)
		return
	}
	if ts.fail != 0 {
		w.WriteHeader(ts.fail)
		io.WriteString(w, ts.body)
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	rt := r.PostForm.Get("refresh_token")
	if !ts.valid[rt] {
		w.WriteHeader(400)
		io.WriteString(w, `{"error":"invalid_grant"}`)
		return
	}
	delete(ts.valid, rt)
	ts.n++
	next := fmt.Sprintf("refresh-%d", ts.n)
	ts.valid[next] = true
	fmt.Fprintf(w, `{"access_token":"access-%d","refresh_token":%q,"expires_in":%d}`, ts.n, next, ts.lifetime)
}

// formRefresher is the test's OAuthProvider: a form POST to url.
type formRefresher struct{ url string }

func (f formRefresher) Refresh(ctx context.Context, c *Credential) (*Credential, error) {
	req, _ := http.NewRequestWithContext(ctx, "POST", f.url, strings.NewReader(url.Values{"refresh_token": {c.Refresh}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == 400 && strings.Contains(string(body), "invalid_grant") {
		return nil, fmt.Errorf("%w (invalid_grant)", ErrRevoked)
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var t struct {
		Access  string `json:"access_token"`
		Refresh string `json:"refresh_token"`
		In      int64  `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &t); err != nil {
		return nil, err
	}
	return &Credential{Access: t.Access, Refresh: t.Refresh, Expires: time.Now().UnixMilli() + t.In*1000}, nil
}

func (formRefresher) Use(c *Credential) (OAuthUse, error) { return OAuthUse{APIKey: c.Access}, nil }

func writeAuth(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestFreshOAuthValidTokenCostsNothing(t *testing.T) {
	ts, srv := newTokenServer(t, "r0")
	path := filepath.Join(t.TempDir(), "auth.json")
	exp := time.Now().Add(time.Hour).UnixMilli()
	writeAuth(t, path, fmt.Sprintf(`{"p":{"type":"oauth","access":"a0","refresh":"r0","expires":%d}}`, exp))
	s := NewAuthStore(path)
	for i := 0; i < 3; i++ {
		c, err := s.FreshOAuth(context.Background(), "p", formRefresher{srv.URL}, RefreshMargin, nil)
		if err != nil || c.Access != "a0" {
			t.Fatalf("got %+v, %v", c, err)
		}
		// After the first read the file is not read again.
		os.Remove(path)
	}
	if n := ts.calls.Load(); n != 0 {
		t.Fatalf("%d token requests for a valid token", n)
	}
}

func TestFreshOAuthRenewsNearExpiryAndKeepsExtras(t *testing.T) {
	ts, srv := newTokenServer(t, "r0")
	path := filepath.Join(t.TempDir(), "auth.json")
	exp := time.Now().Add(2 * time.Minute).UnixMilli() // inside the margin
	writeAuth(t, path, fmt.Sprintf(`{"other":{"type":"api_key","key":"k"},"p":{"type":"oauth","access":"a0","refresh":"r0","expires":%d,"accountId":"acc-1","nested":{"x":[1,2]}}}`, exp))
	s := NewAuthStore(path)
	c, err := s.FreshOAuth(context.Background(), "p", formRefresher{srv.URL}, RefreshMargin, nil)
	if err != nil || c.Access != "access-1" || c.Refresh != "refresh-1" {
		t.Fatalf("got %+v, %v", c, err)
	}
	if ts.calls.Load() != 1 {
		t.Fatalf("calls = %d", ts.calls.Load())
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	var m map[string]map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	p := m["p"]
	if p["type"] != "oauth" || p["access"] != "access-1" || p["refresh"] != "refresh-1" || p["accountId"] != "acc-1" ||
		fmt.Sprint(p["nested"]) != "map[x:[1 2]]" || m["other"]["key"] != "k" {
		t.Fatalf("file after refresh: %s", data)
	}
	if exp := p["expires"].(float64); int64(exp) <= time.Now().UnixMilli() {
		t.Fatalf("expires %v not in the future", exp)
	}
}

func TestFreshOAuthFailuresKeepTheStoredToken(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   int
		body     string
		left     time.Duration
		wantErr  string
		wantTok  string
		revoked  bool
		dropConn bool
	}{
		{name: "revoked", status: 400, body: `{"error":"invalid_grant"}`, left: -time.Minute, revoked: true,
			wantErr: "p: the sign-in was revoked or has expired (invalid_grant); sign in again: run /login p"},
		{name: "server error while still valid", status: 503, left: 2 * time.Minute, wantTok: "a0"},
		{name: "server error after expiry", status: 500, left: -time.Minute,
			wantErr: "p: token refresh failed: status 500; sign in again: run /login p"},
		{name: "network drop after expiry", dropConn: true, left: -time.Minute, wantErr: "sign in again: run /login p"},
		{name: "malformed answer", status: 200, body: `{"access_token":`, left: -time.Minute, wantErr: "token refresh failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, srv := newTokenServer(t, "r0")
			ts.fail, ts.body = tc.status, tc.body
			target := srv.URL
			if tc.dropConn {
				drop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					conn, _, _ := w.(http.Hijacker).Hijack()
					conn.Close()
				}))
				defer drop.Close()
				target = drop.URL
			}
			path := filepath.Join(t.TempDir(), "auth.json")
			before := fmt.Sprintf(`{"p":{"type":"oauth","access":"a0","refresh":"r0","expires":%d,"projectId":"x"}}`, time.Now().Add(tc.left).UnixMilli())
			writeAuth(t, path, before)
			c, err := NewAuthStore(path).FreshOAuth(context.Background(), "p", formRefresher{target}, RefreshMargin, nil)
			if tc.wantErr != "" {
				var se *SignInError
				if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want a SignInError containing %q", err, tc.wantErr)
				}
				if errors.Is(err, ErrRevoked) != tc.revoked {
					t.Fatalf("revoked = %v", errors.Is(err, ErrRevoked))
				}
			} else if err != nil || c.Access != tc.wantTok {
				t.Fatalf("got %+v, %v", c, err)
			}
			if after, _ := os.ReadFile(path); string(after) != before {
				t.Fatalf("a failed refresh changed auth.json:\n%s", after)
			}
		})
	}
}

func TestFreshOAuthClockSkew(t *testing.T) {
	// The stored expiry is judged by this machine's clock: a clock running
	// ahead sees an expired token and renews it; one running behind keeps
	// using the token without a request.
	ts, srv := newTokenServer(t, "r0")
	path := filepath.Join(t.TempDir(), "auth.json")
	exp := time.Now().Add(time.Hour).UnixMilli()
	writeAuth(t, path, fmt.Sprintf(`{"p":{"type":"oauth","access":"a0","refresh":"r0","expires":%d}}`, exp))
	behind := func() time.Time { return time.Now().Add(-24 * time.Hour) }
	if c, err := NewAuthStore(path).FreshOAuth(context.Background(), "p", formRefresher{srv.URL}, RefreshMargin, behind); err != nil || c.Access != "a0" {
		t.Fatalf("behind: %+v, %v", c, err)
	}
	ahead := func() time.Time { return time.Now().Add(2 * time.Hour) }
	c, err := NewAuthStore(path).FreshOAuth(context.Background(), "p", formRefresher{srv.URL}, RefreshMargin, ahead)
	if err != nil || c.Access != "access-1" {
		t.Fatalf("ahead: %+v, %v", c, err)
	}
	if ts.calls.Load() != 1 {
		t.Fatalf("calls = %d", ts.calls.Load())
	}
}

// TestFreshOAuthConcurrentProcesses runs two helper processes and two
// goroutines (each with its own AuthStore, so its own file handles) that
// find the same token about to expire and refresh at once. The server
// rotates refresh tokens, so a second refresh would fail with
// invalid_grant: exactly one request may reach it, and everyone ends up
// with its token.
func TestFreshOAuthConcurrentProcesses(t *testing.T) {
	ts, srv := newTokenServer(t, "r0")
	path := filepath.Join(t.TempDir(), "auth.json")
	writeAuth(t, path, fmt.Sprintf(`{"p":{"type":"oauth","access":"a0","refresh":"r0","expires":%d}}`, time.Now().Add(time.Minute).UnixMilli()))

	type proc struct {
		cmd   *exec.Cmd
		in    io.WriteCloser
		out   *bufio.Reader
		ready chan error
	}
	var procs []*proc
	for i := 0; i < 2; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRefreshProcess$")
		cmd.Env = append(os.Environ(), "RELAY_TEST_REFRESH_HELPER=1", "RELAY_TEST_AUTH="+path, "RELAY_TEST_TOKEN_URL="+srv.URL)
		in, _ := cmd.StdinPipe()
		outPipe, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &proc{cmd: cmd, in: in, out: bufio.NewReader(outPipe)}
		procs = append(procs, p)
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
	for _, p := range procs {
		line, err := p.out.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != "ready" {
			t.Fatalf("helper: %q %v", line, err)
		}
	}
	// Release everyone at once.
	var wg sync.WaitGroup
	got := make(chan string, 4)
	start := make(chan struct{})
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c, err := NewAuthStore(path).FreshOAuth(context.Background(), "p", formRefresher{srv.URL}, RefreshMargin, nil)
			if err != nil {
				got <- "error: " + err.Error()
				return
			}
			got <- c.Access
		}()
	}
	close(start)
	for _, p := range procs {
		io.WriteString(p.in, "go\n")
	}
	for _, p := range procs {
		line, err := p.out.ReadString('\n')
		if err != nil {
			t.Fatalf("helper: %v", err)
		}
		got <- strings.TrimSpace(line)
	}
	wg.Wait()
	close(got)
	for tok := range got {
		if tok != "access-1" {
			t.Errorf("a caller got %q, want access-1", tok)
		}
	}
	if n := ts.calls.Load(); n != 1 {
		t.Fatalf("%d refresh requests reached the server, want 1", n)
	}
}

// TestHelperRefreshProcess is the other relay process of
// TestFreshOAuthConcurrentProcesses.
func TestHelperRefreshProcess(t *testing.T) {
	if os.Getenv("RELAY_TEST_REFRESH_HELPER") != "1" {
		t.Skip("helper process")
	}
	s := NewAuthStore(os.Getenv("RELAY_TEST_AUTH"))
	if _, err := s.Get("p"); err != nil { // read the expiring token first
		fmt.Println("error:", err)
		os.Exit(0)
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		os.Exit(1)
	}
	c, err := s.FreshOAuth(context.Background(), "p", formRefresher{os.Getenv("RELAY_TEST_TOKEN_URL")}, RefreshMargin, nil)
	if err != nil {
		fmt.Println("error:", strings.ReplaceAll(err.Error(), "\n", " "))
	} else {
		fmt.Println(c.Access)
	}
	os.Exit(0)
}

// TestAvailableFollowsTheSignedInModelList: a sign-in that stored the
// account's model list (Copilot's availableModelIds) limits the provider's
// models to it; without one every catalog model is available.
func TestAvailableFollowsTheSignedInModelList(t *testing.T) {
	dir := t.TempDir()
	exp := time.Now().Add(time.Hour).UnixMilli()
	count := func(body string) (n int, ids []string) {
		writeAuth(t, filepath.Join(dir, "auth.json"), body)
		r, err := NewRegistry(Options{AuthJSON: filepath.Join(dir, "auth.json"), Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range r.Available(context.Background()) {
			if m.Provider == "openai-codex" {
				ids = append(ids, m.ID)
			}
		}
		return len(ids), ids
	}
	if n, _ := count(fmt.Sprintf(`{"openai-codex":{"type":"oauth","access":"a","refresh":"r","expires":%d}}`, exp)); n < 2 {
		t.Fatalf("%d models without a list", n)
	}
	if n, ids := count(fmt.Sprintf(`{"openai-codex":{"type":"oauth","access":"a","refresh":"r","expires":%d,"availableModelIds":["gpt-5.5","gone"]}}`, exp)); n != 1 || ids[0] != "gpt-5.5" {
		t.Fatalf("with a list: %v", ids)
	}
}

// BenchmarkResolveAuthValidOAuth is the hot path of a request with a
// stored subscription token that has time left: no file read, no request.
func BenchmarkResolveAuthValidOAuth(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "auth.json")
	os.WriteFile(path, []byte(fmt.Sprintf(`{"p":{"type":"oauth","access":"a0","refresh":"r0","expires":%d}}`, time.Now().Add(time.Hour).UnixMilli())), 0o600)
	r, err := NewRegistry(Options{AuthJSON: path, Getenv: func(string) string { return "" },
		OAuth: func(string) OAuthProvider { return formRefresher{"http://127.0.0.1:1"} }})
	if err != nil {
		b.Fatal(err)
	}
	m := &llm.Model{Provider: "p", ID: "x"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if key, _, err := r.ResolveAuth(ctx, m, ""); err != nil || key != "a0" {
			b.Fatal(key, err)
		}
	}
}

// projectSignIn is a sign-in whose requests carry a header of its own
// (the Google subscriptions' project).
type projectSignIn struct{ formRefresher }

func (projectSignIn) Use(c *Credential) (OAuthUse, error) {
	return OAuthUse{APIKey: c.Access, Headers: map[string]string{"X-Goog-User-Project": "proj-1"}}, nil
}

// TestSignInHeadersSurviveModelHeaders: headers a model configures are
// added to the sign-in's, not put in their place (a models.json header
// on a Gemini CLI model must not lose the account's project).
func TestSignInHeadersSurviveModelHeaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "auth.json")
	writeAuth(t, path, fmt.Sprintf(`{"p":{"type":"oauth","access":"a0","refresh":"r0","expires":%d}}`, time.Now().Add(time.Hour).UnixMilli()))
	r, err := NewRegistry(Options{AuthJSON: path, Getenv: func(string) string { return "" },
		OAuth: func(string) OAuthProvider { return projectSignIn{} }})
	if err != nil {
		t.Fatal(err)
	}
	m := &llm.Model{Provider: "p", ID: "x", Headers: map[string]string{"X-Extra": "1"}}
	key, h, err := r.ResolveAuth(context.Background(), m, "")
	if err != nil || key != "a0" || h["X-Goog-User-Project"] != "proj-1" || h["X-Extra"] != "1" {
		t.Fatalf("key %q headers %v err %v", key, h, err)
	}
}
