package models_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llamacpp"
	"github.com/relay-agent/relay/internal/llm/llamacpp/llamacpptest"
	"github.com/relay-agent/relay/internal/models"
)

func llamaRegistry(t *testing.T, cfg models.LlamaConfig) *models.Registry {
	t.Helper()
	reg, err := models.NewRegistry(models.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	reg.EnableLlama(cfg)
	return reg
}

const qwenTemplate = `{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\n\n</think>\n\n' }}{%- endif %}`

func llamaModels(reg *models.Registry) map[string]*llm.Model {
	out := map[string]*llm.Model{}
	for _, m := range reg.All() {
		if m.Provider == models.LlamaProvider {
			out[m.ID] = m
		}
	}
	return out
}

func TestLlamaRouterDiscovery(t *testing.T) {
	srv := llamacpptest.New(true, []llamacpptest.Model{
		{ID: "qwen3-4b", Status: "loaded", CtxSize: 8192, ChatTemplate: qwenTemplate},
		{ID: "gemma-3-1b", Status: "sleeping", ChatTemplate: "{{ messages }}"},
		{ID: "big-model", Status: "unloaded"},
		{ID: "half-way", Status: "loading"},
	})
	defer srv.Close()
	// A trailing /v1/ is what people paste from OpenAI-style configs.
	reg := llamaRegistry(t, models.LlamaConfig{BaseURL: srv.URL + "/v1/"})
	if err := reg.WaitLlama(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := llamaModels(reg)
	if len(got) != 2 || got["qwen3-4b"] == nil || got["gemma-3-1b"] == nil {
		t.Fatalf("discovered %v, want the loaded and the sleeping model", got)
	}
	q := got["qwen3-4b"]
	if q.API != llm.APIOpenAICompletions || q.BaseURL != srv.URL+"/v1" || q.ContextWindow != 8192 || q.MaxTokens != 8192 {
		t.Errorf("qwen3-4b = api %q base %q ctx %d max %d", q.API, q.BaseURL, q.ContextWindow, q.MaxTokens)
	}
	if !q.Reasoning || q.Compat == nil || q.Compat.ThinkingFormat != "qwen-chat-template" || q.ThinkingLevelMap["high"] != nil || *q.ThinkingLevelMap["medium"] != "medium" {
		t.Errorf("qwen3-4b reasoning = %v compat %+v map %v", q.Reasoning, q.Compat, q.ThinkingLevelMap)
	}
	if c := q.Compat; *c.SupportsStore || *c.SupportsDeveloperRole || *c.SupportsStrictMode || c.MaxTokensField != "max_tokens" {
		t.Errorf("qwen3-4b compat %+v: llama-server takes no store/developer/strict and reads max_tokens", c)
	}
	g := got["gemma-3-1b"]
	if g.Reasoning || g.ContextWindow != llamacpp.DefaultContextWindow {
		t.Errorf("gemma-3-1b reasoning %v ctx %d", g.Reasoning, g.ContextWindow)
	}
	if !reg.HasAuth(models.LlamaProvider) {
		t.Error("llama.cpp without LLAMA_API_KEY should count as configured")
	}
	key, _, err := reg.ResolveAuth(context.Background(), q, "")
	if err != nil || key != models.LlamaNoKey {
		t.Errorf("ResolveAuth = %q, %v; want the placeholder key and no error", key, err)
	}
	if avail := reg.Available(context.Background()); !containsModel(avail, q) {
		t.Error("discovered model missing from Available")
	}

	res, err := reg.ResolveModel("llama.cpp/qwen3-4b", "", "")
	if err != nil || res.Model.ID != "qwen3-4b" || res.Warning != "" {
		t.Fatalf("resolve llama.cpp/qwen3-4b = %+v, %v", res, err)
	}
	if m := reg.Find("llama.cpp", "gemma-3-1b"); m == nil {
		t.Error("Find llama.cpp/gemma-3-1b = nil")
	}
	_, err = reg.ResolveModel("big-model", "llama.cpp", "")
	if err == nil || !strings.Contains(err.Error(), `"big-model" is unloaded`) {
		t.Errorf("unloaded model: err = %v, want it to say the model is unloaded", err)
	}
}

func containsModel(list []*llm.Model, m *llm.Model) bool {
	for _, x := range list {
		if x == m {
			return true
		}
	}
	return false
}

func TestLlamaSingleModelServer(t *testing.T) {
	srv := llamacpptest.New(false, []llamacpptest.Model{{ID: "model.gguf", CtxSize: 4096}})
	defer srv.Close()
	reg := llamaRegistry(t, models.LlamaConfig{BaseURL: srv.URL})
	res, err := reg.ResolveModel("llama.cpp/model.gguf", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Model.ContextWindow != 4096 {
		t.Errorf("context = %d, want the server's n_ctx 4096", res.Model.ContextWindow)
	}
	if p := srv.Paths(); len(p) < 2 || p[0] != "/models" || p[1] != "/v1/models" {
		t.Errorf("paths = %v, want /models then the /v1/models fallback", p)
	}
}

func TestLlamaAPIKey(t *testing.T) {
	srv := llamacpptest.New(true, []llamacpptest.Model{{ID: "m", Status: "loaded"}})
	srv.APIKey = "sekrit"
	defer srv.Close()
	reg := llamaRegistry(t, models.LlamaConfig{BaseURL: srv.URL})
	if err := reg.WaitLlama(context.Background()); err == nil || !strings.Contains(err.Error(), "LLAMA_API_KEY") {
		t.Errorf("without the key: err = %v, want a hint naming LLAMA_API_KEY", err)
	}
	reg = llamaRegistry(t, models.LlamaConfig{BaseURL: srv.URL, APIKey: "sekrit"})
	if _, err := reg.ResolveModel("llama.cpp/m", "", ""); err != nil {
		t.Fatal(err)
	}
}

func TestLlamaServerDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	reg := llamaRegistry(t, models.LlamaConfig{BaseURL: url})
	_, err := reg.ResolveModel("llama.cpp/qwen3", "", "")
	var down *llamacpp.DownError
	if !errors.As(err, &down) || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "LLAMA_BASE_URL") {
		t.Fatalf("err = %v, want a DownError naming %s and LLAMA_BASE_URL", err, url)
	}
	// Other providers still resolve.
	if _, err := reg.ResolveModel("anthropic/claude-sonnet-4-5", "", ""); err != nil {
		t.Error(err)
	}
}

func TestLlamaHungServerIsBounded(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	reg := llamaRegistry(t, models.LlamaConfig{BaseURL: srv.URL, Timeout: 200 * time.Millisecond})
	reg.StartLlama()
	// Listing never waits on discovery.
	if n := len(llamaModels(reg)); n != 0 {
		t.Fatalf("%d llama models before the server answered", n)
	}
	err := reg.WaitLlama(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not reachable") || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("err = %v, want the discovery timeout reported", err)
	}
}

func TestLlamaDisabled(t *testing.T) {
	reg, err := models.NewRegistry(models.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if reg.HasAuth(models.LlamaProvider) {
		t.Error("llama.cpp counts as configured while the provider is off")
	}
	if _, err := reg.ResolveModel("llama.cpp/x", "", ""); err == nil {
		t.Error("llama.cpp/x resolved with the provider off")
	}
}

func TestLlamaModelsJSONWins(t *testing.T) {
	srv := llamacpptest.New(true, []llamacpptest.Model{{ID: "m", Status: "loaded", CtxSize: 1000}})
	defer srv.Close()
	dir := t.TempDir()
	path := dir + "/models.json"
	writeFile(t, path, `{"providers":{"llama.cpp":{"baseUrl":"`+srv.URL+`/v1","api":"openai-completions","models":[{"id":"m","contextWindow":5000}]}}}`)
	reg, err := models.NewRegistry(models.Options{ModelsJSON: path, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	reg.EnableLlama(models.LlamaConfig{BaseURL: srv.URL})
	if err := reg.WaitLlama(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range reg.All() {
		if m.Provider == "llama.cpp" && m.ID == "m" {
			n++
			if m.ContextWindow != 5000 {
				t.Errorf("context %d: the models.json entry should win", m.ContextWindow)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d entries for llama.cpp/m, want 1", n)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// With no key anywhere, the default model waits for a started discovery
// instead of racing it.
func TestLlamaDefaultModelWhenNothingElse(t *testing.T) {
	gate := make(chan struct{})
	var once sync.Once
	srv := llamacpptest.New(true, []llamacpptest.Model{{ID: "only", Status: "loaded"}})
	defer srv.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { go func() { close(gate) }() })
		<-gate
		srv.Config.Handler.ServeHTTP(w, r)
	}))
	defer slow.Close()
	reg := llamaRegistry(t, models.LlamaConfig{BaseURL: slow.URL})
	reg.StartLlama()
	m := reg.DefaultModel(context.Background())
	if m == nil || m.Provider != models.LlamaProvider || m.ID != "only" {
		t.Fatalf("default model = %v, want llama.cpp/only", m)
	}
}

// /login llama.cpp: the server must answer; its URL (and key) land in
// auth.json and the provider moves to it at once; a new registry reads
// the stored URL.
func TestLoginLlama(t *testing.T) {
	old := llamacpptest.New(true, []llamacpptest.Model{{ID: "old-model", Status: "loaded"}})
	defer old.Close()
	srv := llamacpptest.New(true, []llamacpptest.Model{{ID: "qwen3-4b", Status: "loaded"}})
	srv.APIKey = "sekrit"
	defer srv.Close()
	auth := t.TempDir() + "/auth.json"
	reg, err := models.NewRegistry(models.Options{AuthJSON: auth, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	reg.EnableLlama(models.LlamaConfig{BaseURL: old.URL})
	if err := reg.WaitLlama(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.LoginLlama(context.Background(), srv.URL, "wrong"); err == nil || !strings.Contains(err.Error(), "LLAMA_API_KEY") {
		t.Fatalf("wrong key: %v", err)
	}
	if _, err := os.Stat(auth); err == nil {
		t.Fatal("a failed login stored a credential")
	}
	root, err := reg.LoginLlama(context.Background(), srv.URL+"/v1/", "sekrit")
	if err != nil || root != srv.URL {
		t.Fatalf("login: %q %v", root, err)
	}
	if ms := llamaModels(reg); ms["qwen3-4b"] == nil || ms["old-model"] != nil {
		t.Errorf("models after login: %v", ms)
	}
	a, err := reg.ResolveAuthSource(context.Background(), &llm.Model{Provider: models.LlamaProvider, ID: "qwen3-4b"}, "")
	if err != nil || a.APIKey != "sekrit" {
		t.Errorf("auth %+v %v", a, err)
	}
	data, _ := os.ReadFile(auth)
	if !strings.Contains(string(data), `"LLAMA_BASE_URL": "`+srv.URL+`"`) && !strings.Contains(string(data), `"LLAMA_BASE_URL":"`+srv.URL+`"`) {
		t.Errorf("auth.json: %s", data)
	}
	reg2, _ := models.NewRegistry(models.Options{AuthJSON: auth, Getenv: func(string) string { return "" }})
	if u := reg2.StoredLlamaURL(); u != srv.URL {
		t.Errorf("stored URL %q", u)
	}
	if _, err := reg.LoginLlama(context.Background(), "http://127.0.0.1:1", ""); err == nil || !strings.Contains(err.Error(), "not reachable") {
		t.Errorf("server down: %v", err)
	}
}
