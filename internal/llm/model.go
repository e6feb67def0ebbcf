package llm

import "encoding/json"

// Known API identifiers (the "api" of models and assistant messages).
const (
	APIAnthropicMessages  = "anthropic-messages"
	APIOpenAICompletions  = "openai-completions"
	APIOpenAIResponses    = "openai-responses"
	APIGoogleGenerativeAI = "google-generative-ai"
)

// ThinkingLevel is relay's reasoning effort scale.
type ThinkingLevel string

const (
	ThinkingOff     ThinkingLevel = "off"
	ThinkingMinimal ThinkingLevel = "minimal"
	ThinkingLow     ThinkingLevel = "low"
	ThinkingMedium  ThinkingLevel = "medium"
	ThinkingHigh    ThinkingLevel = "high"
	ThinkingXHigh   ThinkingLevel = "xhigh"
	ThinkingMax     ThinkingLevel = "max"
)

// ThinkingLevels in ascending order.
var ThinkingLevels = []ThinkingLevel{ThinkingOff, ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh, ThinkingXHigh, ThinkingMax}

// ParseThinkingLevel reports whether s names a thinking level.
func ParseThinkingLevel(s string) (ThinkingLevel, bool) {
	for _, l := range ThinkingLevels {
		if string(l) == s {
			return l, true
		}
	}
	return "", false
}

// CostTier applies other rates once the prompt exceeds InputTokensAbove.
type CostTier struct {
	InputTokensAbove int     `json:"inputTokensAbove"`
	Input            float64 `json:"input"`
	Output           float64 `json:"output"`
	CacheRead        float64 `json:"cacheRead"`
	CacheWrite       float64 `json:"cacheWrite"`
}

// ModelCost holds USD rates per million tokens.
type ModelCost struct {
	Input      float64    `json:"input"`
	Output     float64    `json:"output"`
	CacheRead  float64    `json:"cacheRead"`
	CacheWrite float64    `json:"cacheWrite"`
	Tiers      []CostTier `json:"tiers,omitempty"`
}

// PromptCache lifetimes in seconds.
type PromptCache struct {
	Short int `json:"short,omitempty"`
	Long  int `json:"long,omitempty"`
}

// Compat tunes a client for servers that speak an API with deviations
// (mostly OpenAI-compatible servers). Zero values mean "use the default for
// this provider/base URL". The wire clients own the semantics.
type Compat struct {
	SupportsStore                    *bool             `json:"supportsStore,omitempty"`
	SupportsDeveloperRole            *bool             `json:"supportsDeveloperRole,omitempty"`
	SupportsReasoningEffort          *bool             `json:"supportsReasoningEffort,omitempty"`
	ReasoningEffortMap               map[string]string `json:"reasoningEffortMap,omitempty"`
	SupportsUsageInStreaming         *bool             `json:"supportsUsageInStreaming,omitempty"`
	MaxTokensField                   string            `json:"maxTokensField,omitempty"`
	RequiresToolResultName           *bool             `json:"requiresToolResultName,omitempty"`
	RequiresAssistantAfterToolResult *bool             `json:"requiresAssistantAfterToolResult,omitempty"`
	RequiresThinkingAsText           *bool             `json:"requiresThinkingAsText,omitempty"`
	RequiresMistralToolIDs           *bool             `json:"requiresMistralToolIds,omitempty"`
	ThinkingFormat                   string            `json:"thinkingFormat,omitempty"`
	ThinkingTokenBudgetField         string            `json:"thinkingTokenBudgetField,omitempty"`
	SupportsStrictMode               *bool             `json:"supportsStrictMode,omitempty"`
	ToolCallIDMaxLength              int               `json:"toolCallIdMaxLength,omitempty"`
	ForceAdaptiveThinking            *bool             `json:"forceAdaptiveThinking,omitempty"`
	OpenRouterRouting                json.RawMessage   `json:"openRouterRouting,omitempty"`
	VercelGatewayRouting             json.RawMessage   `json:"vercelGatewayRouting,omitempty"`
	// Added for openai-completions (see internal/llm/openai): 24h cache
	// retention support, Anthropic-style cache_control parts through
	// OpenAI-compatible gateways, an empty reasoning_content on replayed
	// assistant messages (DeepSeek), and chat-template kwargs whose values may
	// be {"$var":"thinking.enabled"|"thinking.effort","omitWhenOff":bool}.
	SupportsLongCacheRetention                  *bool                      `json:"supportsLongCacheRetention,omitempty"`
	CacheControlFormat                          string                     `json:"cacheControlFormat,omitempty"`
	RequiresReasoningContentOnAssistantMessages *bool                      `json:"requiresReasoningContentOnAssistantMessages,omitempty"`
	ChatTemplateKwargs                          map[string]json.RawMessage `json:"chatTemplateKwargs,omitempty"`
	Extra                                       Extra                      `json:"-"`
}

// Model describes one model of one provider (the catalog and models.json
// shape, also the RPC Model object).
type Model struct {
	ID                            string                    `json:"id"`
	Name                          string                    `json:"name"`
	API                           string                    `json:"api"`
	Provider                      string                    `json:"provider"`
	BaseURL                       string                    `json:"baseUrl"`
	Reasoning                     bool                      `json:"reasoning"`
	Input                         []string                  `json:"input"`
	ContextWindow                 int                       `json:"contextWindow"`
	MaxTokens                     int                       `json:"maxTokens"`
	Cost                          ModelCost                 `json:"cost"`
	ThinkingLevelMap              map[string]*string        `json:"thinkingLevelMap,omitempty"`
	PromptCache                   *PromptCache              `json:"promptCache,omitempty"`
	InputLimits                   json.RawMessage           `json:"inputLimits,omitempty"`
	Headers                       map[string]string         `json:"headers,omitempty"`
	Compat                        *Compat                   `json:"compat,omitempty"`
	SamplingParams                map[string]any            `json:"samplingParams,omitempty"`
	SamplingParamsByThinkingLevel map[string]map[string]any `json:"samplingParamsByThinkingLevel,omitempty"`
	Type                          string                    `json:"type,omitempty"`
}

// SupportsImages reports whether the model takes image input.
func (m *Model) SupportsImages() bool {
	for _, in := range m.Input {
		if in == "image" {
			return true
		}
	}
	return false
}

// CalculateCost fills u.Cost from the model's rates (per million tokens),
// using the highest tier whose threshold the prompt exceeds.
func (m *Model) CalculateCost(u *Usage) {
	c := m.Cost
	in, out, cr, cw := c.Input, c.Output, c.CacheRead, c.CacheWrite
	prompt := u.Input + u.CacheRead + u.CacheWrite
	for _, t := range c.Tiers {
		if prompt > t.InputTokensAbove {
			in, out, cr, cw = t.Input, t.Output, t.CacheRead, t.CacheWrite
		}
	}
	u.Cost.Input = in * float64(u.Input) / 1e6
	u.Cost.Output = out * float64(u.Output) / 1e6
	u.Cost.CacheRead = cr * float64(u.CacheRead) / 1e6
	// 1h cache writes bill at twice the input rate (pi-family behaviour).
	short := u.CacheWrite - u.CacheWrite1h
	u.Cost.CacheWrite = (cw*float64(short) + 2*in*float64(u.CacheWrite1h)) / 1e6
	u.Cost.Total = u.Cost.Input + u.Cost.Output + u.Cost.CacheRead + u.Cost.CacheWrite
}

// SupportedThinkingLevels returns the levels this model accepts: ["off"]
// for non-reasoning models, else off..high minus levels mapped to null, plus
// xhigh/max only when explicitly mapped.
func (m *Model) SupportedThinkingLevels() []ThinkingLevel {
	if !m.Reasoning {
		return []ThinkingLevel{ThinkingOff}
	}
	var out []ThinkingLevel
	for _, l := range ThinkingLevels {
		v, mapped := m.ThinkingLevelMap[string(l)]
		if mapped && v == nil {
			continue
		}
		if (l == ThinkingXHigh || l == ThinkingMax) && !mapped {
			continue
		}
		out = append(out, l)
	}
	return out
}

// ClampThinkingLevel returns the nearest supported level, searching upward
// first, then downward.
func (m *Model) ClampThinkingLevel(l ThinkingLevel) ThinkingLevel {
	sup := m.SupportedThinkingLevels()
	idx := func(x ThinkingLevel) int {
		for i, y := range ThinkingLevels {
			if x == y {
				return i
			}
		}
		return -1
	}
	want := idx(l)
	if want < 0 {
		want = idx(ThinkingMedium)
	}
	ok := map[ThinkingLevel]bool{}
	for _, s := range sup {
		ok[s] = true
	}
	for i := want; i < len(ThinkingLevels); i++ {
		if ok[ThinkingLevels[i]] {
			return ThinkingLevels[i]
		}
	}
	for i := want - 1; i >= 0; i-- {
		if ok[ThinkingLevels[i]] {
			return ThinkingLevels[i]
		}
	}
	return ThinkingOff
}
