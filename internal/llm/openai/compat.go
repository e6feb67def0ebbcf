package openai

import (
	"encoding/json"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// Thinking formats of OpenAI-compatible servers (compat.thinkingFormat).
const (
	FormatOpenAI           = "openai"             // reasoning_effort
	FormatOpenRouter       = "openrouter"         // reasoning:{effort}
	FormatDeepSeek         = "deepseek"           // thinking:{type} + reasoning_effort
	FormatTogether         = "together"           // reasoning:{enabled} + reasoning_effort
	FormatBaseten          = "baseten"            // chat_template_args:{enable_thinking}
	FormatZAI              = "zai"                // thinking:{type, clear_thinking}
	FormatQwen             = "qwen"               // enable_thinking
	FormatChatTemplate     = "chat-template"      // chat_template_kwargs from compat
	FormatQwenChatTemplate = "qwen-chat-template" // chat_template_kwargs:{enable_thinking, preserve_thinking}
	FormatStringThinking   = "string-thinking"    // thinking:"<effort>"
	FormatAntLing          = "ant-ling"           // reasoning:{effort} from thinkingLevelMap only
)

// compat is llm.Compat with every field resolved: detected defaults for the
// provider/base URL, overridden by the model's explicit compat entries.
type compat struct {
	supportsStore              bool
	supportsDeveloperRole      bool
	supportsReasoningEffort    bool
	supportsUsageInStreaming   bool
	maxTokensField             string
	requiresToolResultName     bool
	requiresAssistantAfterTool bool
	requiresThinkingAsText     bool
	requiresMistralToolIDs     bool
	requiresReasoningContent   bool
	thinkingFormat             string
	thinkingTokenBudgetField   string
	supportsStrictMode         bool
	supportsLongCacheRetention bool
	cacheControlFormat         string
	toolCallIDMaxLength        int
	chatTemplateKwargs         map[string]json.RawMessage
	openRouterRouting          json.RawMessage
	vercelGatewayRouting       json.RawMessage
}

// detectCompat derives defaults from the provider id and base URL, as the
// original does for the well-known OpenAI-compatible services.
func detectCompat(m *llm.Model) compat {
	p, u := m.Provider, m.BaseURL
	has := func(s string) bool { return strings.Contains(u, s) }
	isZAI := p == "zai" || p == "zai-coding-cn" || has("api.z.ai") || has("open.bigmodel.cn")
	isTogether := p == "together" || has("api.together.ai") || has("api.together.xyz")
	isMoonshot := p == "moonshotai" || p == "moonshotai-cn" || has("api.moonshot.")
	isOpenRouter := p == "openrouter" || has("openrouter.ai")
	isCFWorkers := p == "cloudflare-workers-ai" || has("api.cloudflare.com")
	isCFGateway := p == "cloudflare-ai-gateway" || has("gateway.ai.cloudflare.com")
	isNvidia := p == "nvidia" || has("integrate.api.nvidia.com")
	isAntLing := p == "ant-ling" || has("api.ant-ling.com")
	isGrok := p == "xai" || has("api.x.ai")
	isDeepSeek := p == "deepseek" || has("deepseek.com")
	isMistral := p == "mistral" || has("api.mistral.ai")
	isChutes := has("chutes.ai")

	nonStandard := isNvidia || p == "cerebras" || has("cerebras.ai") || isGrok || isTogether || isChutes ||
		has("deepseek.com") || isZAI || isMoonshot || p == "opencode" || has("opencode.ai") ||
		isCFWorkers || isCFGateway || isAntLing || isMistral
	useMaxTokens := isChutes || isMoonshot || isCFGateway || isTogether || isNvidia || isAntLing || isMistral
	orDeveloper := isOpenRouter && (strings.HasPrefix(m.ID, "anthropic/") || strings.HasPrefix(m.ID, "openai/"))

	c := compat{
		supportsStore:              !nonStandard,
		supportsDeveloperRole:      orDeveloper || (!nonStandard && !isOpenRouter),
		supportsReasoningEffort:    !isGrok && !isZAI && !isMoonshot && !isTogether && !isCFGateway && !isNvidia && !isAntLing,
		supportsUsageInStreaming:   true,
		maxTokensField:             "max_completion_tokens",
		requiresReasoningContent:   isDeepSeek,
		requiresMistralToolIDs:     isMistral,
		requiresToolResultName:     isMistral,
		requiresThinkingAsText:     isMistral,
		thinkingFormat:             FormatOpenAI,
		supportsStrictMode:         !isMoonshot && !isTogether && !isCFGateway && !isNvidia,
		supportsLongCacheRetention: !(isTogether || isCFWorkers || isCFGateway || isNvidia || isAntLing),
	}
	if useMaxTokens {
		c.maxTokensField = "max_tokens"
	}
	switch {
	case isDeepSeek:
		c.thinkingFormat = FormatDeepSeek
	case isZAI:
		c.thinkingFormat = FormatZAI
	case isTogether:
		c.thinkingFormat = FormatTogether
	case isAntLing:
		c.thinkingFormat = FormatAntLing
	case isOpenRouter:
		c.thinkingFormat = FormatOpenRouter
	}
	if p == "openrouter" && strings.HasPrefix(m.ID, "anthropic/") {
		c.cacheControlFormat = "anthropic"
	}
	if p == "openai" || has("api.openai.com") {
		c.toolCallIDMaxLength = 40
	}
	return c
}

// resolveCompat applies the model's explicit compat over the detected one.
func resolveCompat(m *llm.Model) compat {
	c := detectCompat(m)
	x := m.Compat
	if x == nil {
		return c
	}
	setB := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	setB(&c.supportsStore, x.SupportsStore)
	setB(&c.supportsDeveloperRole, x.SupportsDeveloperRole)
	setB(&c.supportsReasoningEffort, x.SupportsReasoningEffort)
	setB(&c.supportsUsageInStreaming, x.SupportsUsageInStreaming)
	setB(&c.requiresToolResultName, x.RequiresToolResultName)
	setB(&c.requiresAssistantAfterTool, x.RequiresAssistantAfterToolResult)
	setB(&c.requiresThinkingAsText, x.RequiresThinkingAsText)
	setB(&c.requiresMistralToolIDs, x.RequiresMistralToolIDs)
	setB(&c.requiresReasoningContent, x.RequiresReasoningContentOnAssistantMessages)
	setB(&c.supportsStrictMode, x.SupportsStrictMode)
	setB(&c.supportsLongCacheRetention, x.SupportsLongCacheRetention)
	if x.MaxTokensField != "" {
		c.maxTokensField = x.MaxTokensField
	}
	if x.ThinkingFormat != "" {
		c.thinkingFormat = x.ThinkingFormat
	}
	if x.ThinkingTokenBudgetField != "" {
		c.thinkingTokenBudgetField = x.ThinkingTokenBudgetField
	}
	if x.CacheControlFormat != "" {
		c.cacheControlFormat = x.CacheControlFormat
	}
	if x.ToolCallIDMaxLength > 0 {
		c.toolCallIDMaxLength = x.ToolCallIDMaxLength
	}
	c.chatTemplateKwargs = x.ChatTemplateKwargs
	c.openRouterRouting = x.OpenRouterRouting
	c.vercelGatewayRouting = x.VercelGatewayRouting
	return c
}
