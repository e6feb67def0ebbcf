package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/llm"
)

// Credential is one auth.json entry.
type Credential struct {
	// Type is "api_key" or "oauth".
	Type string
	// Key is the api_key value as written (literal, $NAME, ${NAME} or
	// !command); resolve it with AuthStore.APIKey.
	Key string
	// Env overrides process environment variables for this provider.
	Env map[string]string
	// OAuth fields.
	Access  string
	Refresh string
	Expires int64 // unix milliseconds
	// Extra holds the provider's other members of an OAuth entry as
	// written (accountId, projectId, enterpriseUrl, ...): they are kept on
	// refresh and written back unchanged, so the file moves both ways
	// between relay and the original.
	Extra map[string]json.RawMessage
}

// Expired reports whether an OAuth credential's access token has expired
// at now (API keys never expire here). The request path asks it with now
// moved forward by the refresh margin, so tokens are renewed shortly
// before they lapse.
func (c *Credential) Expired(now time.Time) bool {
	return c.Type == "oauth" && c.Expires > 0 && now.UnixMilli() >= c.Expires
}

// ExtraString returns the string member key of an OAuth entry ("" when
// absent or not a string).
func (c *Credential) ExtraString(key string) string {
	var s string
	if v, ok := c.Extra[key]; ok {
		_ = json.Unmarshal(v, &s)
	}
	return s
}

// SetExtra sets (or with a nil value removes) a provider member.
func (c *Credential) SetExtra(key string, v any) {
	if v == nil {
		delete(c.Extra, key)
		return
	}
	b, err := llm.Marshal(v)
	if err != nil {
		return
	}
	if c.Extra == nil {
		c.Extra = map[string]json.RawMessage{}
	}
	c.Extra[key] = b
}

// MarshalOAuth writes an OAuth credential in auth.json's shape:
// {"type":"oauth","access","refresh","expires", ...extras}.
func (c *Credential) MarshalOAuth() (json.RawMessage, error) {
	m := make(map[string]any, len(c.Extra)+4)
	for k, v := range c.Extra {
		m[k] = v
	}
	m["type"] = "oauth"
	m["access"] = c.Access
	m["refresh"] = c.Refresh
	m["expires"] = c.Expires
	return llm.Marshal(m)
}

// AuthStore reads and writes auth.json. Reads happen lazily on first use;
// writes go through a lock file and land atomically with mode 0600.
type AuthStore struct {
	path string

	mu        sync.Mutex
	refreshMu sync.Mutex // serializes OAuth refreshes (FreshOAuth)
	loaded    bool
	entries   map[string]json.RawMessage
	loadErr   error
	cmds      commandCache
}

// NewAuthStore returns a store for the auth.json at path.
func NewAuthStore(path string) *AuthStore { return &AuthStore{path: path} }

// Path is the file this store reads and writes.
func (s *AuthStore) Path() string { return s.path }

// lockTimeout bounds how long a writer waits for another relay's lock, and
// staleLock is the age past which a lock file is considered abandoned.
var (
	lockTimeout = 5 * time.Second
	staleLock   = 30 * time.Second
)

func (s *AuthStore) ensureLoaded() error {
	if s.loaded {
		return s.loadErr
	}
	s.loaded = true
	s.entries, s.loadErr = readAuthFile(s.path)
	return s.loadErr
}

func readAuthFile(path string) (map[string]json.RawMessage, error) {
	data, err := fsx.ReadFile(path, config.MaxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return map[string]json.RawMessage{}, fmt.Errorf("read %s: %w", path, err)
	}
	entries := map[string]json.RawMessage{}
	if len(trimSpace(data)) == 0 {
		return entries, nil
	}
	if err := json.Unmarshal(data, &entries); err != nil {
		return map[string]json.RawMessage{}, fmt.Errorf("parse %s: %s (expected an object keyed by provider id)", path, describeSyntaxError(data, err))
	}
	return entries, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\r' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

// Reload forgets the cached file contents (command results stay cached for
// the process lifetime, as documented).
func (s *AuthStore) Reload() {
	s.mu.Lock()
	s.loaded = false
	s.mu.Unlock()
}

// Get returns the credential stored for provider, nil when there is none.
// A malformed entry is an error naming the provider.
func (s *AuthStore) Get(provider string) (*Credential, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ensureLoaded(); err != nil {
		return nil, err
	}
	raw, ok := s.entries[provider]
	if !ok {
		return nil, nil
	}
	return parseCredential(s.path, provider, raw)
}

// Providers lists the providers with a stored entry, sorted.
func (s *AuthStore) Providers() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.ensureLoaded()
	ids := make([]string, 0, len(s.entries))
	for k := range s.entries {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	return ids, err
}

func parseCredential(path, provider string, raw json.RawMessage) (*Credential, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: provider %q: %s", path, provider, fmt.Sprintf(format, a...))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, bad("expected an object with a \"type\" of \"api_key\" or \"oauth\"")
	}
	str := func(key string, required bool) (string, error) {
		v, ok := m[key]
		if !ok || string(v) == "null" {
			if required {
				return "", bad("%q is required", key)
			}
			return "", nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", bad("%q must be a string", key)
		}
		return s, nil
	}
	typ, err := str("type", true)
	if err != nil {
		return nil, err
	}
	c := &Credential{Type: typ}
	switch typ {
	case "api_key":
		if c.Key, err = str("key", false); err != nil {
			return nil, err
		}
		if v, ok := m["env"]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, &c.Env); err != nil {
				return nil, bad("\"env\" must be an object of string values")
			}
		}
	case "oauth":
		if c.Access, err = str("access", true); err != nil {
			return nil, err
		}
		if c.Refresh, err = str("refresh", false); err != nil {
			return nil, err
		}
		if v, ok := m["expires"]; ok && string(v) != "null" {
			var f float64
			if err := json.Unmarshal(v, &f); err != nil {
				return nil, bad("\"expires\" must be a number (unix milliseconds)")
			}
			c.Expires = int64(f)
		}
		for k, v := range m {
			switch k {
			case "type", "access", "refresh", "expires":
				continue
			}
			if c.Extra == nil {
				c.Extra = map[string]json.RawMessage{}
			}
			c.Extra[k] = v
		}
	default:
		return nil, bad("\"type\" must be \"api_key\" or \"oauth\", got %s", strconv.Quote(typ))
	}
	return c, nil
}

// APIKey resolves the stored key of provider: literal, $NAME/${NAME} from
// the environment (the entry's env map first), or !command run once per
// process. It returns "" when nothing usable is stored, and a
// *CommandError when the command failed.
func (s *AuthStore) APIKey(ctx context.Context, provider string, getenv func(string) string) (string, *Credential, error) {
	c, err := s.Get(provider)
	if err != nil || c == nil {
		return "", c, err
	}
	switch c.Type {
	case "oauth":
		return c.Access, c, nil
	default:
		if c.Key == "" {
			return "", c, nil
		}
		v, err := resolveValue(ctx, c.Key, envWith(c.Env, getenv), &s.cmds)
		if err != nil {
			return "", c, &CommandError{Provider: provider, Source: "auth.json key", Err: err}
		}
		return v, c, nil
	}
}

// envWith layers a credential's env map over the process environment.
func envWith(over map[string]string, getenv func(string) string) func(string) string {
	if len(over) == 0 {
		return getenv
	}
	return func(name string) string {
		if v, ok := over[name]; ok {
			return v
		}
		return getenv(name)
	}
}

// Login stores an API key for provider (what /login writes).
func (s *AuthStore) Login(provider, key string) error {
	if provider == "" {
		return errors.New("login: provider is required")
	}
	entry, err := llm.Marshal(map[string]string{"type": "api_key", "key": key})
	if err != nil {
		return err
	}
	return s.Set(provider, entry)
}

// Logout removes the stored credential of provider. It does not touch the
// environment or models.json.
func (s *AuthStore) Logout(provider string) error {
	return s.update(func(m map[string]json.RawMessage) bool {
		if _, ok := m[provider]; !ok {
			return false
		}
		delete(m, provider)
		return true
	})
}

// Set stores a raw credential object (for OAuth flows) for provider.
func (s *AuthStore) Set(provider string, entry json.RawMessage) error {
	if _, err := parseCredential(s.path, provider, entry); err != nil {
		return err
	}
	return s.update(func(m map[string]json.RawMessage) bool {
		m[provider] = append(json.RawMessage(nil), entry...)
		return true
	})
}

// update re-reads the file under the lock, applies fn and writes the result
// when fn reports a change.
func (s *AuthStore) update(fn func(map[string]json.RawMessage) bool) error {
	// The file lock serializes writers in this process too; s.mu is only
	// taken to publish the result (FreshOAuth holds the file lock while it
	// takes s.mu, so the order is always file lock, then s.mu).
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	unlock, err := acquireLock(s.path+".lock", lockTimeout)
	if err != nil {
		return err
	}
	defer unlock()
	entries, err := readAuthFile(s.path)
	if err != nil {
		return err
	}
	if !fn(entries) {
		s.setEntries(entries)
		return nil
	}
	data, err := marshalSorted(entries)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(s.path, data, 0o600); err != nil {
		return err
	}
	s.setEntries(entries)
	return nil
}

func marshalSorted(entries map[string]json.RawMessage) ([]byte, error) {
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	buf := []byte("{\n")
	for i, k := range keys {
		kb, _ := llm.Marshal(k)
		var compact []byte
		if c, err := llm.Marshal(entries[k]); err == nil {
			compact = c
		} else {
			return nil, err
		}
		buf = append(buf, "  "...)
		buf = append(buf, kb...)
		buf = append(buf, ": "...)
		buf = append(buf, compact...)
		if i < len(keys)-1 {
			buf = append(buf, ',')
		}
		buf = append(buf, '\n')
	}
	return append(buf, "}\n"...), nil
}

// writeFileAtomic writes data to a temp file in the same directory with the
// given mode and renames it over path.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".auth-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	defer os.Remove(name)
	if err := tmp.Chmod(mode); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Chmod(path, mode)
}

// acquireLock creates lockPath exclusively, waiting for another holder up
// to wait and breaking locks not touched for staleLock. While held, the
// lock file's time is refreshed (a slow token refresh keeps its lock), so
// only a lock whose holder died goes stale.
func acquireLock(lockPath string, wait time.Duration) (func(), error) {
	deadline := time.Now().Add(wait)
	for {
		f, err := os.OpenFile(lockPath, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				t := time.NewTicker(staleLock / 4)
				defer t.Stop()
				for {
					select {
					case <-stop:
						return
					case now := <-t.C:
						_ = os.Chtimes(lockPath, now, now)
					}
				}
			}()
			return func() {
				close(stop)
				<-done
				os.Remove(lockPath)
			}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", lockPath, err)
		}
		if st, serr := os.Stat(lockPath); serr == nil && time.Since(st.ModTime()) > staleLock {
			os.Remove(lockPath)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("lock %s: held by another relay process (remove it if no relay is running)", lockPath)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
