package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// OAuthProvider is a subscription sign-in as the request path needs it:
// renewing a stored credential and deriving the key requests carry.
// internal/auth implements it; models itself does no network I/O.
type OAuthProvider interface {
	// Refresh exchanges c's refresh token for a new credential. An error
	// wrapping ErrRevoked means the grant is gone for good.
	Refresh(ctx context.Context, c *Credential) (*Credential, error)
	// Use says how requests authenticate with c: the key (the access token
	// for most providers), extra headers and, for providers whose endpoint
	// depends on the account (Copilot), the base URL.
	Use(c *Credential) (OAuthUse, error)
}

// OAuthUse is what a request needs from a stored OAuth credential.
type OAuthUse struct {
	APIKey  string
	Headers map[string]string
	BaseURL string
}

// ErrRevoked marks a refresh the authorization server refused for good
// (invalid_grant, revoked or expired refresh token).
var ErrRevoked = errors.New("the sign-in was revoked or has expired")

// RefreshMargin is how long before expiry a stored OAuth token is renewed.
const RefreshMargin = 5 * time.Minute

// refreshWait bounds the wait for another relay process's refresh, and
// refreshTimeout one token request of ours (below staleLock would not be
// needed: the lock is kept fresh while held, but a hung server must not
// keep every relay waiting).
var (
	refreshWait    = 60 * time.Second
	refreshTimeout = 30 * time.Second
)

// SignInError says a stored subscription credential cannot be used and
// what to run.
type SignInError struct {
	Provider string
	Err      error
}

func (e *SignInError) Error() string {
	return fmt.Sprintf("%s: %v; sign in again: run /login %s", e.Provider, e.Err, e.Provider)
}

func (e *SignInError) Unwrap() error { return e.Err }

// FreshOAuth returns provider's stored OAuth credential, renewed first when
// it expires within minValid. A credential with time left costs no file
// read and no request. Renewal happens under the auth.json lock, shared by
// every relay process: the file is read again once the lock is held, so
// when another process renewed meanwhile its token is used and no second
// request goes out. A failed refresh writes nothing (the stored token
// stays) and, while the old access token is still valid, is not an error.
// Non-OAuth entries are returned as they are.
func (s *AuthStore) FreshOAuth(ctx context.Context, provider string, p OAuthProvider, minValid time.Duration, now func() time.Time) (*Credential, error) {
	if now == nil {
		now = time.Now
	}
	c, err := s.Get(provider)
	if err != nil || c == nil || c.Type != "oauth" || !c.Expired(now().Add(minValid)) {
		return c, err
	}
	if p == nil || c.Refresh == "" {
		if !c.Expired(now()) {
			return c, nil
		}
		return nil, &SignInError{Provider: provider, Err: errors.New("the stored sign-in has expired and cannot be renewed")}
	}
	// One refresh at a time in this process (s.mu stays free for the
	// other providers' requests while the token request runs).
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(s.path), err)
	}
	unlock, err := acquireLock(s.path+".lock", refreshWait)
	if err != nil {
		return usableOr(provider, c, now, err)
	}
	defer unlock()
	entries, err := readAuthFile(s.path)
	if err != nil {
		return nil, err
	}
	s.setEntries(entries)
	raw, ok := entries[provider]
	if !ok {
		return nil, &SignInError{Provider: provider, Err: errors.New("signed out in another relay process")}
	}
	cur, err := parseCredential(s.path, provider, raw)
	if err != nil {
		return nil, err
	}
	if cur.Type != "oauth" || !cur.Expired(now().Add(minValid)) {
		return cur, nil // renewed (or replaced) by another process
	}
	rctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	fresh, rerr := p.Refresh(rctx, cur)
	cancel()
	if rerr == nil && (fresh == nil || fresh.Access == "") {
		rerr = errors.New("the token endpoint returned no access token")
	}
	if rerr != nil {
		if errors.Is(rerr, ErrRevoked) {
			return nil, &SignInError{Provider: provider, Err: rerr}
		}
		return usableOr(provider, cur, now, fmt.Errorf("token refresh failed: %w", rerr))
	}
	fresh.Type = "oauth"
	if fresh.Refresh == "" {
		fresh.Refresh = cur.Refresh // servers that do not rotate
	}
	for k, v := range cur.Extra {
		if _, set := fresh.Extra[k]; !set {
			if fresh.Extra == nil {
				fresh.Extra = map[string]json.RawMessage{}
			}
			fresh.Extra[k] = v
		}
	}
	entry, err := fresh.MarshalOAuth()
	if err != nil {
		return nil, err
	}
	entries[provider] = entry
	data, err := marshalSorted(entries)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(s.path, data, 0o600); err != nil {
		// The new token works for this process, but a server that rotates
		// refresh tokens has just invalidated the one on disk: say so.
		return fresh, fmt.Errorf("%s: renewed the sign-in but could not save it: %w", provider, err)
	}
	s.setEntries(entries)
	return fresh, nil
}

// usableOr returns c while its access token is still valid (a transient
// refresh failure near expiry must not stop the request), else a
// SignInError carrying err.
func usableOr(provider string, c *Credential, now func() time.Time, err error) (*Credential, error) {
	if !c.Expired(now()) {
		return c, nil
	}
	return nil, &SignInError{Provider: provider, Err: err}
}

func (s *AuthStore) setEntries(entries map[string]json.RawMessage) {
	s.mu.Lock()
	s.entries, s.loaded, s.loadErr = entries, true, nil
	s.mu.Unlock()
}
