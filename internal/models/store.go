package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/llm"
)

// The remote model catalog: a refresh asks the catalog service for each
// built-in provider that has credentials (or every one, when forced) and
// keeps the answers in <agentDir>/models-store.json, the original's store,
// so the file moves both ways:
//
//	{"<provider>": {"models": [Model...], "checkedAt": ms, "lastModified": ms, "etag": "..."}}
//
// Stored models are laid over the built-in catalog (same provider and id:
// replaced) when the catalog service's copy is newer than the built-in one.

// CatalogRefreshInterval is how long a checked provider is left alone by
// background refreshes (the original's 4 hours).
const CatalogRefreshInterval = 4 * time.Hour

// catalogGeneratedAt is when the built-in catalog data was taken; stored
// catalogs last modified before it are older than what relay ships.
var catalogGeneratedAt = time.Date(2026, 10, 10, 3, 36, 5, 0, time.UTC)

// maxStore bounds models-store.json.
const maxStore = 64 << 20

// StoreEntry is one provider's refreshed catalog.
type StoreEntry struct {
	Models       []json.RawMessage `json:"models"`
	CheckedAt    int64             `json:"checkedAt,omitempty"`
	LastModified int64             `json:"lastModified,omitempty"`
	ETag         string            `json:"etag,omitempty"`
}

// Fetched is what the catalog service answered for one provider.
type Fetched struct {
	Status       int // 200, 304, 404, 501, or an error status
	Body         []byte
	ETag         string
	LastModified time.Time
}

// CatalogFetcher asks the catalog service for one provider's models,
// revalidating with etag when not empty.
type CatalogFetcher func(ctx context.Context, provider, etag string) (Fetched, error)

// RefreshOptions select what a catalog refresh does.
type RefreshOptions struct {
	Fetch CatalogFetcher
	// Force refreshes every provider now (relay update --models);
	// otherwise only those with credentials, not checked for
	// CatalogRefreshInterval.
	Force bool
	Now   func() time.Time
}

// RefreshResult is one provider's outcome.
type RefreshResult struct {
	Provider string
	Models   int    // models the service lists (0 when unchanged or absent)
	Status   string // "updated", "unchanged", "absent", "fresh", "failed"
	Err      error
}

// storeMu serializes writers of models-store.json within the process.
var storeMu sync.Mutex

func readStore(path string) (map[string]StoreEntry, error) {
	if path == "" {
		return nil, nil
	}
	data, err := fsx.ReadFile(path, maxStore)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m map[string]StoreEntry
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func writeStoreEntry(path, provider string, e StoreEntry) error {
	storeMu.Lock()
	defer storeMu.Unlock()
	m, err := readStore(path)
	if err != nil || m == nil {
		m = map[string]StoreEntry{} // a broken store is replaced, it is only a cache
	}
	if e.Models == nil {
		e.Models = []json.RawMessage{}
	}
	m[provider] = e
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomic(path, data, 0o600)
}

// parseCatalog reads a catalog answer: an array of models, an object with
// "models", or an object whose values are models; entries without an id
// or of a type relay does not use are skipped.
func parseRemoteCatalog(provider string, body []byte) ([]json.RawMessage, error) {
	var raw any
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("catalog for %s: %w", provider, err)
	}
	var entries []any
	switch v := raw.(type) {
	case []any:
		entries = v
	case map[string]any:
		if ms, ok := v["models"].([]any); ok {
			entries = ms
		} else {
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				entries = append(entries, v[k])
			}
		}
	default:
		return nil, fmt.Errorf("catalog for %s: not an array or object", provider)
	}
	out := []json.RawMessage{}
	for _, e := range entries {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if id, _ := m["id"].(string); id == "" {
			continue
		}
		switch t, _ := m["type"].(string); t {
		case "", "chat", "image", "classifier":
		default:
			continue
		}
		m["provider"] = provider
		b, err := json.Marshal(m)
		if err != nil {
			continue
		}
		out = append(out, b)
	}
	return out, nil
}

// storeOverlay returns the chat models of the stored catalogs that are
// newer than the built-in catalog.
func storeOverlay(store map[string]StoreEntry) []*llm.Model {
	var out []*llm.Model
	providers := make([]string, 0, len(store))
	for p := range store {
		providers = append(providers, p)
	}
	sort.Strings(providers)
	for _, p := range providers {
		e := store[p]
		if e.LastModified == 0 || e.LastModified <= catalogGeneratedAt.UnixMilli() {
			continue
		}
		def, _ := builtinProviderDefaults(p)
		for _, raw := range e.Models {
			var m llm.Model
			if json.Unmarshal(raw, &m) != nil || m.ID == "" || (m.Type != "" && m.Type != "chat") {
				continue
			}
			m.Provider = p
			if m.API == "" {
				m.API = def.API
			}
			if m.BaseURL == "" {
				m.BaseURL = def.BaseURL
			}
			if m.Name == "" {
				m.Name = m.ID
			}
			if m.Input == nil {
				m.Input = []string{"text"}
			}
			if m.ContextWindow <= 0 {
				m.ContextWindow = 128000
			}
			if m.MaxTokens <= 0 {
				m.MaxTokens = 16384
			}
			if m.API == "" || m.BaseURL == "" {
				continue // a provider relay does not know how to reach
			}
			out = append(out, &m)
		}
	}
	return out
}

// overlayModels replaces same-provider/id models of base with over and
// appends the others. The models of an account catalog (accountCatalogs)
// are the account's list alone: the shipped rows of that provider go.
func overlayModels(base, over []*llm.Model) []*llm.Model {
	if len(over) == 0 {
		return base
	}
	listed := map[string]bool{}
	for _, m := range over {
		if accountCatalogs[m.Provider] {
			listed[m.Provider] = true
		}
	}
	if len(listed) > 0 {
		kept := base[:0:0]
		for _, m := range base {
			if !listed[m.Provider] {
				kept = append(kept, m)
			}
		}
		base = kept
	}
	idx := make(map[string]int, len(base))
	for i, m := range base {
		idx[m.Provider+"\x00"+m.ID] = i
	}
	for _, m := range over {
		if i, ok := idx[m.Provider+"\x00"+m.ID]; ok {
			base[i] = m
			continue
		}
		idx[m.Provider+"\x00"+m.ID] = len(base)
		base = append(base, m)
	}
	return base
}

// RefreshCatalog refreshes the stored catalogs of the built-in providers
// (see RefreshOptions) and reloads the registry when any changed. It
// returns one result per provider asked; err joins the failures.
func (r *Registry) RefreshCatalog(ctx context.Context, o RefreshOptions) ([]RefreshResult, error) {
	if r.storePath == "" {
		return nil, errors.New("refresh model catalogs: no agent directory")
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	store, err := readStore(r.storePath)
	if err != nil {
		store = nil // only a cache: start over
	}
	var results []RefreshResult
	var errs []error
	changed := false
	for _, p := range catalogProviders() {
		if !o.Force && !r.HasAuth(p) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		stored, have := store[p]
		if !o.Force && have && stored.LastModified != 0 && now().Sub(time.UnixMilli(stored.CheckedAt)) < CatalogRefreshInterval {
			results = append(results, RefreshResult{Provider: p, Status: "fresh"})
			continue
		}
		etag := ""
		if have && len(stored.Models) > 0 {
			etag = stored.ETag // revalidate only what a stored body backs
		}
		res := RefreshResult{Provider: p}
		f, ferr := o.Fetch(ctx, p, etag)
		checked := now().UnixMilli()
		next := stored
		next.CheckedAt = checked
		switch {
		case ferr != nil:
			res.Status, res.Err = "failed", ferr
		case f.Status == 304 && have:
			res.Status, res.Models = "unchanged", len(stored.Models)
		case f.Status == 404 || f.Status == 501:
			res.Status = "absent"
			next.LastModified, next.ETag = 0, ""
		case f.Status != 200:
			res.Status, res.Err = "failed", fmt.Errorf("model catalog request failed for %s: %d", p, f.Status)
		default:
			ms, perr := parseRemoteCatalog(p, f.Body)
			if perr != nil {
				res.Status, res.Err = "failed", perr
				break
			}
			lm := int64(0)
			if !f.LastModified.IsZero() {
				lm = f.LastModified.UnixMilli()
			}
			next = StoreEntry{Models: ms, CheckedAt: checked, LastModified: lm, ETag: f.ETag}
			res.Status, res.Models = "updated", len(ms)
			changed = true
		}
		if res.Err != nil {
			errs = append(errs, res.Err)
		}
		if ctx.Err() == nil || res.Status != "failed" {
			if werr := writeStoreEntry(r.storePath, p, next); werr != nil {
				errs = append(errs, fmt.Errorf("write %s: %w", r.storePath, werr))
			}
		}
		results = append(results, res)
	}
	if changed {
		_ = r.Reload() // a models.json error is reported where it always is
	}
	return results, errors.Join(errs...)
}

// catalogProviders are the built-in providers a catalog refresh asks for.
func catalogProviders() []string {
	var out []string
	for _, p := range knownProviders {
		if p.ID != LlamaProvider {
			out = append(out, p.ID)
		}
	}
	return out
}
