package models

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestRegisterProviderNewModels(t *testing.T) {
	r, err := registryFor(t, "", map[string]string{"MY_LLM_KEY": "secret"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := `{"name":"My LLM","baseUrl":"http://127.0.0.1:9/v1","apiKey":"MY_LLM_KEY","api":"openai-completions","authHeader":true,
		"headers":{"X-Team":"$MY_LLM_KEY"},
		"models":[{"id":"large","name":"Large","reasoning":true,"input":["text","image"],"cost":{"input":3,"output":15,"cacheRead":0.3,"cacheWrite":3.75},"contextWindow":200000,"maxTokens":16384,
			"compat":{"maxTokensField":"max_tokens"}},
		{"id":"small","api":"anthropic-messages","baseUrl":"http://127.0.0.1:9/anthropic"}]}`
	if err := r.RegisterProvider(ProviderConfig{Name: "my-llm", Config: json.RawMessage(cfg), Source: "/ext/my.ts"}); err != nil {
		t.Fatal(err)
	}
	large := r.Find("my-llm", "large")
	if large == nil {
		t.Fatal("my-llm/large not found")
	}
	if large.API != "openai-completions" || large.BaseURL != "http://127.0.0.1:9/v1" || !large.Reasoning || large.ContextWindow != 200000 ||
		large.Cost.Output != 15 || !large.SupportsImages() || large.Compat == nil || large.Compat.MaxTokensField != "max_tokens" {
		t.Errorf("large = %+v", large)
	}
	small := r.Find("my-llm", "small")
	if small == nil || small.API != "anthropic-messages" || small.BaseURL != "http://127.0.0.1:9/anthropic" || small.Name != "small" {
		t.Errorf("small = %+v", small)
	}
	found := 0
	for _, m := range r.Available(context.Background()) {
		if m.Provider == "my-llm" {
			found++
		}
	}
	if found != 2 {
		t.Errorf("%d my-llm models available, want 2", found)
	}
	// apiKey names a variable; authHeader adds the bearer; headers resolve.
	key, headers, err := r.ResolveAuth(context.Background(), large, "")
	if err != nil || key != "secret" || headers["Authorization"] != "Bearer secret" || headers["X-Team"] != "secret" {
		t.Errorf("auth = %q %v %v", key, headers, err)
	}
	if !r.UnregisterProvider("my-llm") || r.Find("my-llm", "large") != nil || r.UnregisterProvider("my-llm") {
		t.Error("unregister did not remove the provider once")
	}
}

func TestRegisterProviderOverridesAndRestores(t *testing.T) {
	r, err := registryFor(t, "", map[string]string{"ANTHROPIC_API_KEY": "k"})
	if err != nil {
		t.Fatal(err)
	}
	before := r.Find("anthropic", "claude-sonnet-4-5")
	if before == nil {
		t.Fatal("catalog lacks anthropic/claude-sonnet-4-5")
	}
	orig := before.BaseURL
	n := countProvider(r, "anthropic")
	// baseUrl and headers only: every built-in model stays, redirected.
	if err := r.RegisterProvider(ProviderConfig{Name: "anthropic", Config: json.RawMessage(`{"baseUrl":"https://proxy.example.com","headers":{"X-Proxy":"yes"}}`)}); err != nil {
		t.Fatal(err)
	}
	m := r.Find("anthropic", "claude-sonnet-4-5")
	if m.BaseURL != "https://proxy.example.com" || m.Headers["X-Proxy"] != "yes" || countProvider(r, "anthropic") != n {
		t.Errorf("override: %s %v, %d models (want %d)", m.BaseURL, m.Headers, countProvider(r, "anthropic"), n)
	}
	if before.BaseURL != orig {
		t.Error("the override changed the shared catalog model")
	}
	// The environment key still authenticates (no apiKey in the override).
	if key, _, err := r.ResolveAuth(context.Background(), m, ""); err != nil || key != "k" {
		t.Errorf("auth after override: %q %v", key, err)
	}
	// A second registration updates what it sets; models replace all.
	if err := r.RegisterProvider(ProviderConfig{Name: "anthropic", Config: json.RawMessage(`{"apiKey":"literal-key","api":"anthropic-messages","models":[{"id":"only-one"}]}`)}); err != nil {
		t.Fatal(err)
	}
	if got := countProvider(r, "anthropic"); got != 1 {
		t.Errorf("%d anthropic models after models replaced them, want 1", got)
	}
	one := r.Find("anthropic", "only-one")
	if one == nil || one.BaseURL != "https://proxy.example.com" {
		t.Fatalf("only-one = %+v (the earlier baseUrl is kept)", one)
	}
	if key, _, _ := r.ResolveAuth(context.Background(), one, ""); key != "literal-key" {
		t.Errorf("key %q, want the registration's literal", key)
	}
	// A models.json reload keeps the registration.
	if err := r.Reload(); err != nil {
		t.Fatal(err)
	}
	if r.Find("anthropic", "only-one") == nil {
		t.Error("Reload dropped the extension's provider")
	}
	r.UnregisterProvider("anthropic")
	if got := r.Find("anthropic", "claude-sonnet-4-5"); got == nil || got.BaseURL != orig || countProvider(r, "anthropic") != n {
		t.Errorf("unregister did not restore the built-in models")
	}
}

func countProvider(r *Registry, provider string) int {
	n := 0
	for _, m := range r.All() {
		if m.Provider == provider {
			n++
		}
	}
	return n
}

func TestRegisterProviderBadConfig(t *testing.T) {
	r, err := registryFor(t, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, cfg string
		oauth     bool
		want      string
	}{
		{"x", `{"baseUrl":"http://h","api":"openai-completions","models":[{"id":"m"}]}`, false, `registerProvider "x": apiKey: required when defining models`},
		{"x", `{"baseUrl":"http://h","apiKey":"K","models":[{"id":"m"}]}`, false, `registerProvider "x": models[0].api: required`},
		{"x", `{"apiKey":"K","api":"openai-completions","models":[{"id":"m"}]}`, false, `models[0].baseUrl: required`},
		{"x", `{"baseUrl":"http://h","apiKey":"K","api":"a","models":[{"id":"m","contextWindow":"big"}]}`, false, `models[0].contextWindow: expected a number, got string`},
		{"x", `{"baseUrl":"http://h","apiKey":"K","api":"a","models":{"id":"m"}}`, false, `models: expected an array of models, got object`},
		{"x", `{"baseUrl":42}`, false, `baseUrl: expected a string, got number`},
		{"x", `{"headers":{"A":1}}`, false, `headers.A: expected a string, got number`},
		{"x", `[1]`, false, `the configuration must be an object`},
		{"a/b", `{}`, false, `provider name must be non-empty`},
	}
	for _, c := range cases {
		err := r.RegisterProvider(ProviderConfig{Name: c.name, Config: json.RawMessage(c.cfg), OAuth: c.oauth})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.cfg, err, c.want)
		}
	}
	if countProvider(r, "x") != 0 {
		t.Error("a refused registration left models behind")
	}
	// With a sign-in, models need no apiKey.
	if err := r.RegisterProvider(ProviderConfig{Name: "x", OAuth: true, Config: json.RawMessage(`{"baseUrl":"http://h","api":"a","models":[{"id":"m"}]}`)}); err != nil {
		t.Errorf("oauth provider without apiKey: %v", err)
	}
}
