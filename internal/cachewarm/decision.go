// Package cachewarm keeps a provider's prompt cache entry warm while the
// conversation is likely to continue (settings cacheWarming: off |
// streaming | idle), and reports significant cache misses
// (showCacheMissNotices). A refresh replays the last request exactly as
// sent with a one-token output cap, shortly before the entry expires, only
// when the model declares a cache lifetime and the expected saving is at
// least $0.05; each refresh is recorded as a `usage` entry of kind
// `cache_warm`, and extensions may override the decision through the
// cache_warming_decision point.
package cachewarm

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

const (
	// maxStreamingAge and maxIdleAge bound warming after the real request
	// that started it: continuation estimates lose value with age.
	maxStreamingAge = time.Hour
	maxIdleAge      = 30 * time.Minute
	// minSavings is the expected saving below which no refresh is sent.
	minSavings = 0.05
	// idleContinuation is the chance that a real request arrives before an
	// entry expires while the agent is idle (the original's measured
	// constant).
	idleContinuation = 0.15
)

// warmDelay is when to refresh an entry of lifetime ttl: at 90% of it,
// keeping at least ten seconds of margin; ok is false for lifetimes of ten
// seconds or less.
func warmDelay(ttl time.Duration) (time.Duration, bool) {
	if ttl <= 10*time.Second {
		return 0, false
	}
	d := min(ttl*9/10, ttl-10*time.Second)
	return max(d, time.Millisecond), true
}

// cacheTTL is the lifetime of the entry req wrote, from the model's
// promptCache tier for the request's retention; ok is false without one.
func cacheTTL(req *llm.Request) (time.Duration, bool) {
	m := req.Model
	if m == nil || m.PromptCache == nil {
		return 0, false
	}
	var secs float64
	switch req.EffectiveCacheRetention() {
	case llm.CacheLong:
		secs = float64(m.PromptCache.Long)
	case llm.CacheShort:
		secs = float64(m.PromptCache.Short)
	default:
		return 0, false
	}
	if secs <= 0 {
		return 0, false
	}
	return time.Duration(secs * float64(time.Second)), true
}

// replayable reports whether replaying req with a one-token cap leaves its
// cache entry untouched: Anthropic's budget-based thinking derives the
// budget from max_tokens, and the budget is part of the cache key.
func replayable(req *llm.Request) bool {
	m := req.Model
	if req.ThinkingLevel == "" || req.ThinkingLevel == llm.ThinkingOff || m.API != "anthropic-messages" {
		return true
	}
	return m.Compat != nil && m.Compat.ForceAdaptiveThinking != nil && *m.Compat.ForceAdaptiveThinking
}

// decision is one warm-or-stop evaluation, as /session shows it.
type decision struct {
	phase                     string // "streaming" | "idle"
	warmCost, missCost, contP float64
	expectedSavings           float64
	economicsAvailable        bool
	action                    string // "warm" | "stop"
	extensionOverride         bool
	promptTokens              int
}

func price(m *llm.Model, u llm.Usage) float64 {
	m.CalculateCost(&u)
	return u.Cost.Total
}

// evaluate prices a refresh of a prompt of promptTokens tokens against the
// extra cost of the next real request if the entry is lost.
func evaluate(m *llm.Model, promptTokens int, phase string) decision {
	hit := price(m, llm.Usage{CacheRead: promptTokens})
	miss := price(m, llm.Usage{Input: promptTokens})
	if m.Cost.CacheWrite > 0 {
		miss = price(m, llm.Usage{CacheWrite: promptTokens})
	}
	d := decision{phase: phase, promptTokens: promptTokens}
	d.warmCost = price(m, llm.Usage{CacheRead: promptTokens, Output: 1})
	d.missCost = math.Max(0, miss-hit)
	d.contP = 1
	if phase == "idle" {
		d.contP = idleContinuation
	}
	d.economicsAvailable = promptTokens > 0 && (hit > 0 || miss > 0)
	d.expectedSavings = d.contP*d.missCost - d.warmCost
	d.action = "stop"
	if d.expectedSavings >= minSavings {
		d.action = "warm"
	}
	return d
}

func dollars(v float64) string {
	if v < 0 {
		return fmt.Sprintf("-$%.3f", -v)
	}
	return fmt.Sprintf("$%.3f", v)
}

// economics is the decision's one-line reasoning.
func (d decision) economics() string {
	if !d.economicsAvailable {
		return "cache economics unavailable"
	}
	p := fmt.Sprintf("%d%% continuation probability", int(math.Round(d.contP*100)))
	if d.phase == "streaming" {
		p += " while agent is running"
	}
	cmp := "<"
	if d.action == "warm" {
		cmp = ">="
	}
	return fmt.Sprintf("%s, expected savings %s %s $%.3f", p, dollars(d.expectedSavings), cmp, minSavings)
}

// untilText is "Decision in 4m 30s" or "Decision now".
func untilText(at, now time.Time) string {
	if at.IsZero() || !at.After(now) {
		return "Decision now"
	}
	rem := int(math.Ceil(at.Sub(now).Seconds()))
	h, m, s := rem/3600, rem%3600/60, rem%60
	var parts []string
	if h > 0 {
		parts = append(parts, fmt.Sprintf("%dh", h))
	}
	if m > 0 {
		parts = append(parts, fmt.Sprintf("%dm", m))
	}
	if s > 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%ds", s))
	}
	return "Decision in " + strings.Join(parts, " ")
}

// formatTokens is 950, 1.2k, 25k, 1.5M.
func formatTokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	case n < 1_000_000:
		return fmt.Sprintf("%dk", int(math.Round(float64(n)/1000)))
	default:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
	}
}
