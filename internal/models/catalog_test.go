package models

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
)

var ourAPIs = map[string]bool{
	llm.APIAnthropicMessages: true, llm.APIOpenAICompletions: true,
	llm.APIOpenAIResponses: true, llm.APIGoogleGenerativeAI: true,
	"bedrock-converse-stream": true, "google-vertex": true, "azure-openai-responses": true, "mistral-conversations": true, "openai-codex-responses": true,
}

func TestCatalogSanity(t *testing.T) {
	models := builtinModels()
	if len(models) < 100 {
		t.Fatalf("catalog has %d models, want a real catalog", len(models))
	}
	seen := map[string]bool{}
	providers := map[string]int{}
	for _, m := range models {
		ref := m.Provider + "/" + m.ID
		providers[m.Provider]++
		if seen[ref] {
			t.Errorf("%s: duplicate id within provider", ref)
		}
		seen[ref] = true
		if m.ID == "" || m.Name == "" || m.Provider == "" {
			t.Errorf("%s: missing id/name/provider", ref)
		}
		if !ourAPIs[m.API] {
			t.Errorf("%s: api %q is not one relay speaks", ref, m.API)
		}
		// Azure's endpoint is the user's resource (AZURE_OPENAI_BASE_URL or
		// AZURE_OPENAI_RESOURCE_NAME), never a catalog URL.
		azure := m.Provider == "azure-openai-responses" && m.BaseURL == ""
		if !azure && (m.BaseURL == "" || m.BaseURL[:8] != "https://") {
			t.Errorf("%s: baseUrl %q", ref, m.BaseURL)
		}
		if m.ContextWindow <= 0 || m.MaxTokens <= 0 {
			t.Errorf("%s: context %d max %d", ref, m.ContextWindow, m.MaxTokens)
		}
		if len(m.Input) == 0 {
			t.Errorf("%s: no input kinds", ref)
		}
		for _, in := range m.Input {
			if in != "text" && in != "image" {
				t.Errorf("%s: input %q", ref, in)
			}
		}
		c := m.Cost
		for _, v := range []float64{c.Input, c.Output, c.CacheRead, c.CacheWrite} {
			if v < 0 || math.IsNaN(v) {
				t.Errorf("%s: negative cost %+v", ref, c)
			}
		}
		prev := -1
		for _, tier := range c.Tiers {
			if tier.InputTokensAbove <= prev || tier.Input < c.Input {
				t.Errorf("%s: tiers out of order or cheaper than base: %+v", ref, c.Tiers)
			}
			prev = tier.InputTokensAbove
		}
		for k := range m.ThinkingLevelMap {
			if _, ok := llm.ParseThinkingLevel(k); !ok {
				t.Errorf("%s: thinkingLevelMap key %q", ref, k)
			}
		}
		if !m.Reasoning && len(m.ThinkingLevelMap) > 0 && m.ThinkingLevelMap["off"] == nil {
			// Harmless, but usually a data slip.
			t.Logf("%s: non-reasoning model with a thinking map", ref)
		}
	}
	for _, want := range []string{"anthropic", "openai", "google", "xai", "groq", "deepseek", "mistral",
		"openrouter", "cerebras", "zai", "fireworks", "together", "huggingface", "moonshotai", "minimax", "nvidia"} {
		if providers[want] == 0 {
			t.Errorf("provider %s has no models", want)
		}
	}
	for p := range providers {
		if _, ok := Provider(p); !ok {
			t.Errorf("catalog provider %s is missing from the provider table (env vars)", p)
		}
	}
}

func TestDefaultModelsExist(t *testing.T) {
	models := builtinModels()
	for _, d := range defaultModels {
		found := false
		for _, m := range models {
			found = found || (m.Provider == d.provider && m.ID == d.id)
		}
		if !found {
			t.Errorf("default %s/%s is not in the catalog", d.provider, d.id)
		}
	}
}

func TestCatalogProviderDefaults(t *testing.T) {
	models := builtinModels()
	get := func(p, id string) *llm.Model {
		for _, m := range models {
			if m.Provider == p && m.ID == id {
				return m
			}
		}
		t.Fatalf("%s/%s missing", p, id)
		return nil
	}
	// Provider-level compat is merged under the model's own compat.
	ds := get("deepseek", "deepseek-v4-pro")
	if ds.Compat == nil || ds.Compat.ThinkingFormat != "deepseek" || ds.Compat.SupportsDeveloperRole == nil || *ds.Compat.SupportsDeveloperRole {
		t.Errorf("deepseek compat = %+v", ds.Compat)
	}
	if _, ok := get("zai", "glm-5.3").Compat.Extra["zaiToolStream"]; !ok {
		t.Errorf("unmodelled compat member lost")
	}
	// A model on another API does not inherit the provider's compat.
	fk := get("fireworks", "accounts/fireworks/models/kimi-k3")
	if fk.API != llm.APIOpenAICompletions || fk.BaseURL != "https://api.fireworks.ai/inference/v1" {
		t.Errorf("fireworks kimi-k3 api/baseUrl = %s %s", fk.API, fk.BaseURL)
	}
	if _, ok := fk.Compat.Extra["supportsToolReferences"]; ok {
		t.Errorf("anthropic-only compat leaked into an openai-completions model")
	}
	// Provider headers reach every model.
	if h := get("nvidia", "openai/gpt-oss-120b").Headers["NVCF-POLL-SECONDS"]; h != "3600" {
		t.Errorf("nvidia header = %q", h)
	}
	// Anthropic prompt-cache lifetimes.
	if pc := get("anthropic", "claude-sonnet-4-6").PromptCache; pc == nil || pc.Short != 300 || pc.Long != 3600 {
		t.Errorf("promptCache = %+v", pc)
	}
	// Copies are independent.
	ds.Compat.ThinkingFormat = "changed"
	again := builtinModels()
	for _, m := range again {
		if m.Provider == "deepseek" && m.Compat.ThinkingFormat != "deepseek" {
			t.Fatal("builtinModels shares state between copies")
		}
	}
}

// Published prices (USD per million tokens) spot-checked through
// CalculateCost.
func TestCostArithmetic(t *testing.T) {
	models := builtinModels()
	find := func(p, id string) *llm.Model {
		for _, m := range models {
			if m.Provider == p && m.ID == id {
				return m
			}
		}
		t.Fatalf("%s/%s missing", p, id)
		return nil
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %.10f, want %.10f", name, got, want)
		}
	}
	// Claude Opus 4.8: $5 in, $25 out, $0.50 cache read, $6.25 cache write.
	u := llm.Usage{Input: 1_000_000, Output: 100_000, CacheRead: 2_000_000, CacheWrite: 400_000}
	find("anthropic", "claude-opus-4-8").CalculateCost(&u)
	near("opus input", u.Cost.Input, 5)
	near("opus output", u.Cost.Output, 2.5)
	near("opus cacheRead", u.Cost.CacheRead, 1)
	near("opus cacheWrite", u.Cost.CacheWrite, 2.5)
	near("opus total", u.Cost.Total, 11)

	// GPT-5.5: $5/$30 up to 272K prompt tokens, $10/$45 above.
	u = llm.Usage{Input: 100_000, Output: 10_000}
	find("openai", "gpt-5.5").CalculateCost(&u)
	near("gpt-5.5 small", u.Cost.Total, 0.5+0.3)
	u = llm.Usage{Input: 250_000, CacheRead: 50_000, Output: 10_000}
	find("openai", "gpt-5.5").CalculateCost(&u)
	near("gpt-5.5 tier input", u.Cost.Input, 2.5)
	near("gpt-5.5 tier cacheRead", u.Cost.CacheRead, 0.05)
	near("gpt-5.5 tier output", u.Cost.Output, 0.45)

	// Claude Sonnet 4.5 long context: prompts over 200K bill $6/$22.50,
	// cache read $0.60, cache write $7.50 for the whole request.
	u = llm.Usage{Input: 150_000, CacheRead: 100_000, CacheWrite: 10_000, Output: 2_000}
	find("anthropic", "claude-sonnet-4-5").CalculateCost(&u)
	near("sonnet long total", u.Cost.Total, 0.9+0.06+0.075+0.045)
	u = llm.Usage{Input: 150_000, Output: 2_000}
	find("anthropic", "claude-sonnet-4-5").CalculateCost(&u)
	near("sonnet short total", u.Cost.Total, 0.45+0.03)

	// Gemini 2.5 Flash: $0.30 in, $2.50 out, $0.03 cached.
	u = llm.Usage{Input: 10_000, Output: 2_000, CacheRead: 100_000}
	find("google", "gemini-2.5-flash").CalculateCost(&u)
	near("flash total", u.Cost.Total, 0.003+0.005+0.003)

	// DeepSeek V4 Flash: $0.14 in, $0.28 out, $0.0028 cache hit.
	u = llm.Usage{Input: 1_000_000, Output: 1_000_000, CacheRead: 1_000_000}
	find("deepseek", "deepseek-v4-flash").CalculateCost(&u)
	near("deepseek total", u.Cost.Total, 0.14+0.28+0.0028)
}

// BenchmarkCatalogBuild is the first-use cost of the catalog (the
// generated literal, no parsing).
func BenchmarkCatalogBuild(b *testing.B) {
	for b.Loop() {
		if len(catalogModels()) == 0 {
			b.Fatal("empty")
		}
	}
}

// BenchmarkCatalogParseJSON is what parsing catalog.json at run time
// would cost, for comparison.
func BenchmarkCatalogParseJSON(b *testing.B) {
	data, err := os.ReadFile("catalog.json")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := parseCatalog(data); err != nil {
			b.Fatal(err)
		}
	}
}

// specProviders is the provider list of upstream-spec-core §6.2 ("Env var
// per provider"), copied by hand so that a provider dropped from the
// catalog, or added to the spec, shows up here.
var specProviders = []string{
	"anthropic", "openai", "azure-openai-responses", "google", "google-vertex", "amazon-bedrock",
	"github-copilot", "ant-ling", "nvidia", "deepseek", "groq", "cerebras", "xai", "typesafe",
	"openrouter", "vercel-ai-gateway", "zai", "zai-coding-cn", "mistral", "minimax", "minimax-cn",
	"moonshotai", "moonshotai-cn", "huggingface", "fireworks", "together", "baseten", "opencode",
	"opencode-go", "kimi-coding", "meta", "cloudflare-workers-ai", "cloudflare-ai-gateway",
	"qwen-token-plan", "qwen-token-plan-individual", "qwen-token-plan-cn", "xiaomi",
	"xiaomi-token-plan-cn", "xiaomi-token-plan-ams", "xiaomi-token-plan-sgp",
}

// classifierOnly are §6.2 providers whose models are classifiers (the
// original's TypeSafe provider "has no chat models"): no catalog rows.
var classifierOnly = map[string]bool{"typesafe": true}

func TestCatalogCoversSpecProviders(t *testing.T) {
	rows := map[string]int{}
	for _, m := range builtinModels() {
		rows[m.Provider]++
	}
	for _, p := range specProviders {
		if _, ok := Provider(p); !ok {
			t.Errorf("%s: not in the provider table", p)
		}
		if classifierOnly[p] {
			if rows[p] != 0 {
				t.Errorf("%s: classifier-only provider has %d chat rows", p, rows[p])
			}
			continue
		}
		if rows[p] == 0 {
			t.Errorf("%s: §6.2 provider has no catalog rows", p)
		}
	}
}

// The per-provider facts the catalog must carry for the providers whose
// requests differ from their group's defaults.
func TestCatalogProviderShapes(t *testing.T) {
	find := func(p, id string) *llm.Model {
		for _, m := range builtinModels() {
			if m.Provider == p && m.ID == id {
				return m
			}
		}
		t.Fatalf("%s/%s missing", p, id)
		return nil
	}
	for id, api := range map[string]string{
		"claude-opus-5.5": llm.APIAnthropicMessages, "kimi-k3": llm.APIOpenAICompletions, "gpt-6-sol": llm.APIOpenAIResponses,
	} {
		m := find("github-copilot", id)
		if m.API != api || m.BaseURL != "https://api.individual.githubcopilot.com" {
			t.Errorf("github-copilot/%s: api %s base %s", id, m.API, m.BaseURL)
		}
		if m.Headers["Copilot-Integration-Id"] != "vscode-chat" || m.Headers["Editor-Version"] == "" {
			t.Errorf("github-copilot/%s: headers %v", id, m.Headers)
		}
	}
	if m := find("mistral", "devstral-medium-latest"); m.API != "mistral-conversations" || m.BaseURL != "https://api.mistral.ai" {
		t.Errorf("mistral: api %s base %s", m.API, m.BaseURL)
	}
	if m := find("cloudflare-workers-ai", "@cf/moonshotai/kimi-k2.6"); m.BaseURL != "https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1" {
		t.Errorf("workers ai base %s", m.BaseURL)
	}
	gw := "https://gateway.ai.cloudflare.com/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}"
	for id, want := range map[string]string{"claude-opus-5.5": gw + "/anthropic", "gpt-6-sol": gw + "/openai", "workers-ai/@cf/zai-org/glm-5.3": gw + "/compat"} {
		if m := find("cloudflare-ai-gateway", id); m.BaseURL != want {
			t.Errorf("gateway %s base %s, want %s", id, m.BaseURL, want)
		}
	}
	if m := find("qwen-token-plan-cn", "qwen3.8-max"); m.Compat == nil || m.Compat.ThinkingFormat != "qwen" || !strings.Contains(m.BaseURL, "cn-beijing") {
		t.Errorf("qwen cn: %s %+v", m.BaseURL, m.Compat)
	}
	if m := find("xiaomi-token-plan-sgp", "mimo-v2.5-pro"); m.BaseURL != "https://token-plan-sgp.xiaomimimo.com/v1" {
		t.Errorf("xiaomi sgp base %s", m.BaseURL)
	}
}
