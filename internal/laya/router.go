package laya

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llamacpp"
)

// StateCustomType is the custom entry that keeps router state on the
// session branch; its data is StateEntry.
const StateCustomType = "relay.virtual-model-state"

// StateEntry is the data of a relay.virtual-model-state entry.
type StateEntry struct {
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
	State    *State `json:"state"`
}

// Escalation is one move to another tier or provider.
type Escalation struct {
	Reason string `json:"reason"`
	From   Tier   `json:"from"`
	To     Tier   `json:"to"`
}

// State is the router state of the current task.
type State struct {
	TaskID               string            `json:"taskId"`
	Request              string            `json:"request"`
	Assessment           Assessment        `json:"assessment"`
	Policy               Policy            `json:"policy"`
	Profile              string            `json:"profile"`
	Tier                 Tier              `json:"tier"`
	Model                string            `json:"model"` // provider/id
	ThinkingLevel        llm.ThinkingLevel `json:"thinkingLevel"`
	FailuresAtEscalation int               `json:"failuresAtEscalation"`
	Escalations          []Escalation      `json:"escalations"`
	Attempts             int               `json:"attempts"`
	Alternatives         []string          `json:"alternatives"`
	CapabilityKnown      *bool             `json:"capabilityKnown,omitempty"` // false: a followed model outside the registry
}

func boolPtr(b bool) *bool { return &b }

func (s *State) clone() *State {
	c := *s
	c.Escalations = append([]Escalation(nil), s.Escalations...)
	c.Alternatives = append([]string(nil), s.Alternatives...)
	return &c
}

// Config is the router's configuration (laya.* settings, resolved).
type Config struct {
	Home                  string              // <agentDir>/laya
	BaseURL               string              // classifier; "" = keyword rules only
	APIKey                string              // "" = LAYA_API_KEY, else "local"
	Registry              map[string][]string // laya.models
	Quota                 map[string]float64  // laya.quota
	Policy                string              // laya.policy
	MinConfidence         float64
	EscalateAfterFailures int // 0 disables
	ToolRouting           string
	FollowProvider        bool                           // laya.followProvider
	ModelGroups           map[string]map[string][]string // laya.modelGroups
	Telemetry             bool
	Memory                bool
	Timeout               time.Duration
	HTTP                  *http.Client
	Now                   func() time.Time
	Skills                func() []Skill
	// Classifier is laya.classifier (ParseClassifier); Llama locates the
	// llama.cpp server when it names llama.cpp.
	Classifier string
	Llama      LlamaConfig
	// LibraryMinConfidence is LAYA_LIBRARY_MIN_CONFIDENCE: a
	// library_category answer below it abstains (0 = LibraryMinConfidence).
	LibraryMinConfidence float64
}

// UnavailableFor is how long the rules answer after a failed classifier
// call before Laya is tried again.
const UnavailableFor = time.Minute

// Router is laya/auto.
type Router struct {
	cfg      Config
	models   Models
	registry map[Tier][]string
	client   *Client
	llama    *llamaClassifier // laya.classifier "llama.cpp[/<model>]"
	kind     string           // ClassifierLaya, ClassifierLlama or ClassifierRules
	kindErr  error            // an invalid laya.classifier (rules answer)
	mem      *Memory
	quota    *Quota

	mu               sync.Mutex
	history          History
	sessionProfile   string
	flagProfile      string
	unavailableUntil time.Time
	healthy          bool
	lastError        string
	lastStats        llamacpp.Stats
	refsOnce         sync.Once
	unknownRefs      []string
	notified         map[string]bool
	notices          []string
	serverBusy       func() (bool, string) // Docker install in progress
	last             *State
	lastRanking      []Scored
	follow           string // provider/id of the latest physical selection
}

// New builds a router; history is read from telemetry now (session start).
func New(cfg Config, models Models) *Router {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ToolRouting == "" {
		cfg.ToolRouting = ToolRoutingAdvise
	}
	r := &Router{cfg: cfg, models: models, registry: MergeRegistry(cfg.Registry), quota: NewQuota(cfg.Quota, cfg.Now),
		history: History{}, notified: map[string]bool{}}
	kind, model, err := ParseClassifier(cfg.Classifier)
	if err != nil {
		kind, r.kindErr = ClassifierRules, err
		r.notice(err.Error() + "; keyword rules route requests")
	}
	r.kind = kind
	switch {
	case kind == ClassifierLlama:
		lc := cfg.Llama
		lc.Model = model
		if lc.Timeout <= 0 {
			lc.Timeout = cfg.Timeout
		}
		if lc.HTTP == nil {
			lc.HTTP = cfg.HTTP
		}
		r.llama = &llamaClassifier{cfg: lc}
	case kind == ClassifierLaya && cfg.BaseURL != "":
		r.client = &Client{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Timeout: cfg.Timeout, HTTP: cfg.HTTP}
	}
	if cfg.Memory && cfg.Home != "" {
		r.mem = NewMemory(DatasetPath(cfg.Home))
	}
	if cfg.Telemetry && cfg.Home != "" {
		if recs, err := ReadTelemetry(TelemetryPath(cfg.Home)); err == nil {
			r.history = BuildHistory(recs)
		}
	}
	return r
}

// Config returns the router's configuration.
func (r *Router) Config() Config { return r.cfg }

// Memory returns the learned-task memory (nil when off).
func (r *Router) Memory() *Memory { return r.mem }

// SetServerBusy tells the router when the Docker runtime is installing, so
// the rules answer meanwhile without a doomed call.
func (r *Router) SetServerBusy(fn func() (bool, string)) {
	r.mu.Lock()
	r.serverBusy = fn
	r.mu.Unlock()
}

// harnessText matches messages relay writes itself.
var harnessText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[(laya|harness):[a-z-]+\]`) })

// IsHarnessText reports whether a user-role text is relay's own
// ([laya:...] or [harness:...]), never a user request.
func IsHarnessText(text string) bool { return harnessText().MatchString(strings.TrimSpace(text)) }

// notice queues a message shown once per distinct problem.
func (r *Router) notice(msg string) {
	if r.notified[msg] {
		return
	}
	r.notified[msg] = true
	r.notices = append(r.notices, msg)
}

// Notices returns and clears the pending one-time notices.
func (r *Router) Notices() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.notices
	r.notices = nil
	return n
}

// Notice queues a one-time notice (e.g. from the Docker runtime).
func (r *Router) Notice(msg string) {
	r.mu.Lock()
	r.notice(msg)
	r.mu.Unlock()
}

// LastError is the last classifier error ("" when none).
func (r *Router) LastError() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastError
}

// Assess answers the questions about request: a close learned task first,
// then the Laya classifier, then the keyword rules.
func (r *Router) Assess(ctx context.Context, request string) Assessment {
	if r.mem != nil && !IsHarnessText(request) {
		if a, _, ok := r.mem.Route(request); ok {
			return a
		}
	}
	if a, ok := r.classify(ctx, request); ok {
		return a
	}
	return RuleAssessment(request)
}

func (r *Router) classify(ctx context.Context, request string) (Assessment, bool) {
	if r.llama != nil {
		return r.classifyLlama(ctx, request)
	}
	if r.client == nil {
		return Assessment{}, false
	}
	r.mu.Lock()
	now := r.cfg.Now()
	if now.Before(r.unavailableUntil) {
		r.mu.Unlock()
		return Assessment{}, false
	}
	if r.serverBusy != nil {
		if busy, why := r.serverBusy(); busy {
			if why != "" {
				r.notice(why)
			}
			r.mu.Unlock()
			return Assessment{}, false
		}
	}
	healthy := r.healthy
	r.mu.Unlock()
	fail := func(err error) (Assessment, bool) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.healthy = false
		r.unavailableUntil = r.cfg.Now().Add(UnavailableFor)
		r.lastError = err.Error()
		if _, foreign := err.(*ForeignServerError); foreign {
			r.notice(err.Error())
		}
		return Assessment{}, false
	}
	if !healthy {
		if _, err := r.client.Health(ctx); err != nil {
			return fail(err)
		}
		r.mu.Lock()
		r.healthy = true
		r.mu.Unlock()
	}
	res, err := r.client.Classify(ctx, request)
	if err != nil {
		return fail(err)
	}
	a, err := FromAnswers(res.Answers, SourceLaya)
	if err != nil {
		return fail(fmt.Errorf("laya answer: %w", err))
	}
	r.mu.Lock()
	r.lastError = ""
	r.mu.Unlock()
	return a, true
}

// Profile is the cost profile in force: /laya policy (session), then
// --laya-policy, then laya.policy, then balanced.
func (r *Router) Profile() Profile {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range []string{r.sessionProfile, r.flagProfile, r.cfg.Policy} {
		if p, ok := LookupProfile(n); ok {
			return p
		}
	}
	p, _ := LookupProfile("balanced")
	return p
}

// ProfileSource says where the profile in force comes from: "session"
// (/laya policy), "flag" (--laya-policy), "settings" (laya.policy) or
// "default".
func (r *Router) ProfileSource() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, n := range []string{r.sessionProfile, r.flagProfile, r.cfg.Policy} {
		if _, ok := LookupProfile(n); ok {
			return []string{"session", "flag", "settings"}[i]
		}
	}
	return "default"
}

// SetSessionProfile is /laya policy <profile>.
func (r *Router) SetSessionProfile(name string) error {
	if _, ok := LookupProfile(name); !ok {
		return fmt.Errorf("unknown Laya policy %q: expected %s", name, strings.Join(ProfileNames(), ", "))
	}
	r.mu.Lock()
	r.sessionProfile = name
	r.mu.Unlock()
	return nil
}

// SetFlagProfile is --laya-policy.
func (r *Router) SetFlagProfile(name string) {
	r.mu.Lock()
	r.flagProfile = name
	r.mu.Unlock()
}

// Candidates lists the registry models with credentials.
func (r *Router) Candidates() []Candidate { return Candidates(r.registry, r.models) }

// Registry returns the effective tier registry.
func (r *Router) Registry() map[Tier][]string { return r.registry }

// Quota returns the quota tracker.
func (r *Router) Quota() *Quota { return r.quota }

func (r *Router) historySnapshot() History {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := make(History, len(r.history))
	for k, v := range r.history {
		h[k] = v
	}
	return h
}

// Follow tells the router the latest physical model the user selected
// ("provider/id", "" = none); with laya.followProvider the candidates stay
// with that model's provider, or its laya.modelGroups group.
func (r *Router) Follow(ref string) {
	r.mu.Lock()
	r.follow = ref
	r.mu.Unlock()
}

// following returns the followed ref when laya.followProvider is on.
func (r *Router) following() string {
	if !r.cfg.FollowProvider {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.follow
}

// routeCandidates are the candidates of this request: all registry models
// with credentials, or under followProvider the followed model's group or
// provider (the followed model alone, as balanced, when none is mapped).
func (r *Router) routeCandidates() []Candidate {
	ref := r.following()
	if ref == "" {
		return r.Candidates()
	}
	for _, group := range r.cfg.ModelGroups {
		for _, refs := range group {
			if indexOf(refs, ref) >= 0 {
				return Candidates(MergeRegistryOver(nil, group), r.models)
			}
		}
	}
	provider, id, _ := SplitRef(ref)
	var out []Candidate
	for _, c := range r.Candidates() {
		if c.Model.Provider == provider {
			c.Order = len(out)
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		if m := r.models.Find(provider, id); m != nil {
			for _, a := range r.models.Available() {
				if a.Provider == provider && a.ID == id {
					out = append(out, Candidate{Ref: ref, Model: m, Tier: TierBalanced, Unknown: true})
				}
			}
		}
	}
	return out
}

// reportUnknownRefs says once which registry refs name no model in the
// catalog: they are skipped, and a silent skip hides a typo in
// laya.models.
func (r *Router) reportUnknownRefs() {
	r.refsOnce.Do(func() {
		unknown := UnknownRefs(r.registry, r.models)
		if len(unknown) == 0 {
			return
		}
		r.mu.Lock()
		r.unknownRefs = unknown
		r.notice("laya/auto skips " + strings.Join(unknown, ", ") + ": not in the model catalog (check laya.models)")
		r.mu.Unlock()
	})
}

// UnknownRefs are the registry refs the catalog does not know (known after
// the first routed request).
func (r *Router) UnknownRefs() []string {
	r.reportUnknownRefs()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.unknownRefs...)
}

// rank selects for a required tier and floor.
func (r *Router) rank(required, floor Tier, a Assessment) ([]Scored, error) {
	r.reportUnknownRefs()
	cands := r.routeCandidates()
	if len(cands) == 0 {
		return nil, ErrNoCandidates
	}
	ranked := Rank(RankInput{Candidates: cands, Required: required, Floor: floor, Risk: a.Task.Risk,
		TaskKey: a.TaskKey(), Profile: r.Profile(), History: r.historySnapshot(), Quota: r.quota})
	r.mu.Lock()
	r.lastRanking = ranked
	r.mu.Unlock()
	return ranked, nil
}

func (r *Router) apply(st *State, ranked []Scored) {
	best := ranked[0]
	if ref := r.following(); ref != "" && (best.Unknown || best.Tier < st.Policy.RequiredTier) {
		what := "no " + st.Policy.RequiredTier.String() + " model"
		if best.Unknown {
			what = "no model in the Laya registry"
		}
		p, _, _ := SplitRef(ref)
		r.mu.Lock()
		r.notice(fmt.Sprintf("laya/auto follows %s, which has %s: routing to %s (tier %s unknown or below the required %s).",
			p, what, best.Ref, best.Tier, st.Policy.RequiredTier))
		r.mu.Unlock()
	}
	st.CapabilityKnown = nil
	if best.Unknown {
		st.CapabilityKnown = boolPtr(false)
	}
	st.Tier = best.Tier
	st.Model = best.Ref
	st.ThinkingLevel = best.Model.ClampThinkingLevel(st.Policy.ThinkingLevel)
	st.Alternatives = nil
	for i := 1; i < len(ranked) && i <= 3; i++ {
		st.Alternatives = append(st.Alternatives, ranked[i].Ref)
	}
	r.mu.Lock()
	r.last = st.clone()
	r.mu.Unlock()
}

// Plan applies the policy to an assessment and selects a model for a new
// task.
func (r *Router) Plan(request string, a Assessment) (*State, error) {
	minConf := r.cfg.MinConfidence
	pol := ApplyPolicy(request, a, minConf)
	st := &State{TaskID: uuid.NewString(), Request: ClipRequest(request), Assessment: a, Policy: pol,
		Profile: r.Profile().Name, Attempts: 1, Escalations: []Escalation{}}
	ranked, err := r.rank(pol.RequiredTier, pol.MinTier, a)
	if err != nil {
		return nil, err
	}
	r.apply(st, ranked)
	return st, nil
}

// escalate moves the task to target; nil when there is no higher model.
func (r *Router) escalate(st *State, target Tier, reason string) (*State, error) {
	ranked, err := r.rank(target, target, st.Assessment)
	if err != nil {
		return nil, err
	}
	next := st.clone()
	next.Attempts++
	next.Escalations = append(next.Escalations, Escalation{Reason: reason, From: st.Tier, To: target})
	r.apply(next, ranked)
	return next, nil
}

// Continue is called before each continuation request of a task: after
// laya.escalateAfterFailures failed tool calls or verification requests
// since the last escalation the task moves to the next tier. failures
// counts both; evidence counts the verification requests alone. It
// returns nil when the state does not change.
func (r *Router) Continue(st *State, failures, evidence int) (*State, error) {
	n := r.cfg.EscalateAfterFailures
	if n <= 0 || failures-st.FailuresAtEscalation < n || st.Tier >= TierFrontier {
		return nil, nil
	}
	reason := ReasonRepeatedFailure
	if evidence > 0 {
		reason = ReasonTestFailure
	}
	next, err := r.escalate(st, st.Tier+1, reason)
	if err != nil {
		return nil, err
	}
	next.FailuresAtEscalation = failures
	return next, nil
}

// quotaError matches rate-limit, overload and quota errors.
var quotaError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)rate.?limit|\b429\b|overload|\b529\b|quota|capacity|too many requests|usage limit`)
})

// IsQuotaError reports whether a failed response was a rate limit,
// overload or quota error.
func IsQuotaError(m *llm.AssistantMessage) bool {
	if m == nil || m.StopReason != llm.StopError {
		return false
	}
	if m.Err != nil {
		switch m.Err.Kind {
		case llm.ErrRateLimit, llm.ErrOverloaded, llm.ErrQuota:
			return true
		}
	}
	return quotaError().MatchString(m.ErrorMessage)
}

// NoteFailure records quota pressure on the provider of a response that
// failed with a rate-limit, overload or quota error (whichever model was
// selected), so later selections prefer other providers.
func (r *Router) NoteFailure(m *llm.AssistantMessage) {
	if IsQuotaError(m) && m.Provider != "" {
		r.quota.Pressure(m.Provider)
	}
}

// Retry is called before the request that retries a failed one. After a
// quota error (its pressure noted with NoteFailure) it re-selects at the
// same tier, which moves the task to an equivalent model of another
// provider when one has credentials. nil means sticky.
func (r *Router) Retry(st *State, failed *llm.AssistantMessage) (*State, error) {
	if !IsQuotaError(failed) || r.following() != "" {
		// followProvider: rate limits never switch provider.
		return nil, nil
	}
	ranked, err := r.rank(st.Tier, st.Tier, st.Assessment)
	if err != nil {
		return nil, err
	}
	if ranked[0].Ref == st.Model {
		return nil, nil
	}
	next := st.clone()
	next.Attempts++
	next.Escalations = append(next.Escalations, Escalation{Reason: ReasonProviderUnavailable, From: st.Tier, To: ranked[0].Tier})
	r.apply(next, ranked)
	return next, nil
}

// Resolve returns the physical model and level a state routes to.
func (r *Router) Resolve(st *State) (*llm.Model, llm.ThinkingLevel, error) {
	p, id, _ := SplitRef(st.Model)
	m := r.models.Find(p, id)
	if m == nil {
		return nil, "", fmt.Errorf("laya/auto: routed model %s is no longer in the catalog", st.Model)
	}
	return m, m.ClampThinkingLevel(st.ThinkingLevel), nil
}

// Direct routes a request with no user request behind it: the first
// balanced-or-cheaper choice at low effort; no state.
func (r *Router) Direct() (*llm.Model, llm.ThinkingLevel, error) {
	a := RuleAssessment("")
	ranked, err := r.rank(TierBalanced, TierFast, a)
	if err != nil {
		return nil, "", err
	}
	m := ranked[0].Model
	return m, m.ClampThinkingLevel(llm.ThinkingLow), nil
}

// Observe remembers a state restored from the branch (for /laya status).
func (r *Router) Observe(st *State) {
	if st == nil {
		return
	}
	r.mu.Lock()
	r.last = st.clone()
	r.mu.Unlock()
}

// Last returns the last routed state.
func (r *Router) Last() *State {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		return nil
	}
	return r.last.clone()
}

// PlanFor renders the plan message of a state, with skills and lessons.
func (r *Router) PlanFor(st *State, deactivated []string) string {
	var skills []string
	if r.cfg.Skills != nil {
		skills = PickSkills(st.Request, st.Assessment.Agent, r.cfg.Skills())
	}
	return PlanText(PlanInput{Assessment: st.Assessment, Policy: st.Policy, Skills: skills,
		Deactivated: deactivated, Lessons: r.Lessons(st.Request)})
}

// Lessons renders the lessons of similar learned tasks ("" when none).
func (r *Router) Lessons(request string) string {
	if r.mem == nil || IsHarnessText(request) {
		return ""
	}
	return LessonsText(r.mem.Lessons(request))
}

// UnneededTools applies laya.toolRouting: under enforce, the tools to
// deactivate for this request.
func (r *Router) UnneededTools(st *State, active []string) []string {
	if r.cfg.ToolRouting != ToolRoutingEnforce {
		return nil
	}
	return UnneededTools(st.Assessment, active)
}

// Record appends a telemetry record (unless laya.telemetry is off) and
// counts it in the history.
func (r *Router) Record(rec TelemetryRecord) error {
	r.mu.Lock()
	r.history.Add(rec)
	r.mu.Unlock()
	if !r.cfg.Telemetry || r.cfg.Home == "" {
		return nil
	}
	return AppendTelemetry(TelemetryPath(r.cfg.Home), rec)
}

// StatusLine is the status text of a routed task:
// "laya <profile>: <type> → <tier> <modelId> • <level>" plus "(memory)" or
// "(rules)".
func StatusLine(st *State) string {
	if st == nil {
		return ""
	}
	_, id, _ := SplitRef(st.Model)
	tier := st.Tier.String()
	s := fmt.Sprintf("laya %s: %s → %s %s • %s", st.Profile, st.Assessment.Task.Type, tier, id, st.ThinkingLevel)
	switch st.Assessment.Source {
	case SourceMemory:
		s += " (memory)"
	case SourceHeuristic:
		s += " (rules)"
	}
	return s
}

// Footer is the routed model and effort shown next to the selection.
func Footer(st *State) string {
	if st == nil {
		return Provider + "/" + AutoID
	}
	_, id, _ := SplitRef(st.Model)
	return fmt.Sprintf("%s/%s → %s • %s", Provider, AutoID, id, st.ThinkingLevel)
}

// IsLocalURL reports whether baseURL points at this machine (relay
// manages a container only then).
func IsLocalURL(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	switch u.Hostname() {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return false
}
