package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

type oauthHandler = auth.OAuthHandler

// OAuthState is what mcp-auth.json keeps for one server: the client relay
// signed in as, the token endpoint, and the tokens.
type OAuthState struct {
	ClientID     string    `json:"clientId"`
	ClientSecret string    `json:"clientSecret,omitempty"`
	TokenURL     string    `json:"tokenUrl"`
	AuthStyle    int       `json:"authStyle,omitempty"`
	RedirectURI  string    `json:"redirectUri,omitempty"`
	Registered   bool      `json:"registered,omitempty"` // the client came from dynamic registration
	Scope        string    `json:"scope,omitempty"`
	AccessToken  string    `json:"accessToken"`
	RefreshToken string    `json:"refreshToken,omitempty"`
	TokenType    string    `json:"tokenType,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

func (s *OAuthState) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: s.AccessToken, RefreshToken: s.RefreshToken, TokenType: s.TokenType, Expiry: s.Expiry}
}

func (s *OAuthState) config() *oauth2.Config {
	return &oauth2.Config{ClientID: s.ClientID, ClientSecret: s.ClientSecret,
		Endpoint: oauth2.Endpoint{TokenURL: s.TokenURL, AuthStyle: oauth2.AuthStyle(s.AuthStyle)}}
}

// CredentialStore is mcp-auth.json: OAuth state per server name and URL,
// written with mode 0600.
type CredentialStore struct {
	Path string
	// HTTPClient makes token requests (nil = http.DefaultClient).
	HTTPClient *http.Client

	mu sync.Mutex
}

// NewCredentialStore returns the store at path.
func NewCredentialStore(path string) *CredentialStore { return &CredentialStore{Path: path} }

// credentialKey names a server's state: by name and URL, so servers that
// share a URL keep separate accounts.
func credentialKey(name, serverURL string) string { return Namespace(name) + "|" + serverURL }

func (c *CredentialStore) readAll() (map[string]*OAuthState, error) {
	data, err := os.ReadFile(c.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*OAuthState{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]*OAuthState{}
	if len(bytes.TrimSpace(data)) == 0 {
		return out, nil
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Path, err)
	}
	return out, nil
}

func (c *CredentialStore) writeAll(all map[string]*OAuthState) error {
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.Path), ".mcp-auth-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.Path)
}

// lockWait bounds how long a refresh or a write waits for another relay
// process holding the credentials lock (a token request is bounded by its
// own timeout well below it).
var lockWait = 30 * time.Second

// onLockBusy, when set (tests), is called each time the lock is found held.
var onLockBusy func()

// lock takes the cross-process lock of the credentials file (a .lock file
// next to it) and the store's own mutex: relay processes sharing
// mcp-auth.json refresh a server's tokens one at a time, so a rotating
// refresh token is never spent twice, and no write loses another's.
func (c *CredentialStore) lock(ctx context.Context) (func(), error) {
	c.mu.Lock()
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	path := c.Path + ".lock"
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	deadline := time.Now().Add(lockWait)
	for {
		busy, err := tryLock(f)
		if err == nil && !busy {
			return func() { f.Close(); c.mu.Unlock() }, nil
		}
		if err == nil && time.Now().After(deadline) {
			err = fmt.Errorf("held by another relay process for more than %s", lockWait)
		}
		if err == nil {
			if onLockBusy != nil {
				onLockBusy()
			}
			select {
			case <-ctx.Done():
				err = ctx.Err()
			case <-time.After(20 * time.Millisecond):
				continue
			}
		}
		f.Close()
		c.mu.Unlock()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
}

// Load returns the stored state of a server (nil when none).
func (c *CredentialStore) Load(name, serverURL string) (*OAuthState, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	all, err := c.readAll()
	if err != nil {
		return nil, err
	}
	return all[credentialKey(name, serverURL)], nil
}

// Save stores the state of a server.
func (c *CredentialStore) Save(name, serverURL string, st *OAuthState) error {
	unlock, err := c.lock(context.Background())
	if err != nil {
		return err
	}
	defer unlock()
	return c.saveLocked(name, serverURL, st)
}

func (c *CredentialStore) saveLocked(name, serverURL string, st *OAuthState) error {
	all, err := c.readAll()
	if err != nil {
		return err
	}
	all[credentialKey(name, serverURL)] = st
	return c.writeAll(all)
}

// Remove deletes a server's state and reports whether there was one.
func (c *CredentialStore) Remove(name, serverURL string) (bool, error) {
	unlock, err := c.lock(context.Background())
	if err != nil {
		return false, err
	}
	defer unlock()
	all, err := c.readAll()
	if err != nil {
		return false, err
	}
	k := credentialKey(name, serverURL)
	if _, ok := all[k]; !ok {
		return false, nil
	}
	delete(all, k)
	return true, c.writeAll(all)
}

func (c *CredentialStore) client() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	return http.DefaultClient
}

// refreshSkew refreshes access tokens this long before they expire.
const refreshSkew = 30 * time.Second

// refresh exchanges the stored refresh token for new tokens and saves them.
// Tokens changed meanwhile (another request refreshed them) are kept.
//
// The whole exchange holds the credentials lock, and the state is read
// again under it: when another relay process refreshed first, its tokens
// are used instead of spending the (possibly rotated) refresh token again.
func (c *CredentialStore) refresh(ctx context.Context, name, serverURL, staleToken string) (*OAuthState, error) {
	unlock, err := c.lock(ctx)
	if err != nil {
		return nil, fmt.Errorf("refresh token: %w", err)
	}
	defer unlock()
	all, err := c.readAll()
	if err != nil {
		return nil, ErrSignInRequired
	}
	st := all[credentialKey(name, serverURL)]
	if st == nil {
		return nil, ErrSignInRequired
	}
	if st.AccessToken != staleToken && staleToken != "" {
		return st, nil
	}
	if st.RefreshToken == "" {
		return nil, ErrSignInRequired
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, c.client())
	old := st.token()
	old.Expiry = time.Unix(1, 0) // force the refresh
	tok, err := st.config().TokenSource(ctx, old).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return nil, fmt.Errorf("%w: refresh rejected: %v", ErrSignInRequired, err)
		}
		return nil, fmt.Errorf("refresh token: %w", err)
	}
	st.AccessToken, st.TokenType, st.Expiry = tok.AccessToken, tok.TokenType, tok.Expiry
	if tok.RefreshToken != "" {
		st.RefreshToken = tok.RefreshToken
	}
	if err := c.saveLocked(name, serverURL, st); err != nil {
		return nil, err
	}
	return st, nil
}

// handler is the OAuth handler of a connection: it sends the stored access
// token, refreshes it before it expires or after a 401, and reports
// ErrSignInRequired when the user must sign in. It never opens a browser.
func (c *CredentialStore) handler(name string, cfg *ServerConfig) oauthHandler {
	return &connHandler{store: c, name: name, url: cfg.URL}
}

type connHandler struct {
	store *CredentialStore
	name  string
	url   string
}

func (h *connHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	st, err := h.store.Load(h.name, h.url)
	if err != nil || st == nil || st.AccessToken == "" {
		return nil, nil
	}
	if !st.Expiry.IsZero() && time.Until(st.Expiry) < refreshSkew && st.RefreshToken != "" {
		if fresh, err := h.store.refresh(ctx, h.name, h.url, st.AccessToken); err == nil {
			st = fresh
		}
		// On failure the old token goes out and a 401 decides.
	}
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: st.AccessToken, TokenType: "Bearer"}), nil
}

func (h *connHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if challengeParam(challenges, "error") == "insufficient_scope" {
		return fmt.Errorf("%w: the server asks for more scope", ErrSignInRequired)
	}
	if resp.StatusCode == http.StatusForbidden {
		return fmt.Errorf("HTTP 403 Forbidden")
	}
	stale := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
	if stale == "" {
		return ErrSignInRequired
	}
	_, err := h.store.refresh(ctx, h.name, h.url, stale)
	return err
}

func challengeParam(cs []oauthex.Challenge, key string) string {
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, "bearer") && c.Params[key] != "" {
			return c.Params[key]
		}
	}
	for _, c := range cs {
		if c.Params[key] != "" {
			return c.Params[key]
		}
	}
	return ""
}

// LoginOptions drive an interactive sign-in.
type LoginOptions struct {
	// OpenURL shows the authorization URL (and opens a browser).
	OpenURL func(string)
	// Timeout bounds the wait for the browser (default 5 minutes).
	Timeout time.Duration
	// Headers are the server's resolved headers, sent with the probe.
	Headers []KV
	// ClientSecret is the resolved oauth.clientSecret.
	ClientSecret string
}

const callbackPath = "/callback"

// Login signs in to an HTTP server with the authorization code flow and
// PKCE: it finds the authorization server (protected resource metadata,
// RFC 9728, or oauth.authServerMetadataUrl), registers a client unless one
// is configured, opens the authorization URL, waits for the loopback
// callback, exchanges the code and stores the tokens.
func (c *CredentialStore) Login(ctx context.Context, name string, cfg *ServerConfig, opts LoginOptions) error {
	if !cfg.IsHTTP() {
		return fmt.Errorf("MCP server %q is not an HTTP server", name)
	}
	oc := cfg.OAuth
	if oc == nil {
		oc = &OAuthConfig{}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	hc := c.client()

	challenges := c.probe(ctx, cfg.URL, opts.Headers)
	resource := cfg.URL
	var prm *oauthex.ProtectedResourceMetadata
	for _, u := range prmURLs(challengeParam(challenges, "resource_metadata"), cfg.URL) {
		p, err := oauthex.GetProtectedResourceMetadata(ctx, u.url, u.resource, hc)
		if err == nil && p != nil && len(p.AuthorizationServers) > 0 {
			prm, resource = p, p.Resource
			break
		}
	}
	var asm *oauthex.AuthServerMeta
	var err error
	switch {
	case oc.AuthServerMetadataURL != "":
		asm, err = fetchJSON[oauthex.AuthServerMeta](ctx, hc, oc.AuthServerMetadataURL)
		if err != nil {
			return fmt.Errorf("read oauth.authServerMetadataUrl %s: %w", oc.AuthServerMetadataURL, err)
		}
	default:
		issuer := origin(cfg.URL)
		if prm != nil {
			issuer = prm.AuthorizationServers[0]
		}
		asm, err = auth.GetAuthServerMetadata(ctx, issuer, hc)
		if err != nil {
			return fmt.Errorf("discover the authorization server %s: %w", issuer, err)
		}
		if asm == nil {
			asm = &oauthex.AuthServerMeta{Issuer: issuer, AuthorizationEndpoint: issuer + "/authorize",
				TokenEndpoint: issuer + "/token", RegistrationEndpoint: issuer + "/register"}
		}
	}
	if asm.AuthorizationEndpoint == "" || asm.TokenEndpoint == "" {
		return errors.New("the authorization server metadata names no authorization or token endpoint")
	}

	ln, redirect, err := listenCallback(oc)
	if err != nil {
		return err
	}
	defer ln.Close()

	prev, _ := c.Load(name, cfg.URL)
	st := &OAuthState{TokenURL: asm.TokenEndpoint, RedirectURI: redirect}
	switch {
	case oc.ClientID != "":
		st.ClientID, st.ClientSecret = oc.ClientID, opts.ClientSecret
		st.AuthStyle = int(authStyleFor(asm.TokenEndpointAuthMethodsSupported, st.ClientSecret))
	case prev != nil && prev.Registered && prev.RedirectURI == redirect && prev.TokenURL == asm.TokenEndpoint:
		st.ClientID, st.ClientSecret, st.AuthStyle, st.Registered = prev.ClientID, prev.ClientSecret, prev.AuthStyle, true
	default:
		if asm.RegistrationEndpoint == "" {
			return errors.New("the authorization server does not support dynamic client registration; set oauth.clientId")
		}
		clientName := oc.ClientName
		if clientName == "" {
			clientName = "relay"
		}
		reg, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: clientName, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}, hc)
		if err != nil {
			return fmt.Errorf("register a client: %w", err)
		}
		st.ClientID, st.ClientSecret, st.Registered = reg.ClientID, reg.ClientSecret, true
		st.AuthStyle = int(authStyleFor([]string{reg.TokenEndpointAuthMethod}, reg.ClientSecret))
	}

	scopes := strings.Fields(oc.Scope)
	if s := challengeParam(challenges, "scope"); s != "" {
		scopes = mergeScopes(scopes, strings.Fields(s))
	} else if len(scopes) == 0 && prm != nil {
		scopes = prm.ScopesSupported
	}
	conf := &oauth2.Config{ClientID: st.ClientID, ClientSecret: st.ClientSecret, RedirectURL: redirect, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: asm.AuthorizationEndpoint, TokenURL: asm.TokenEndpoint, AuthStyle: oauth2.AuthStyle(st.AuthStyle)}}
	verifier := oauth2.GenerateVerifier()
	state := rand.Text()
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource))

	codeCh := make(chan callbackResult, 1)
	srv := &http.Server{Handler: callbackHandler(redirect, state, codeCh), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	if opts.OpenURL != nil {
		opts.OpenURL(authURL)
	}
	var res callbackResult
	select {
	case res = <-codeCh:
	case <-ctx.Done():
		return fmt.Errorf("no sign-in within %s: %w", opts.Timeout, ctx.Err())
	}
	if res.err != nil {
		return res.err
	}
	if res.iss != "" && asm.Issuer != "" && res.iss != asm.Issuer {
		return fmt.Errorf("authorization response issuer %q does not match %q", res.iss, asm.Issuer)
	}
	xctx := context.WithValue(ctx, oauth2.HTTPClient, hc)
	tok, err := conf.Exchange(xctx, res.code, oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		return fmt.Errorf("exchange the authorization code: %w", err)
	}
	st.AccessToken, st.RefreshToken, st.TokenType, st.Expiry = tok.AccessToken, tok.RefreshToken, tok.TokenType, tok.Expiry
	st.Scope = strings.Join(scopes, " ")
	return c.Save(name, cfg.URL, st)
}

func mergeScopes(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range append(append([]string(nil), a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func authStyleFor(methods []string, secret string) oauth2.AuthStyle {
	if secret == "" {
		return oauth2.AuthStyleInParams
	}
	for _, m := range methods {
		switch m {
		case "client_secret_post":
			return oauth2.AuthStyleInParams
		case "client_secret_basic":
			return oauth2.AuthStyleInHeader
		}
	}
	return oauth2.AuthStyleAutoDetect
}

func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host
}

type prmURL struct{ url, resource string }

// prmURLs are where protected resource metadata may be: the challenge's
// URL, then the well-known path for the endpoint, then the root.
func prmURLs(fromChallenge, resource string) []prmURL {
	var out []prmURL
	if fromChallenge != "" {
		out = append(out, prmURL{fromChallenge, resource})
	}
	u, err := url.Parse(resource)
	if err != nil {
		return out
	}
	m := *u
	m.RawQuery, m.Fragment = "", ""
	m.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/")
	out = append(out, prmURL{m.String(), resource})
	m.Path = "/.well-known/oauth-protected-resource"
	root := *u
	root.Path, root.RawQuery, root.Fragment = "", "", ""
	out = append(out, prmURL{m.String(), root.String()})
	return out
}

// probe sends an initialize request without credentials and returns the
// WWW-Authenticate challenges of the answer.
func (c *CredentialStore) probe(ctx context.Context, serverURL string, headers []KV) []oauthex.Challenge {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"relay","version":"login"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(body))
	if err != nil {
		return nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for _, h := range headers {
		req.Header.Set(h.Key, h.Value)
	}
	resp, err := c.client().Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	return cs
}

func fetchJSON[T any](ctx context.Context, hc *http.Client, u string) (*T, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var v T
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v); err != nil {
		return nil, err
	}
	return &v, nil
}

// listenCallback opens the loopback callback listener and returns the
// redirect URI it serves: oauth.callbackUrl as written (its port, else
// callbackPort, else a free one added), else http://127.0.0.1:<port>/callback.
func listenCallback(oc *OAuthConfig) (net.Listener, string, error) {
	raw := oc.CallbackURL
	if raw == "" {
		raw = "http://127.0.0.1" + callbackPath
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "", err
	}
	host := u.Hostname()
	listenHost := host
	if host == "localhost" {
		listenHost = "127.0.0.1"
	}
	port := u.Port()
	if port == "" && oc.CallbackPort != 0 {
		port = fmt.Sprint(oc.CallbackPort)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(listenHost, orZeroPort(port)))
	if err != nil {
		return nil, "", fmt.Errorf("listen for the OAuth callback on %s: %w", net.JoinHostPort(listenHost, orZeroPort(port)), err)
	}
	if u.Port() != "" {
		return ln, raw, nil // servers compare the registered URI as a string
	}
	actual := ln.Addr().(*net.TCPAddr).Port
	u.Host = net.JoinHostPort(host, fmt.Sprint(actual))
	if strings.Contains(host, ":") {
		u.Host = fmt.Sprintf("[%s]:%d", host, actual)
	}
	return ln, u.String(), nil
}

func orZeroPort(p string) string {
	if p == "" {
		return "0"
	}
	return p
}

type callbackResult struct {
	code, iss string
	err       error
}

func callbackHandler(redirect, state string, out chan<- callbackResult) http.Handler {
	want, _ := url.Parse(redirect)
	var once sync.Once
	send := func(r callbackResult) { once.Do(func() { out <- r }) }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if want != nil && r.URL.Path != want.Path {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if e := q.Get("error"); e != "" {
			msg := e
			if d := q.Get("error_description"); d != "" {
				msg += ": " + d
			}
			send(callbackResult{err: fmt.Errorf("authorization failed: %s", msg)})
			fmt.Fprint(w, "<html><body><h1>Sign-in failed</h1><p>You can close this tab and return to relay.</p></body></html>")
			return
		}
		if q.Get("state") != state {
			http.Error(w, "state mismatch", http.StatusBadRequest)
			return
		}
		send(callbackResult{code: q.Get("code"), iss: q.Get("iss")})
		fmt.Fprint(w, "<html><body><h1>Signed in</h1><p>You can close this tab and return to relay.</p></body></html>")
	})
}
