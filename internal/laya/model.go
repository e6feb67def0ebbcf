package laya

import (
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// Identities of the router.
const (
	Provider   = "laya"
	AutoID     = "auto"
	AutoName   = "Auto (Laya)"
	VirtualAPI = "virtual"

	// DefaultBaseURL is where the Docker generation publishes the server
	// (laya.md: 127.0.0.1:8737, the port of laya.baseUrl).
	DefaultBaseURL = "http://127.0.0.1:8737/v1"
)

// AutoModel returns the virtual model value laya/auto. It has no thinking
// level of its own: a selected level would cap the routed effort.
func AutoModel() *llm.Model {
	return &llm.Model{ID: AutoID, Name: AutoName, API: VirtualAPI, Provider: Provider,
		Input: []string{"text", "image"}, ContextWindow: 200000, MaxTokens: 32000}
}

// IsAuto reports whether a --model / /model reference names laya/auto.
func IsAuto(ref string) bool {
	return strings.EqualFold(strings.TrimSpace(ref), Provider+"/"+AutoID)
}

// IsAutoModel reports whether m is the virtual model.
func IsAutoModel(m *llm.Model) bool {
	return m != nil && m.Provider == Provider && m.ID == AutoID
}

// Tier is a capability tier: 0 fast, 1 balanced, 2 strong, 3 frontier.
type Tier int

const (
	TierFast Tier = iota
	TierBalanced
	TierStrong
	TierFrontier
)

func (t Tier) String() string {
	if t < 0 || int(t) >= len(TierNames) {
		return "unknown"
	}
	return TierNames[t]
}

// MarshalText writes the tier's name.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a tier name.
func (t *Tier) UnmarshalText(b []byte) error {
	i := indexOf(TierNames, string(b))
	if i < 0 {
		i = int(TierBalanced)
	}
	*t = Tier(i)
	return nil
}

// ParseTier maps a tier name to its index.
func ParseTier(s string) (Tier, bool) {
	i := indexOf(TierNames, s)
	return Tier(i), i >= 0
}

// ThinkingFor maps a recommended effort to relay's thinking level.
// Routing never uses max.
func ThinkingFor(effort string) llm.ThinkingLevel {
	switch effort {
	case "minimal":
		return llm.ThinkingMinimal
	case "low":
		return llm.ThinkingLow
	case "high":
		return llm.ThinkingHigh
	case "extra_high":
		return llm.ThinkingXHigh
	}
	return llm.ThinkingMedium
}
