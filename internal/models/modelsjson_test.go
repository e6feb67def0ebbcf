package models

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/relay-agent/relay/internal/llm"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// registryFor loads a registry whose models.json is the given fixture and
// whose environment is env only.
func registryFor(t *testing.T, fixture string, env map[string]string) (*Registry, error) {
	t.Helper()
	dir := t.TempDir()
	if fixture != "" {
		data, err := os.ReadFile(filepath.Join("testdata", "modelsjson", fixture))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "models.json"), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return NewRegistry(Options{
		ModelsJSON: filepath.Join(dir, "models.json"),
		AuthJSON:   filepath.Join(dir, "auth.json"),
		Getenv:     func(k string) string { return env[k] },
	})
}

func TestModelsJSONErrorsGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "modelsjson", "bad-*"))
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			r, err := registryFor(t, name, nil)
			if err == nil {
				t.Fatal("want an error")
			}
			if r == nil || len(r.All()) == 0 || r.ConfigError() == nil {
				t.Fatal("registry must stay usable with the built-in models")
			}
			var ce *ConfigError
			if !errorsAs(err, &ce) {
				t.Fatalf("error %T is not a *ConfigError", err)
			}
			text := strings.ReplaceAll(err.Error(), ce.File, "<dir>/models.json")
			golden(t, strings.TrimSuffix(f, filepath.Ext(f))+".golden", text+"\n")
		})
	}
}

func errorsAs(err error, target **ConfigError) bool {
	ce, ok := err.(*ConfigError)
	if ok {
		*target = ce
	}
	return ok
}

func TestModelsJSONMissingFileIsFine(t *testing.T) {
	r, err := registryFor(t, "", nil)
	if err != nil || r.ConfigError() != nil {
		t.Fatalf("missing models.json: %v", err)
	}
}

func TestModelsJSONOllamaDefaults(t *testing.T) {
	r, err := registryFor(t, "ok-ollama.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Find("ollama", "qwen2.5-coder:7b")
	if m == nil {
		t.Fatal("custom model missing")
	}
	want := &llm.Model{ID: "qwen2.5-coder:7b", Name: "qwen2.5-coder:7b", API: llm.APIOpenAICompletions,
		Provider: "ollama", BaseURL: "http://localhost:11434/v1", Input: []string{"text"},
		ContextWindow: 128000, MaxTokens: 16384}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	// The dummy key makes it available.
	if !r.HasAuth("ollama") || len(r.Available(context.Background())) != 1 {
		t.Errorf("ollama should be the only available provider")
	}
	key, _, err := r.ResolveAuth(context.Background(), m, "")
	if err != nil || key != "ollama" {
		t.Errorf("key = %q, %v", key, err)
	}
	// "qwen2.5-coder:7b" contains a colon: the exact id must win over the
	// thinking-suffix split.
	got, lvl, err := r.Resolve("qwen2.5-coder:7b", "")
	if err != nil || got != m || lvl != "" {
		t.Errorf("Resolve = %v %q %v", got, lvl, err)
	}
}

func TestModelsJSONLocalServers(t *testing.T) {
	r, err := registryFor(t, "ok-local-servers.jsonc", map[string]string{"VLLM_API_KEY": "v-key"})
	if err != nil {
		t.Fatal(err)
	}
	lm := r.Find("lmstudio", "qwen/qwen3-coder-30b")
	if lm == nil || lm.Name != "Qwen3 Coder 30B" || lm.ContextWindow != 262144 || lm.MaxTokens != 32768 {
		t.Fatalf("lmstudio model = %+v", lm)
	}
	if lm.Compat == nil || lm.Compat.SupportsDeveloperRole == nil || *lm.Compat.SupportsDeveloperRole {
		t.Errorf("provider compat not applied: %+v", lm.Compat)
	}
	v := r.Find("vllm", "qwen-thinking-model")
	if v == nil || !v.Reasoning || !v.SupportsImages() {
		t.Fatalf("vllm model = %+v", v)
	}
	if v.Compat.ThinkingFormat != "qwen-chat-template" || v.Compat.MaxTokensField != "max_tokens" ||
		string(v.Compat.ChatTemplateKwargs["enable_thinking"]) != `{"$var":"thinking.enabled"}` {
		t.Errorf("vllm compat = %+v", v.Compat)
	}
	if _, ok := v.Compat.Extra["vllmPriority"]; !ok {
		t.Errorf("unmodelled compat member dropped")
	}
	if v.SamplingParams["top_p"] != 0.95 && v.SamplingParams["top_p"] == nil {
		t.Errorf("samplingParams = %v", v.SamplingParams)
	}
	if v.SamplingParamsByThinkingLevel["high"]["top_k"] == nil {
		t.Errorf("samplingParamsByThinkingLevel = %v", v.SamplingParamsByThinkingLevel)
	}
	if !strings.Contains(string(v.InputLimits), `"jpegQuality":75`) {
		t.Errorf("inputLimits = %s", v.InputLimits)
	}
	key, _, err := r.ResolveAuth(context.Background(), v, "")
	if err != nil || key != "v-key" {
		t.Errorf("vllm key = %q %v", key, err)
	}
	if r.Find("llama-cpp", "gpt-oss-20b").ContextWindow != 131072 {
		t.Errorf("llama-cpp context window")
	}
}

func TestModelsJSONOverridesAndReplacement(t *testing.T) {
	r, err := registryFor(t, "ok-overrides.json", map[string]string{"TEAM_ID": "t-7", "ANTHROPIC_API_KEY": "sk-a"})
	if err != nil {
		t.Fatal(err)
	}
	or := r.Find("openrouter", "anthropic/claude-sonnet-4.6")
	if or.Name != "Sonnet via OpenRouter" || or.Cost.Input != 2.5 || or.Cost.Output != 15 {
		t.Errorf("override merge: name %q cost %+v", or.Name, or.Cost)
	}
	if string(or.Compat.OpenRouterRouting) == "" || or.Compat.ThinkingFormat != "openrouter" {
		t.Errorf("provider compat must merge into existing models: %+v", or.Compat)
	}
	if r.Find("openrouter", "no/such-model") != nil {
		t.Error("unknown override ids must be ignored")
	}

	// Provider baseUrl and headers apply to the built-in models.
	opus := r.Find("anthropic", "claude-opus-4-8")
	if opus.BaseURL != "https://llm-proxy.example.com/anthropic" {
		t.Errorf("baseUrl = %s", opus.BaseURL)
	}
	if opus.MaxTokens != 64000 || opus.Name != "Claude Opus 4.8" {
		t.Errorf("override: %+v", opus)
	}
	if v, ok := opus.ThinkingLevelMap["off"]; !ok || v != nil {
		t.Errorf("thinkingLevelMap must merge per key: %v", opus.ThinkingLevelMap)
	}
	if opus.ThinkingLevelMap["xhigh"] == nil {
		t.Errorf("existing map keys lost: %v", opus.ThinkingLevelMap)
	}
	_, headers, err := r.ResolveAuth(context.Background(), opus, "")
	if err != nil || headers["X-Team"] != "t-7" || headers["X-Tier"] != "gold" {
		t.Errorf("headers = %v %v", headers, err)
	}

	// models[] replaces a same-id model in place and adds new ones.
	s5 := r.Find("anthropic", "claude-sonnet-5")
	if s5.Name != "Sonnet 5 (proxy)" || s5.API != llm.APIAnthropicMessages || s5.BaseURL != "https://llm-proxy.example.com/anthropic" {
		t.Errorf("replacement = %+v", s5)
	}
	count := 0
	for _, m := range r.All() {
		if m.Provider == "anthropic" && m.ID == "claude-sonnet-5" {
			count++
		}
	}
	if count != 1 {
		t.Errorf("replacement duplicated the model (%d copies)", count)
	}
	internal := r.Find("anthropic", "claude-internal-1")
	if internal == nil || internal.API != llm.APIAnthropicMessages || internal.ContextWindow != 128000 {
		t.Errorf("built-in defaults for a new model of a built-in provider: %+v", internal)
	}

	// authHeader adds the bearer from the resolved (uncached) command key.
	gw := r.Find("corp-gateway", "gpt-5.5")
	if gw == nil || len(gw.Cost.Tiers) != 1 || gw.Cost.Tiers[0].Output != 45 {
		t.Fatalf("gateway model = %+v", gw)
	}
	key, headers, err := r.ResolveAuth(context.Background(), gw, "")
	if err != nil || key != "corp-key" || headers["Authorization"] != "Bearer corp-key" {
		t.Errorf("authHeader: key %q headers %v err %v", key, headers, err)
	}
}

func TestStripJSONC(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"a": "x // not a comment", "b": 1} // c`, `{"a": "x // not a comment", "b": 1}     `},
		{"{\"a\": /* c\n */ 1}", "{\"a\":     \n    1}"},
		{`{"a": [1, 2,], "b": {"c": 1,},}`, `{"a": [1, 2 ], "b": {"c": 1 } }`},
		{`{"s": "a\"b,}", }`, `{"s": "a\"b,}"  }`},
		{`{"u": "http://x/*y*/"}`, `{"u": "http://x/*y*/"}`},
	}
	for _, c := range cases {
		if got := string(stripJSONC([]byte(c.in))); got != c.want {
			t.Errorf("stripJSONC(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "models.json")
	r, err := NewRegistry(Options{ModelsJSON: path, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	builtin := len(r.All())
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"providers":{"box":{"baseUrl":"http://h/v1","api":"openai-completions","models":[{"id":"m1"},{"id":"m2"}]}}}`)
	if err := r.Reload(); err != nil || len(r.All()) != builtin+2 || r.Find("box", "m2") == nil {
		t.Fatalf("reload added %d models, err %v", len(r.All())-builtin, err)
	}
	write(`{"providers":{"box":{"models":[{"id":"m1"}]}}}`)
	if err := r.Reload(); err == nil || r.ConfigError() == nil {
		t.Fatal("want a config error")
	}
	if len(r.All()) != builtin || r.Find("box", "m1") != nil {
		t.Errorf("a broken models.json must leave exactly the built-in models")
	}
	os.Remove(path)
	if err := r.Reload(); err != nil || r.ConfigError() != nil {
		t.Errorf("missing file after a broken one: %v", err)
	}
}

// The examples of the pi-family custom-models documentation, which the
// original inherited, load unchanged (bare variable names included).
func TestModelsJSONPiDocsExamples(t *testing.T) {
	env := map[string]string{"MY_API_KEY": "proxy-key", "PORTKEY_API_KEY": "pk", "OPENROUTER_API_KEY": "or-key"}
	r, err := registryFor(t, "ok-pi-docs.json", env)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	proxy := r.Find("custom-proxy", "claude-sonnet-5")
	key, headers, err := r.ResolveAuth(ctx, proxy, "")
	if err != nil || key != "proxy-key" || headers["x-portkey-api-key"] != "pk" || headers["x-secret"] != "s3cret" {
		t.Errorf("proxy: key %q headers %v err %v", key, headers, err)
	}
	if m := r.Find("ollama", "llama3.1:8b"); m.MaxTokens != 32000 || m.Name != "Llama 3.1 8B (Local)" {
		t.Errorf("ollama full example: %+v", m)
	}
	local := r.Find("local-llm", "local")
	if local.Compat.SupportsUsageInStreaming == nil || *local.Compat.SupportsUsageInStreaming || local.Compat.MaxTokensField != "max_tokens" {
		t.Errorf("local-llm compat = %+v", local.Compat)
	}
	if r.HasAuth("local-llm") {
		t.Error("a provider without any key must not be available")
	}
	or := r.Find("openrouter", "anthropic/claude-sonnet-4.6")
	if or.Name != "Claude Sonnet 4.6 (Bedrock Route)" || !strings.Contains(string(or.Compat.OpenRouterRouting), "amazon-bedrock") {
		t.Errorf("override = %s %s", or.Name, or.Compat.OpenRouterRouting)
	}
	if key, _, _ := r.ResolveAuth(ctx, or, ""); key != "or-key" {
		t.Errorf("openrouter key %q", key)
	}
	// An unset bare name stays a literal key.
	v := r.Find("vercel-ai-gateway", "moonshotai/kimi-k2.5")
	if key, _, _ := r.ResolveAuth(ctx, v, ""); key != "AI_GATEWAY_API_KEY" {
		t.Errorf("vercel key %q", key)
	}
}

func TestCustomModelReplacesOverriddenEntry(t *testing.T) {
	r := setup(t, "", `{"providers":{"groq":{
		"modelOverrides":{"llama-3.1-8b-instant":{"name":"overridden"},"llama-3.3-70b-versatile":{"maxTokens":1000}},
		"models":[{"id":"llama-3.1-8b-instant","name":"custom"}]}}}`, nil)
	if m := r.Find("groq", "llama-3.1-8b-instant"); m.Name != "custom" || m.MaxTokens != 16384 || m.API != llm.APIOpenAICompletions {
		t.Errorf("custom model = %+v", m)
	}
	if m := r.Find("groq", "llama-3.3-70b-versatile"); m.MaxTokens != 1000 || m.Name != "Llama 3.3 70B" {
		t.Errorf("override = %+v", m)
	}
}
