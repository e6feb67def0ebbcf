package laya

import (
	"regexp"
	"sync"

	"github.com/relay-agent/relay/internal/llm"
)

// Escalation reasons.
const (
	ReasonInsufficientConfidence = "insufficient_confidence"
	ReasonTestFailure            = "test_failure"
	ReasonMissingContext         = "missing_context"
	ReasonHighRisk               = "high_risk"
	ReasonRepeatedFailure        = "repeated_failure"
	ReasonArchitecture           = "architecture_complexity"
	ReasonSecuritySensitive      = "security_sensitive"
	ReasonProviderUnavailable    = "provider_unavailable"
)

// DefaultMinConfidence is laya.minConfidence's default.
const DefaultMinConfidence = 0.5

type policyRule struct {
	id string
	re []*regexp.Regexp // all must match
}

// policyRules are the deterministic floors, tested case-insensitively on
// the raw request.
var policyRules = sync.OnceValue(func() []policyRule {
	ci := func(s string) *regexp.Regexp { return regexp.MustCompile(`(?i)` + s) }
	return []policyRule{
		{"production-database-migration", []*regexp.Regexp{ci(`migrat|migraç|\bdrop\b|backfill|alter table`), ci(`produc|produç`)}},
		{"authentication", []*regexp.Regexp{ci(`\bauth|login|oauth|\bsso\b|password|senha|session token|jwt`)}},
		{"security-vulnerability", []*regexp.Regexp{ci(`vulnerab|injec|injeç|\bxss\b|csrf|\bcve-|exploit|privilege escalation`)}},
		{"payment-processing", []*regexp.Regexp{ci(`payment|pagamento|billing|cobrança|stripe|checkout|invoice|fatura`)}},
	}
})

// PolicyRules returns the ids of the rules the request triggers.
func PolicyRules(request string) []string {
	var out []string
	for _, r := range policyRules() {
		ok := true
		for _, re := range r.re {
			if !re.MatchString(request) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, r.id)
		}
	}
	return out
}

// Policy is the outcome of the policy engine for one request.
type Policy struct {
	RecommendedTier    Tier              `json:"recommendedTier"`
	MinTier            Tier              `json:"minTier"`
	RequiredTier       Tier              `json:"requiredTier"`
	Rules              []string          `json:"rules"`
	Reasons            []string          `json:"reasons"`
	Effort             string            `json:"effort"`
	ThinkingLevel      llm.ThinkingLevel `json:"thinkingLevel"`
	Validation         string            `json:"validation"`
	ValidationRequired bool              `json:"validationRequired"`
	Sensitive          bool              `json:"sensitive"`
}

// ApplyPolicy sets the floors Laya cannot lower: sensitive areas and high
// risk need at least strong, effort medium and review; a confidence below
// minConfidence raises the tier by one.
func ApplyPolicy(request string, a Assessment, minConfidence float64) Policy {
	p := Policy{RecommendedTier: a.Recommendation.Tier, MinTier: TierFast, Rules: PolicyRules(request),
		Effort: a.Recommendation.Effort, Validation: a.Validation}
	if p.Rules == nil {
		p.Rules = []string{}
	}
	var reasons []string
	switch {
	case len(p.Rules) > 0 || a.SecuritySensitive || a.Task.Type == "security":
		p.MinTier = TierStrong
		reasons = append(reasons, ReasonSecuritySensitive)
	case a.Task.Risk >= 0.66:
		p.MinTier = TierStrong
		reasons = append(reasons, ReasonHighRisk)
	case a.Task.Type == "architecture" && a.Task.Complexity >= 0.75:
		p.MinTier = TierStrong
		reasons = append(reasons, ReasonArchitecture)
	}
	p.RequiredTier = max(a.Recommendation.Tier, p.MinTier)
	if a.Confidence < minConfidence && p.RequiredTier < TierFrontier {
		p.RequiredTier++
		reasons = append(reasons, ReasonInsufficientConfidence)
	}
	if p.RequiredTier > a.Recommendation.Tier {
		p.Reasons = reasons
	}
	if p.Reasons == nil {
		p.Reasons = []string{}
	}
	p.Sensitive = p.MinTier == TierStrong
	if p.Sensitive {
		if p.Effort == "minimal" || p.Effort == "low" || p.Effort == "" {
			p.Effort = "medium"
		}
		if indexOf(ValidationLevels, p.Validation) < indexOf(ValidationLevels, "review") {
			p.Validation = "review"
		}
	}
	p.ValidationRequired = p.Sensitive || p.Validation != "none"
	p.ThinkingLevel = ThinkingFor(p.Effort)
	return p
}
