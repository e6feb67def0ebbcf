package models

// ProviderInfo describes what relay knows about a provider id without
// parsing the catalog: display name and where its key comes from.
type ProviderInfo struct {
	ID   string
	Name string
	// EnvVars are the API-key variables, in the order they are tried.
	EnvVars []string
	// BearerEnvVars are sent as "Authorization: Bearer <value>" instead of
	// as the API key (Anthropic's ANTHROPIC_AUTH_TOKEN).
	BearerEnvVars []string
	// AmbientHint names the ambient credential sources (cloud SDK
	// credentials) for providers that accept them; empty otherwise.
	AmbientHint string
}

// knownProviders is upstream-spec §6.2. Providers without built-in models
// (Copilot, Cloudflare, the token plans, ...) are listed too: their keys
// still appear in hints, auth checks and models.json providers that reuse
// the id.
var knownProviders = []ProviderInfo{
	{ID: "anthropic", Name: "Anthropic", EnvVars: []string{"ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"}, BearerEnvVars: []string{"ANTHROPIC_AUTH_TOKEN"}},
	{ID: "openai", Name: "OpenAI", EnvVars: []string{"OPENAI_API_KEY"}},
	{ID: "openai-codex", Name: "OpenAI Codex (ChatGPT Plus/Pro)"}, // sign-in only (/login openai-codex)
	{ID: "azure-openai-responses", Name: "Azure OpenAI", EnvVars: []string{"AZURE_OPENAI_API_KEY"}},
	{ID: "google", Name: "Google Gemini", EnvVars: []string{"GEMINI_API_KEY"}},
	{ID: "google-vertex", Name: "Google Vertex AI", EnvVars: []string{"GOOGLE_CLOUD_API_KEY"},
		AmbientHint: "application default credentials + GOOGLE_CLOUD_PROJECT + GOOGLE_CLOUD_LOCATION"},
	{ID: "amazon-bedrock", Name: "Amazon Bedrock",
		AmbientHint: "AWS_PROFILE, AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY, AWS_BEARER_TOKEN_BEDROCK, AWS_CONTAINER_CREDENTIALS_* or AWS_WEB_IDENTITY_TOKEN_FILE"},
	{ID: "github-copilot", Name: "GitHub Copilot", EnvVars: []string{"COPILOT_GITHUB_TOKEN"}},
	{ID: "google-gemini-cli", Name: "Google Gemini CLI"},   // sign-in only (/login google-gemini-cli)
	{ID: "google-antigravity", Name: "Google Antigravity"}, // sign-in only (/login google-antigravity)
	{ID: "ant-ling", Name: "Ant Ling", EnvVars: []string{"ANT_LING_API_KEY"}},
	{ID: "nvidia", Name: "NVIDIA NIM", EnvVars: []string{"NVIDIA_API_KEY"}},
	{ID: "deepseek", Name: "DeepSeek", EnvVars: []string{"DEEPSEEK_API_KEY"}},
	{ID: "groq", Name: "Groq", EnvVars: []string{"GROQ_API_KEY"}},
	{ID: "cerebras", Name: "Cerebras", EnvVars: []string{"CEREBRAS_API_KEY"}},
	{ID: "xai", Name: "xAI", EnvVars: []string{"XAI_API_KEY"}},
	{ID: "typesafe", Name: "TypeSafe", EnvVars: []string{"TYPESAFE_API_KEY"}},
	{ID: "openrouter", Name: "OpenRouter", EnvVars: []string{"OPENROUTER_API_KEY"}},
	{ID: "vercel-ai-gateway", Name: "Vercel AI Gateway", EnvVars: []string{"AI_GATEWAY_API_KEY"}},
	{ID: "zai", Name: "ZAI Coding Plan (Global)", EnvVars: []string{"ZAI_API_KEY"}},
	{ID: "zai-coding-cn", Name: "ZAI Coding Plan (China)", EnvVars: []string{"ZAI_CODING_CN_API_KEY"}},
	{ID: "mistral", Name: "Mistral", EnvVars: []string{"MISTRAL_API_KEY"}},
	{ID: "minimax", Name: "MiniMax", EnvVars: []string{"MINIMAX_API_KEY"}},
	{ID: "minimax-cn", Name: "MiniMax (China)", EnvVars: []string{"MINIMAX_CN_API_KEY"}},
	{ID: "moonshotai", Name: "Moonshot AI", EnvVars: []string{"MOONSHOT_API_KEY"}},
	{ID: "moonshotai-cn", Name: "Moonshot AI (China)", EnvVars: []string{"MOONSHOT_API_KEY"}},
	{ID: "huggingface", Name: "Hugging Face", EnvVars: []string{"HF_TOKEN"}},
	{ID: "fireworks", Name: "Fireworks", EnvVars: []string{"FIREWORKS_API_KEY"}},
	{ID: "together", Name: "Together AI", EnvVars: []string{"TOGETHER_API_KEY"}},
	{ID: "baseten", Name: "Baseten", EnvVars: []string{"BASETEN_API_KEY"}},
	{ID: "opencode", Name: "OpenCode Zen", EnvVars: []string{"OPENCODE_API_KEY"}},
	{ID: "opencode-go", Name: "OpenCode Go", EnvVars: []string{"OPENCODE_API_KEY"}},
	{ID: "kimi-coding", Name: "Kimi For Coding", EnvVars: []string{"KIMI_API_KEY"}},
	{ID: "meta", Name: "Meta", EnvVars: []string{"META_API_KEY"}},
	{ID: "cloudflare-workers-ai", Name: "Cloudflare Workers AI", EnvVars: []string{"CLOUDFLARE_API_KEY"}},
	{ID: "cloudflare-ai-gateway", Name: "Cloudflare AI Gateway", EnvVars: []string{"CLOUDFLARE_API_KEY"}},
	{ID: "qwen-token-plan", Name: "Qwen Token Plan", EnvVars: []string{"QWEN_TOKEN_PLAN_API_KEY"}},
	{ID: "qwen-token-plan-individual", Name: "Qwen Token Plan (Individual)", EnvVars: []string{"QWEN_TOKEN_PLAN_API_KEY"}},
	{ID: "qwen-token-plan-cn", Name: "Qwen Token Plan (China)", EnvVars: []string{"QWEN_TOKEN_PLAN_CN_API_KEY"}},
	{ID: "xiaomi", Name: "Xiaomi MiMo", EnvVars: []string{"XIAOMI_API_KEY"}},
	{ID: "xiaomi-token-plan-cn", Name: "Xiaomi MiMo Token Plan (China)", EnvVars: []string{"XIAOMI_TOKEN_PLAN_CN_API_KEY"}},
	{ID: "xiaomi-token-plan-ams", Name: "Xiaomi MiMo Token Plan (Amsterdam)", EnvVars: []string{"XIAOMI_TOKEN_PLAN_AMS_API_KEY"}},
	{ID: "xiaomi-token-plan-sgp", Name: "Xiaomi MiMo Token Plan (Singapore)", EnvVars: []string{"XIAOMI_TOKEN_PLAN_SGP_API_KEY"}},
	{ID: "llama.cpp", Name: "llama.cpp", EnvVars: []string{"LLAMA_API_KEY"}}, // key optional: llama-server --api-key
}

// Provider returns what relay knows about a provider id.
func Provider(id string) (ProviderInfo, bool) {
	for _, p := range knownProviders {
		if p.ID == id {
			return p, true
		}
	}
	return ProviderInfo{}, false
}

// Providers lists every known provider id in a stable order.
func Providers() []ProviderInfo {
	return append([]ProviderInfo(nil), knownProviders...)
}

// EnvVars returns the API-key environment variables of a provider
// (including bearer-token variables), or nil for unknown providers.
func EnvVars(provider string) []string {
	p, ok := Provider(provider)
	if !ok {
		return nil
	}
	return append(append([]string(nil), p.EnvVars...), p.BearerEnvVars...)
}

// defaultModels is the preferred model of each provider, in the order the
// original tries them when nothing is configured (first provider with
// credentials wins). Only ids present in our catalog are listed; a test
// keeps it that way.
var defaultModels = []struct{ provider, id string }{
	{"amazon-bedrock", "us.anthropic.claude-opus-4-6-v1"},
	{"ant-ling", "Ring-2.6-1T"},
	{"anthropic", "claude-opus-4-8"},
	{"openai", "gpt-5.5"},
	{"azure-openai-responses", "gpt-5.4"},
	{"openai-codex", "gpt-6.1-sol"},
	{"nvidia", "nvidia/nemotron-3-ultra-550b-a55b"},
	{"deepseek", "deepseek-v4-pro"},
	{"google", "gemini-3.1-pro-preview"},
	{"google-vertex", "gemini-3.1-pro-preview"},
	{"github-copilot", "gpt-5.4"},
	{"openrouter", "moonshotai/kimi-k2.6"},
	{"vercel-ai-gateway", "zai/glm-5.1"},
	{"xai", "grok-4.6"}, // the original prefers grok-4.7, which our catalog data predates
	{"groq", "openai/gpt-oss-120b"},
	{"cerebras", "gpt-oss-120b"},
	{"zai", "glm-5.3"},
	{"zai-coding-cn", "glm-5.3"},
	{"mistral", "devstral-medium-latest"},
	{"minimax", "MiniMax-M2.7"},
	{"minimax-cn", "MiniMax-M2.7"},
	{"moonshotai", "kimi-k2.6"},
	{"moonshotai-cn", "kimi-k2.6"},
	{"huggingface", "deepseek-ai/DeepSeek-V4-Pro"}, // original: moonshotai/Kimi-K2.6 (not in our data)
	{"fireworks", "accounts/fireworks/models/kimi-k3"},
	{"together", "moonshotai/Kimi-K2.6"}, // original: moonshotai/Kimi-K3 (not in our data)
	{"baseten", "zai-org/GLM-5.2"},
	{"opencode", "kimi-k2.6"},
	{"opencode-go", "kimi-k3"},
	{"kimi-coding", "kimi-for-coding"},
	{"meta", "muse-spark-1.3"},
	{"cloudflare-workers-ai", "@cf/moonshotai/kimi-k2.6"},
	{"cloudflare-ai-gateway", "workers-ai/@cf/moonshotai/kimi-k2.6"},
	{"qwen-token-plan", "qwen3.7-max"},
	{"qwen-token-plan-cn", "qwen3.7-max"},
	{"qwen-token-plan-individual", "qwen3.8-max"},
	{"xiaomi", "mimo-v2.5-pro"},
	{"xiaomi-token-plan-cn", "mimo-v2.5-pro"},
	{"xiaomi-token-plan-ams", "mimo-v2.5-pro"},
	{"xiaomi-token-plan-sgp", "mimo-v2.5-pro"},
}

// DefaultModelID returns the preferred model id of a provider, or "".
func DefaultModelID(provider string) string {
	for _, d := range defaultModels {
		if d.provider == provider {
			return d.id
		}
	}
	return ""
}
