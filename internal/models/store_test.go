package models

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type fakeCatalog struct {
	mu    sync.Mutex
	calls []string // provider:etag
	serve func(provider, etag string) (Fetched, error)
}

func (f *fakeCatalog) fetch(_ context.Context, provider, etag string) (Fetched, error) {
	f.mu.Lock()
	f.calls = append(f.calls, provider+":"+etag)
	f.mu.Unlock()
	return f.serve(provider, etag)
}

func storeRegistry(t *testing.T, env map[string]string) (*Registry, string) {
	dir := t.TempDir()
	r, err := NewRegistry(Options{Store: filepath.Join(dir, "models-store.json"), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	return r, filepath.Join(dir, "models-store.json")
}

func TestRefreshCatalog(t *testing.T) {
	newer := catalogGeneratedAt.Add(24 * time.Hour)
	body := `{"models":[
		{"id":"claude-opus-4-8","name":"Claude Opus 4.8","api":"anthropic-messages","baseUrl":"https://api.anthropic.com","reasoning":true,"input":["text","image"],"cost":{"input":4,"output":20},"contextWindow":1000000,"maxTokens":128000},
		{"id":"claude-new-9","name":"Claude New 9","reasoning":true,"input":["text"],"contextWindow":500000,"maxTokens":64000,"cost":{"input":1,"output":2}},
		{"id":"img-1","type":"image"},
		{"id":"embed-1","type":"embedding"},
		{"name":"no id"}]}`
	fc := &fakeCatalog{serve: func(p, etag string) (Fetched, error) {
		switch {
		case p != "anthropic":
			return Fetched{Status: 404}, nil
		case etag == `"v1"`:
			return Fetched{Status: 304}, nil
		}
		return Fetched{Status: 200, Body: []byte(body), ETag: `"v1"`, LastModified: newer}, nil
	}}
	r, path := storeRegistry(t, map[string]string{"ANTHROPIC_API_KEY": "k"})
	now := time.Now()
	opts := RefreshOptions{Fetch: fc.fetch, Now: func() time.Time { return now }}

	res, err := r.RefreshCatalog(context.Background(), opts)
	if err != nil || len(res) != 1 || res[0].Provider != "anthropic" || res[0].Status != "updated" || res[0].Models != 3 {
		t.Fatalf("background refresh: %+v %v", res, err)
	}
	if m := r.Find("anthropic", "claude-new-9"); m == nil || m.API != "anthropic-messages" || m.BaseURL != "https://api.anthropic.com" || m.ContextWindow != 500000 {
		t.Fatalf("new model %+v", m)
	}
	if m := r.Find("anthropic", "claude-opus-4-8"); m.Cost.Input != 4 {
		t.Errorf("existing model not replaced: %+v", m.Cost)
	}
	if r.Find("anthropic", "img-1") != nil {
		t.Error("an image model became a chat model")
	}
	// A second registry reads the store at start.
	r2, _ := NewRegistry(Options{Store: path, Getenv: func(string) string { return "" }})
	if r2.Find("anthropic", "claude-new-9") == nil {
		t.Error("store not read at start")
	}

	// Within 4 hours a background refresh leaves it alone.
	res, _ = r.RefreshCatalog(context.Background(), opts)
	if len(res) != 1 || res[0].Status != "fresh" || len(fc.calls) != 1 {
		t.Errorf("fresh: %+v calls %v", res, fc.calls)
	}
	// Forced: every provider, revalidated with the etag.
	opts.Force = true
	res, err = r.RefreshCatalog(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) < 40 || !strings.Contains(strings.Join(fc.calls, " "), `anthropic:"v1"`) {
		t.Errorf("forced: %d results, calls %v", len(res), fc.calls[len(fc.calls)-3:])
	}
	for _, x := range res {
		if x.Provider == "anthropic" && x.Status != "unchanged" || x.Provider == "openai" && x.Status != "absent" {
			t.Errorf("%+v", x)
		}
		if x.Provider == "llama.cpp" {
			t.Error("llama.cpp asked")
		}
	}
	if r.Find("anthropic", "claude-new-9") == nil {
		t.Error("304 dropped the stored models")
	}
}

func TestRefreshCatalogFailuresKeepTheStore(t *testing.T) {
	r, path := storeRegistry(t, map[string]string{"ANTHROPIC_API_KEY": "k"})
	good := Fetched{Status: 200, Body: []byte(`[{"id":"claude-x","api":"anthropic-messages"}]`), ETag: "e", LastModified: catalogGeneratedAt.Add(time.Hour)}
	serve := func(string, string) (Fetched, error) { return good, nil }
	fc := &fakeCatalog{serve: func(p, e string) (Fetched, error) { return serve(p, e) }}
	if _, err := r.RefreshCatalog(context.Background(), RefreshOptions{Fetch: fc.fetch}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []func(string, string) (Fetched, error){
		func(string, string) (Fetched, error) { return Fetched{}, errors.New("dial tcp: connection refused") },
		func(string, string) (Fetched, error) { return Fetched{Status: 503}, nil },
		func(string, string) (Fetched, error) { return Fetched{Status: 200, Body: []byte("<html>")}, nil },
	} {
		serve = bad
		res, err := r.RefreshCatalog(context.Background(), RefreshOptions{Fetch: fc.fetch, Force: true})
		if err == nil {
			t.Errorf("no error for %+v", res[0])
		}
		if r.Find("anthropic", "claude-x") == nil {
			t.Fatal("a failed refresh lost the stored catalog")
		}
	}
	// An old catalog (before the built-in data) is stored but not laid over.
	serve = func(string, string) (Fetched, error) {
		return Fetched{Status: 200, Body: []byte(`[{"id":"claude-old","api":"anthropic-messages"}]`), LastModified: catalogGeneratedAt.Add(-time.Hour)}, nil
	}
	r.RefreshCatalog(context.Background(), RefreshOptions{Fetch: fc.fetch, Force: true})
	if r.Find("anthropic", "claude-old") != nil {
		t.Error("a catalog older than the built-in one was used")
	}
	// A corrupt store is ignored, then replaced.
	os.WriteFile(path, []byte("{not json"), 0o600)
	if err := r.Reload(); err != nil {
		t.Fatal(err)
	}
	serve = func(string, string) (Fetched, error) { return good, nil }
	if _, err := r.RefreshCatalog(context.Background(), RefreshOptions{Fetch: fc.fetch, Force: true}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var m map[string]StoreEntry
	if json.Unmarshal(data, &m) != nil || len(m["anthropic"].Models) != 1 {
		t.Errorf("store not rewritten: %.200s", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
}
