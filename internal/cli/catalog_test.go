package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/models"
)

// catalogService is a fake of the catalog service: anthropic has a
// catalog (etag "v1"), every other provider 404.
type catalogService struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newCatalogService(t *testing.T) *catalogService {
	s := &catalogService{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, r.Clone(context.Background()))
		s.mu.Unlock()
		if r.URL.Path != "/api/models/providers/anthropic" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC).Format(http.TimeFormat))
		fmt.Fprint(w, `[{"id":"claude-catalog-1","name":"Claude Catalog 1","api":"anthropic-messages","reasoning":true,"contextWindow":300000,"maxTokens":64000}]`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *catalogService) requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.reqs...)
}

func TestUpdateModels(t *testing.T) {
	svc := newCatalogService(t)
	agent := t.TempDir()
	env := config.EnvFromMap(map[string]string{"RELAY_CODING_AGENT_DIR": agent, "RELAY_OFFLINE": "1"})
	var out, errb bytes.Buffer
	if code := runUpdateModels(context.Background(), env, svc.URL, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "anthropic: 1 models") || !strings.Contains(out.String(), "1 updated") {
		t.Errorf("output %q", out.String())
	}
	reqs := svc.requests()
	if len(reqs) < 40 {
		t.Errorf("forced refresh asked %d providers", len(reqs))
	}
	r0 := reqs[0]
	if r0.URL.Query().Get("types") != "chat,image,classifier" || r0.Header.Get("Accept") != "application/json" || !strings.HasPrefix(r0.Header.Get("User-Agent"), "relay/") {
		t.Errorf("request %s %v", r0.URL, r0.Header)
	}
	data, err := os.ReadFile(filepath.Join(agent, "models-store.json"))
	if err != nil {
		t.Fatal(err)
	}
	var store map[string]models.StoreEntry
	if err := json.Unmarshal(data, &store); err != nil || store["anthropic"].ETag != `"v1"` || len(store["anthropic"].Models) != 1 {
		t.Fatalf("store %s", data)
	}
	reg, _ := models.Load(agent, env.Get)
	if reg.Find("anthropic", "claude-catalog-1") == nil {
		t.Error("refreshed model not in the registry")
	}
	// Again: revalidated, unchanged.
	out.Reset()
	if code := runUpdateModels(context.Background(), env, svc.URL, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "0 updated, 1 unchanged") {
		t.Errorf("second run %d %q", code, out.String())
	}
}

func TestUpdateModelsUnreachable(t *testing.T) {
	svc := newCatalogService(t)
	base := svc.URL
	svc.Close()
	env := config.EnvFromMap(map[string]string{"RELAY_CODING_AGENT_DIR": t.TempDir()})
	var out, errb bytes.Buffer
	if code := runUpdateModels(context.Background(), env, base, nil, &out, &errb); code != 1 || !strings.Contains(errb.String(), "model catalog for") {
		t.Errorf("exit %d stderr %q", code, errb.String())
	}
}

func TestBackgroundCatalogRefresh(t *testing.T) {
	svc := newCatalogService(t)
	for _, offline := range []bool{true, false} {
		agent := t.TempDir()
		vars := map[string]string{"ANTHROPIC_API_KEY": "k"}
		if offline {
			vars["RELAY_OFFLINE"] = "1"
		}
		env := config.EnvFromMap(vars)
		reg, _ := models.Load(agent, env.Get)
		before := len(svc.requests())
		done := make(chan struct{})
		startCatalogRefresh(context.Background(), env, reg, svc.URL, nil, done)
		<-done
		asked := len(svc.requests()) - before
		switch {
		case offline && asked != 0:
			t.Errorf("offline: %d requests", asked)
		case !offline && asked != 1: // only the provider with credentials
			t.Errorf("online: %d requests", asked)
		case !offline && reg.Find("anthropic", "claude-catalog-1") == nil:
			t.Error("online: the running registry did not get the refreshed model")
		}
	}
}

// TestAntigravityModelsFromTheAccount: the Antigravity catalog is the
// signed-in account's list (fetchAvailableModels with the sign-in's
// project), not the catalog service's; it replaces the shipped rows.
// Without a sign-in the provider is absent and nothing is asked.
func TestAntigravityModelsFromTheAccount(t *testing.T) {
	svc := newCatalogService(t)
	var asked []map[string]any
	var mu sync.Mutex
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		asked = append(asked, body)
		mu.Unlock()
		if r.URL.Path != "/v1internal:fetchAvailableModels" || r.Header.Get("Authorization") != "Bearer ya29.a" {
			w.WriteHeader(403)
			return
		}
		fmt.Fprint(w, `{"models":{"claude-opus-4-6-thinking":{"displayName":"Claude Opus 4.6 (Thinking)","maxOutputTokens":64000},"x-internal":{"displayName":"x","isInternal":true}}}`)
	}))
	defer gateway.Close()
	agent := t.TempDir()
	env := config.EnvFromMap(map[string]string{"RELAY_CODING_AGENT_DIR": agent})
	var out, errb bytes.Buffer
	if code := runUpdateModels(context.Background(), env, svc.URL, nil, &out, &errb); code != 0 || len(asked) != 0 {
		t.Fatalf("without a sign-in: exit %d, %d gateway requests, %s", code, len(asked), errb.String())
	}
	os.WriteFile(filepath.Join(agent, "auth.json"), []byte(fmt.Sprintf(
		`{"google-antigravity":{"type":"oauth","access":"ya29.a","refresh":"1//r","expires":%d,"projectId":"proj-5","baseUrl":%q}}`,
		time.Now().Add(time.Hour).UnixMilli(), gateway.URL)), 0o600)
	out.Reset()
	if code := runUpdateModels(context.Background(), env, svc.URL, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "google-antigravity: 1 models") {
		t.Fatalf("exit %d stdout %q stderr %s", code, out.String(), errb.String())
	}
	if len(asked) != 1 || asked[0]["project"] != "proj-5" {
		t.Fatalf("gateway asked %v", asked)
	}
	for _, r := range svc.requests() {
		if strings.Contains(r.URL.Path, "google-antigravity") {
			t.Errorf("the catalog service was asked for Antigravity")
		}
	}
	reg, _ := models.Load(agent, env.Get)
	m := reg.Find("google-antigravity", "claude-opus-4-6-thinking")
	if m == nil || m.API != "google-generative-ai" || !m.Reasoning || m.ContextWindow != 200000 || m.MaxTokens != 64000 {
		t.Fatalf("discovered model %+v", m)
	}
	if reg.Find("google-antigravity", "gemini-3-pro-high") != nil || reg.Find("google-antigravity", "x-internal") != nil {
		t.Error("the account's list does not replace the shipped rows")
	}
}
