package laya

import (
	"errors"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// Models is what the router needs from the model registry.
type Models interface {
	Find(provider, id string) *llm.Model
	// Available lists the models whose provider has credentials.
	Available() []*llm.Model
}

// DefaultRegistry is the model registry per tier, in preference order.
func DefaultRegistry() map[Tier][]string {
	return map[Tier][]string{
		TierFast:     {"anthropic/claude-haiku-4-5", "openai-codex/gpt-6-luna", "google/gemini-3.5-flash"},
		TierBalanced: {"anthropic/claude-sonnet-5-5", "openai-codex/gpt-5.6-terra", "google/gemini-3.8-flash"},
		TierStrong:   {"anthropic/claude-opus-5-5", "openai-codex/gpt-6-sol", "google/gemini-3.1-pro-preview"},
		TierFrontier: {"anthropic/claude-fable-5-1", "openai-codex/gpt-6.1-sol"},
	}
}

// MergeRegistry applies laya.models: a tier set there replaces that
// tier's default list (shallow merge). Unknown tier names are ignored.
func MergeRegistry(user map[string][]string) map[Tier][]string {
	return MergeRegistryOver(DefaultRegistry(), user)
}

// MergeRegistryOver applies user tiers over base (nil base = empty).
func MergeRegistryOver(base map[Tier][]string, user map[string][]string) map[Tier][]string {
	reg := map[Tier][]string{}
	for t, refs := range base {
		reg[t] = refs
	}
	for name, refs := range user {
		if t, ok := ParseTier(name); ok {
			reg[t] = append([]string(nil), refs...)
		}
	}
	return reg
}

// SplitRef splits "provider/model" at the first slash (model ids may hold
// slashes).
func SplitRef(ref string) (provider, id string, ok bool) {
	provider, id, ok = strings.Cut(ref, "/")
	return provider, id, ok && provider != "" && id != ""
}

// Candidate is one registry model with credentials.
type Candidate struct {
	Ref     string
	Model   *llm.Model
	Tier    Tier
	Order   int
	Unknown bool // a followed model outside the registry (tier assumed balanced)
}

// ErrNoCandidates says no registry model has credentials.
var ErrNoCandidates = errors.New("laya/auto: no model of the Laya registry has credentials; log in to a provider (/login or an API key) or list models you can use in laya.models")

// Candidates lists registry models found in the catalog, not virtual, whose
// provider has credentials: tiers in order, refs in order.
func Candidates(reg map[Tier][]string, models Models) []Candidate {
	authed := map[string]bool{}
	for _, m := range models.Available() {
		authed[m.Provider+"/"+m.ID] = true
	}
	var out []Candidate
	seen := map[string]bool{}
	for t := TierFast; t <= TierFrontier; t++ {
		for _, ref := range reg[t] {
			p, id, ok := SplitRef(ref)
			if !ok || p == Provider || seen[ref] {
				continue
			}
			m := models.Find(p, id)
			if m == nil || m.API == VirtualAPI || !authed[p+"/"+id] {
				continue
			}
			seen[ref] = true
			out = append(out, Candidate{Ref: ref, Model: m, Tier: t, Order: len(out)})
		}
	}
	return out
}

// Profile weighs quality, cost, latency and risk.
type Profile struct {
	Name                         string
	Quality, Cost, Latency, Risk float64
	MinSuccess                   float64
}

// Profiles are the four cost profiles.
var profileTable = []Profile{
	{"economy", 0.30, 0.50, 0.20, 0, 0.75},
	{"balanced", 0.45, 0.30, 0.15, 0.10, 0.85},
	{"quality", 0.70, 0.10, 0, 0.20, 0.90},
	{"critical", 0.70, 0, 0, 0.30, 0.95},
}

// ProfileNames lists the profiles.
func ProfileNames() []string { return []string{"economy", "balanced", "quality", "critical"} }

// LookupProfile returns a profile by name.
func LookupProfile(name string) (Profile, bool) {
	for _, p := range profileTable {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// tier priors: cost and latency.
var tierCost = [4]float64{0.10, 0.35, 0.65, 0.90}
var tierLatency = [4]float64{0.15, 0.35, 0.60, 0.85}

// Outcomes is the observed history of one model on one task class.
type Outcomes struct{ Runs, Successes int }

// History maps "taskKey|provider/model" to outcomes.
type History map[string]Outcomes

// Prior is P(success) before any history: 0.90 on the required tier,
// +0.04 per tier above, -0.18 per tier below.
func Prior(candidate, required Tier) float64 {
	gap := float64(candidate - required)
	step := 0.18
	if gap > 0 {
		step = 0.04
	}
	return clamp(0.90+step*gap, 0.05, 0.99)
}

// Quota tracks how much of each provider's subscription is left: the
// configured share times one minus a decaying penalty from quota errors.
type Quota struct {
	mu      sync.Mutex
	share   map[string]float64
	penalty map[string]float64
	stamped map[string]time.Time
	now     func() time.Time
}

// QuotaDecay is how long a quota-error penalty takes to fade to zero.
const QuotaDecay = 600 * time.Second

// NewQuota starts from laya.quota (missing provider = 1).
func NewQuota(share map[string]float64, now func() time.Time) *Quota {
	if now == nil {
		now = time.Now
	}
	return &Quota{share: share, penalty: map[string]float64{}, stamped: map[string]time.Time{}, now: now}
}

func (q *Quota) currentPenalty(provider string) float64 {
	p := q.penalty[provider]
	if p == 0 {
		return 0
	}
	age := q.now().Sub(q.stamped[provider])
	left := p * (1 - float64(age)/float64(QuotaDecay))
	if left < 0 {
		return 0
	}
	return left
}

// Available is the share of provider's quota left, 0..1.
func (q *Quota) Available(provider string) float64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	s, ok := q.share[provider]
	if !ok {
		s = 1
	}
	return clamp(s, 0, 1) * (1 - q.currentPenalty(provider))
}

// Pressure records a rate-limit, overload or quota error of provider.
func (q *Quota) Pressure(provider string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.penalty[provider] = min(0.9, q.currentPenalty(provider)+0.5)
	q.stamped[provider] = q.now()
}

// Scored is a ranked candidate.
type Scored struct {
	Candidate
	P, Cost, Latency, FailureRisk, Utility float64
	Eligible                               bool
}

// RankInput is what a selection needs.
type RankInput struct {
	Candidates []Candidate
	Required   Tier
	Floor      Tier
	Risk       float64 // 0..1
	TaskKey    string
	Profile    Profile
	History    History
	Quota      *Quota
}

// Rank orders candidates by utility for the profile:
// quality*P - cost*quotaCost - latency*latency - risk*failureRisk. When any
// candidate reaches the profile's minimum success estimate, eligible ones
// come first; otherwise the likeliest to succeed. Candidates below the
// floor or with scarce quota (<= 0.05) are dropped; if that leaves none,
// every candidate is returned strongest tier first.
func Rank(in RankInput) []Scored {
	var out []Scored
	anyEligible := false
	for _, c := range in.Candidates {
		avail := 1.0
		if in.Quota != nil {
			avail = in.Quota.Available(c.Model.Provider)
		}
		if c.Tier < in.Floor || avail <= 0.05 {
			continue
		}
		p := Prior(c.Tier, in.Required)
		if h, ok := in.History[in.TaskKey+"|"+c.Ref]; ok && h.Runs > 0 {
			p = (p*5 + float64(h.Successes)) / float64(5+h.Runs)
		}
		s := Scored{Candidate: c, P: p}
		s.Cost = min(1, tierCost[c.Tier]*(2-avail))
		s.Latency = tierLatency[c.Tier]
		s.FailureRisk = (1 - p) * max(in.Risk, 0.2)
		pr := in.Profile
		s.Utility = pr.Quality*p - pr.Cost*s.Cost - pr.Latency*s.Latency - pr.Risk*s.FailureRisk
		s.Eligible = p >= pr.MinSuccess
		anyEligible = anyEligible || s.Eligible
		out = append(out, s)
	}
	if len(out) == 0 {
		for _, c := range in.Candidates {
			out = append(out, Scored{Candidate: c, P: Prior(c.Tier, in.Required)})
		}
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].Tier != out[j].Tier {
				return out[i].Tier > out[j].Tier
			}
			return out[i].Order < out[j].Order
		})
		return out
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if anyEligible {
			if a.Eligible != b.Eligible {
				return a.Eligible
			}
			if a.Utility != b.Utility {
				return a.Utility > b.Utility
			}
			return a.Order < b.Order
		}
		if a.P != b.P {
			return a.P > b.P
		}
		return a.Order < b.Order
	})
	return out
}

// UnknownRefs lists the registry refs the model catalog does not know
// (misspelt, or a provider whose models are missing), in tier order.
func UnknownRefs(reg map[Tier][]string, models Models) []string {
	var out []string
	seen := map[string]bool{}
	for t := TierFast; t <= TierFrontier; t++ {
		for _, ref := range reg[t] {
			if seen[ref] {
				continue
			}
			seen[ref] = true
			p, id, ok := SplitRef(ref)
			if !ok || (p != Provider && models.Find(p, id) == nil) {
				out = append(out, ref)
			}
		}
	}
	return out
}
