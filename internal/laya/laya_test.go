package laya

import (
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

// fakeModels is a catalog where every model of an authed provider has
// credentials.
type fakeModels struct {
	all    []*llm.Model
	authed map[string]bool
}

func (f *fakeModels) Find(p, id string) *llm.Model {
	for _, m := range f.all {
		if m.Provider == p && m.ID == id {
			return m
		}
	}
	return nil
}

func (f *fakeModels) Available() []*llm.Model {
	var out []*llm.Model
	for _, m := range f.all {
		if f.authed[m.Provider] {
			out = append(out, m)
		}
	}
	return out
}

func testModels(providers ...string) *fakeModels {
	f := &fakeModels{authed: map[string]bool{}}
	for _, p := range providers {
		f.authed[p] = true
	}
	for _, refs := range DefaultRegistry() {
		for _, ref := range refs {
			p, id, _ := SplitRef(ref)
			f.all = append(f.all, &llm.Model{ID: id, Provider: p, API: llm.APIAnthropicMessages, Reasoning: true,
				ThinkingLevelMap: map[string]*string{"xhigh": strPtr("xhigh")}})
		}
	}
	return f
}

func strPtr(s string) *string { return &s }

func newTestRouter(t *testing.T, cfg Config, providers ...string) *Router {
	t.Helper()
	if cfg.MinConfidence == 0 {
		cfg.MinConfidence = DefaultMinConfidence
	}
	if cfg.EscalateAfterFailures == 0 {
		cfg.EscalateAfterFailures = 3
	}
	return New(cfg, testModels(providers...))
}

func TestDocumentedExamples(t *testing.T) {
	r := newTestRouter(t, Config{}, "anthropic")
	cases := []struct {
		req        string
		tier       Tier
		model      string
		level      llm.ThinkingLevel
		rules      string
		validation string
	}{
		{"Corrija o texto deste botão", TierFast, "anthropic/claude-haiku-4-5", llm.ThinkingMinimal, "", ""},
		{"Fix the race condition in workers", TierStrong, "anthropic/claude-opus-5-5", llm.ThinkingHigh, "", ""},
		{"Fix the login token expiry", TierStrong, "anthropic/claude-opus-5-5", llm.ThinkingMedium, "authentication", "review"},
	}
	for _, c := range cases {
		a := r.Assess(t.Context(), c.req)
		st, err := r.Plan(c.req, a)
		if err != nil {
			t.Fatal(err)
		}
		if st.Tier != c.tier || st.Model != c.model || st.ThinkingLevel != c.level {
			t.Errorf("%q: got %s %s %s, want %s %s %s", c.req, st.Tier, st.Model, st.ThinkingLevel, c.tier, c.model, c.level)
		}
		if got := strings.Join(st.Policy.Rules, ","); got != c.rules {
			t.Errorf("%q: rules %q want %q", c.req, got, c.rules)
		}
		if c.validation != "" && (st.Policy.Validation != c.validation || !st.Policy.ValidationRequired) {
			t.Errorf("%q: validation %s required=%v", c.req, st.Policy.Validation, st.Policy.ValidationRequired)
		}
		if !strings.HasSuffix(StatusLine(st), "(rules)") {
			t.Errorf("status %q", StatusLine(st))
		}
	}
}

func TestKeywordTypeFamilies(t *testing.T) {
	cases := map[string]string{
		"Check for SQL injection in the search form":        "security",
		"Atualize a senha do admin":                         "security",
		"Design a cache layer for the catalog":              "architecture",
		"Quero migrar para microsserviços":                  "architecture",
		"Find the root cause of the timeout in the checker": "debugging",
		"Investigue a causa raiz do problema de memória":    "debugging",
		"Why does the upload fail on large files":           "debugging",
		"Write tests for the parser module please":          "test",
		"Aumente a cobertura do módulo de pedidos":          "test",
		"Fix the broken pagination of the orders list":      "bug_fix",
		"Conserte o cálculo do frete que está errado":       "bug_fix",
		"Refactor the payment handler into smaller pieces":  "refactor",
		"Renomeie a função calcular para computar":          "refactor",
		"Update the README with the new install steps":      "documentation",
		"Escreva um comentário explicando a função de hash": "documentation",
		"Compare sqlite and postgres for the local cache":   "research",
		"Pesquise alternativas ao moment.js no projeto":     "research",
		"Add a dark mode toggle to the settings screen":     "feature",
		"Implemente exportação em CSV na tela de relatório": "feature",
		"How is the session file locked across processes?":  "question",
		"Onde fica a configuração do logger do projeto?":    "question",
		"Make the header sticky on the landing page":        "code_edit",
	}
	for req, want := range cases {
		if got := RuleAssessment(req).Task.Type; got != want {
			t.Errorf("%q: type %s, want %s", req, got, want)
		}
	}
}

func TestKeywordProfile(t *testing.T) {
	a := RuleAssessment("Fix the typo in README.md line 3")
	if a.Task.Complexity != 0 || a.Task.Scope != "single_line" || a.Recommendation.Tier != TierFast || a.Recommendation.Effort != "minimal" {
		t.Errorf("typo: %+v", a)
	}
	a = RuleAssessment("Fix the data corruption in the distributed queue across services")
	if a.Task.Complexity != 1 || a.Recommendation.Tier != TierFrontier || a.Agent != "software-architect" || a.Recommendation.Effort != "extra_high" {
		t.Errorf("distributed: %+v", a)
	}
	a = RuleAssessment("Drop the legacy orders table in the production database")
	if a.Task.Risk != 1 || !a.Tools["requires_database"] || a.Agent != "database-engineer" {
		t.Errorf("drop: risk %v tools %v", a.Task.Risk, a.Tools)
	}
	if a := RuleAssessment("run the build and tell me what fails in it"); a.Tools["requires_write"] {
		t.Errorf("run: %v", a.Tools)
	}
	if a := RuleAssessment("commit and push the fix on a new branch"); !a.Tools["requires_git"] {
		t.Errorf("git: %v", a.Tools)
	}
	if a := RuleAssessment("Add a deploy step to the docker pipeline"); a.Agent != "devops-engineer" || !a.Tools["requires_shell"] {
		t.Errorf("devops: %s %v", a.Agent, a.Tools)
	}
	if a := RuleAssessment("Add an index to the orders query"); a.Agent != "database-engineer" {
		t.Errorf("db agent %s", a.Agent)
	}
	if a := RuleAssessment("Add a modal component to the checkout page"); a.Agent != "frontend-engineer" {
		t.Errorf("frontend agent %s", a.Agent)
	}
	if a := RuleAssessment("Add retry to the queue worker of the backend"); a.Agent != "backend-engineer" {
		t.Errorf("backend agent %s", a.Agent)
	}
	if a := RuleAssessment("Add push notifications to the flutter app"); a.Agent != "mobile-engineer" {
		t.Errorf("mobile agent %s", a.Agent)
	}
	if a := RuleAssessment("Please investigate the slow startup of the service"); a.Task.Ambiguity != 0.5 {
		t.Errorf("ambiguity %v", a.Task.Ambiguity)
	}
}

func TestPolicyFloors(t *testing.T) {
	fast := Assessment{Task: TaskProfile{Type: "code_edit"}, Recommendation: Recommendation{Tier: TierFast, Effort: "minimal"},
		Validation: "compile", Confidence: 0.9}
	cases := []struct {
		req    string
		rule   string
		reason string
	}{
		{"Run the user table migration in production", "production-database-migration", ReasonSecuritySensitive},
		{"Backfill the produção column", "production-database-migration", ReasonSecuritySensitive},
		{"Change the OAuth callback", "authentication", ReasonSecuritySensitive},
		{"Patch the XSS in comments", "security-vulnerability", ReasonSecuritySensitive},
		{"Update the Stripe checkout copy", "payment-processing", ReasonSecuritySensitive},
	}
	for _, c := range cases {
		p := ApplyPolicy(c.req, fast, 0.5)
		if p.RequiredTier != TierStrong || p.Effort != "medium" || p.Validation != "review" || !p.ValidationRequired {
			t.Errorf("%q: %+v", c.req, p)
		}
		if len(p.Rules) == 0 || p.Rules[0] != c.rule || len(p.Reasons) == 0 || p.Reasons[0] != c.reason {
			t.Errorf("%q: rules %v reasons %v", c.req, p.Rules, p.Reasons)
		}
	}
	risky := fast
	risky.Task.Risk = 2.0 / 3
	if p := ApplyPolicy("tweak", risky, 0.5); p.RequiredTier != TierStrong || p.Reasons[0] != ReasonHighRisk {
		t.Errorf("high risk %+v", p)
	}
	arch := fast
	arch.Task.Type, arch.Task.Complexity = "architecture", 0.75
	if p := ApplyPolicy("design", arch, 0.5); p.RequiredTier != TierStrong || p.Reasons[0] != ReasonArchitecture {
		t.Errorf("architecture %+v", p)
	}
	unsure := fast
	unsure.Confidence = 0.3
	if p := ApplyPolicy("tweak", unsure, 0.5); p.RequiredTier != TierBalanced || p.Reasons[0] != ReasonInsufficientConfidence || p.Sensitive {
		t.Errorf("confidence bump %+v", p)
	}
	if p := ApplyPolicy("tweak", fast, 0.5); p.RequiredTier != TierFast || len(p.Reasons) != 0 || p.Validation != "compile" {
		t.Errorf("no floor %+v", p)
	}
	xh := fast
	xh.Recommendation.Effort = "extra_high"
	if p := ApplyPolicy("tweak", xh, 0.5); p.ThinkingLevel != llm.ThinkingXHigh {
		t.Errorf("extra_high -> %s", p.ThinkingLevel)
	}
}

func TestUtilityPerProfile(t *testing.T) {
	cands := Candidates(DefaultRegistry(), testModels("anthropic", "google"))
	rank := func(profile string, required Tier, h History) []Scored {
		p, _ := LookupProfile(profile)
		return Rank(RankInput{Candidates: cands, Required: required, Floor: TierFast, Risk: 0.2, TaskKey: "bug_fix:2", Profile: p, History: h, Quota: NewQuota(nil, nil)})
	}
	// Required balanced: economy and balanced take the balanced tier;
	// quality and critical pay for the likeliest success.
	want := map[string]string{
		"economy":  "anthropic/claude-sonnet-5-5",
		"balanced": "anthropic/claude-sonnet-5-5",
		"quality":  "anthropic/claude-fable-5-1",
		"critical": "anthropic/claude-fable-5-1",
	}
	for prof, ref := range want {
		if got := rank(prof, TierBalanced, nil)[0].Ref; got != ref {
			t.Errorf("%s: chose %s want %s", prof, got, ref)
		}
	}
	// Observed failures of sonnet on this task class move it to the
	// equivalent model of another provider.
	h := History{"bug_fix:2|anthropic/claude-sonnet-5-5": {Runs: 10, Successes: 3}}
	if got := rank("balanced", TierBalanced, h)[0].Ref; got != "google/gemini-3.8-flash" {
		t.Errorf("history: chose %s", got)
	}
	if p := Prior(TierFast, TierBalanced); p < 0.719 || p > 0.721 {
		t.Errorf("prior below %v", p)
	}
	if p := Prior(TierFrontier, TierBalanced); p < 0.979 || p > 0.981 {
		t.Errorf("prior above %v", p)
	}
}

func TestQuotaPressureMovesProvider(t *testing.T) {
	now := time.Unix(1000, 0)
	r := newTestRouter(t, Config{Now: func() time.Time { return now }}, "anthropic", "google")
	a := RuleAssessment("Fix the race condition in workers")
	st, err := r.Plan("Fix the race condition in workers", a)
	if err != nil || st.Model != "anthropic/claude-opus-5-5" {
		t.Fatalf("%v %v", st, err)
	}
	failed := &llm.AssistantMessage{StopReason: llm.StopError, Provider: "anthropic", ErrorMessage: "429 Too Many Requests"}
	r.NoteFailure(failed)
	next, err := r.Retry(st, failed)
	if err != nil || next == nil || next.Model != "google/gemini-3.1-pro-preview" || next.Tier != TierStrong {
		t.Fatalf("retry: %+v %v", next, err)
	}
	if e := next.Escalations[len(next.Escalations)-1]; e.Reason != ReasonProviderUnavailable {
		t.Errorf("escalation %+v", e)
	}
	other := &llm.AssistantMessage{StopReason: llm.StopError, Provider: "anthropic", ErrorMessage: "invalid request"}
	if n, _ := r.Retry(st, other); n != nil {
		t.Errorf("non-quota error moved the task")
	}
	// The penalty decays over ten minutes.
	now = now.Add(QuotaDecay)
	if av := r.Quota().Available("anthropic"); av != 1 {
		t.Errorf("penalty after decay: %v", av)
	}
	// Configured scarce quota makes the provider expensive up front.
	r2 := newTestRouter(t, Config{Quota: map[string]float64{"anthropic": 0.2}}, "anthropic", "google")
	st2, _ := r2.Plan("Fix the race condition in workers", a)
	if st2.Model != "google/gemini-3.1-pro-preview" {
		t.Errorf("scarce quota chose %s", st2.Model)
	}
	// Almost no quota drops the provider.
	r3 := newTestRouter(t, Config{Quota: map[string]float64{"anthropic": 0.01}}, "anthropic", "google")
	for _, c := range Rank(RankInput{Candidates: r3.Candidates(), Required: TierStrong, Profile: r3.Profile(), Quota: r3.Quota()}) {
		if strings.HasPrefix(c.Ref, "anthropic/") {
			t.Errorf("anthropic kept with 1%% quota")
		}
	}
}

func TestEscalationAfterFailures(t *testing.T) {
	r := newTestRouter(t, Config{}, "anthropic")
	a := RuleAssessment("Corrija o texto deste botão")
	st, _ := r.Plan("Corrija o texto deste botão", a)
	if n, _ := r.Continue(st, 2, 0); n != nil {
		t.Fatal("escalated before the threshold")
	}
	n, err := r.Continue(st, 3, 0)
	if err != nil || n == nil || n.Tier != TierBalanced || n.Model != "anthropic/claude-sonnet-5-5" || n.Attempts != 2 {
		t.Fatalf("escalation %+v %v", n, err)
	}
	if e := n.Escalations[0]; e.Reason != ReasonRepeatedFailure || e.From != TierFast || e.To != TierBalanced {
		t.Errorf("%+v", e)
	}
	if again, _ := r.Continue(n, 4, 0); again != nil {
		t.Error("escalated again without new failures")
	}
	n2, _ := r.Continue(n, 6, 1)
	if n2 == nil || n2.Tier != TierStrong || n2.Escalations[1].Reason != ReasonTestFailure {
		t.Errorf("second escalation %+v", n2)
	}
	off := newTestRouter(t, Config{EscalateAfterFailures: -1}, "anthropic")
	if n, _ := off.Continue(st, 10, 0); n != nil {
		t.Error("escalation with the setting at 0")
	}
}

func TestNoCredentials(t *testing.T) {
	r := newTestRouter(t, Config{}, "nobody")
	if _, err := r.Plan("x", RuleAssessment("x")); err != ErrNoCandidates {
		t.Errorf("err %v", err)
	}
	// laya.models replaces a tier and skips unknown models.
	r2 := New(Config{Registry: map[string][]string{"fast": {"google/gemini-3.5-flash", "nope/x"}}, MinConfidence: 0.5}, testModels("anthropic", "google"))
	st, _ := r2.Plan("Corrija o texto deste botão", RuleAssessment("Corrija o texto deste botão"))
	if st.Model != "google/gemini-3.5-flash" {
		t.Errorf("laya.models fast: %s", st.Model)
	}
}

func TestToolRouting(t *testing.T) {
	a := RuleAssessment("How is the session file locked across processes?")
	got := UnneededTools(a, []string{"read", "bash", "edit", "write", "grep", "web_fetch", "mystery"})
	if strings.Join(got, ",") != "bash,edit,write,web_fetch" {
		t.Errorf("unneeded %v", got)
	}
	r := newTestRouter(t, Config{ToolRouting: ToolRoutingEnforce}, "anthropic")
	st, _ := r.Plan("How is the session file locked across processes?", a)
	if d := r.UnneededTools(st, []string{"read", "edit"}); len(d) != 1 || d[0] != "edit" {
		t.Errorf("enforce %v", d)
	}
	adv := newTestRouter(t, Config{}, "anthropic")
	if d := adv.UnneededTools(st, []string{"read", "edit"}); d != nil {
		t.Errorf("advise deactivated %v", d)
	}
	text := r.PlanFor(st, []string{"edit"})
	for _, want := range []string{"[laya:plan]", "- Role: act as researcher", "- Tools: read-only; not expected: file edits", "- Deactivated for this request: edit."} {
		if !strings.Contains(text, want) {
			t.Errorf("plan lacks %q:\n%s", want, text)
		}
	}
}

func TestPlanSensitive(t *testing.T) {
	r := newTestRouter(t, Config{}, "anthropic")
	st, _ := r.Plan("Fix the login token expiry", RuleAssessment("Fix the login token expiry"))
	text := r.PlanFor(st, nil)
	for _, want := range []string{"- Validation (required): review the change for security", "- Sensitive area: authentication. Prefer the safest correct change.", "- Task: bug fix"} {
		if !strings.Contains(text, want) {
			t.Errorf("plan lacks %q:\n%s", want, text)
		}
	}
}

func TestSkills(t *testing.T) {
	skills := []Skill{{"react-testing", "Testing React components with vitest"}, {"go-style", "Go code style"}, {"pdf", "Read PDFs"}}
	got := PickSkills("Write tests for the react settings modal", "qa-engineer", skills)
	if strings.Join(got, ",") != "react-testing" {
		t.Errorf("skills %v", got)
	}
}

func TestProfilePrecedence(t *testing.T) {
	r := newTestRouter(t, Config{Policy: "economy"}, "anthropic")
	if r.Profile().Name != "economy" {
		t.Error(r.Profile().Name)
	}
	r.SetFlagProfile("quality")
	if r.Profile().Name != "quality" {
		t.Error(r.Profile().Name)
	}
	if r.ProfileSource() != "flag" {
		t.Error(r.ProfileSource())
	}
	if err := r.SetSessionProfile("critical"); err != nil || r.Profile().Name != "critical" || r.ProfileSource() != "session" {
		t.Error(r.Profile().Name, err)
	}
	if err := r.SetSessionProfile("cheap"); err == nil {
		t.Error("accepted unknown profile")
	}
}

func TestStatusAndFooter(t *testing.T) {
	st := &State{Profile: "balanced", Tier: TierFast, Model: "anthropic/claude-haiku-4-5", ThinkingLevel: llm.ThinkingMinimal,
		Assessment: Assessment{Source: SourceMemory, Task: TaskProfile{Type: "code_edit"}}}
	if got := StatusLine(st); got != "laya balanced: code_edit → fast claude-haiku-4-5 • minimal (memory)" {
		t.Errorf("status %q", got)
	}
	if got := Footer(st); got != "laya/auto → claude-haiku-4-5 • minimal" {
		t.Errorf("footer %q", got)
	}
	if !IsHarnessText("[laya:learn] label these") || !IsHarnessText(" [harness:evidence] x") || IsHarnessText("[note] x") {
		t.Error("harness text")
	}
	if !IsAuto("laya/auto") || !IsAuto(" LAYA/AUTO ") || IsAuto("laya/x") {
		t.Error("IsAuto")
	}
}

func TestKeywordProfileTable(t *testing.T) {
	type want struct {
		scope, validation string
		complexity        float64
		tools             []string
	}
	cases := map[string]want{
		"Rename the helper across the whole repository":            {"repository", "unit_test", 0, []string{"requires_write", "requires_tests"}},
		"Atualize a versão do pacote em todos os pacotes":          {"repository", "compile", 0, []string{"requires_write", "requires_tests"}},
		"Move the retry logic between the api and worker services": {"multi_module", "compile", 0.25, []string{"requires_write", "requires_tests"}},
		"Ajuste o espaçamento no arquivo header.tsx":               {"single_file", "compile", 0.25, []string{"requires_write", "requires_tests"}},
		"Update the changelog for the next release please":         {"module", "syntax", 0.25, []string{"requires_write", "requires_shell"}},
		"Check the official docs for the latest version of vite":   {"module", "syntax", 0.25, []string{"requires_write", "requires_web"}},
		"Fix the focus ring of the modal in the browser":           {"module", "unit_test", 0.5, []string{"requires_write", "requires_tests", "requires_browser"}},
		"Corrija o vazamento de memória nos serviços de filas":     {"multi_module", "integration_test", 0.75, []string{"requires_write", "requires_tests"}},
		"Design a CRDT sync for the offline editor":                {"module", "review", 1, nil},
	}
	for req, w := range cases {
		a := RuleAssessment(req)
		var tools []string
		for _, id := range ToolRequirements {
			if a.Tools[id] {
				tools = append(tools, id)
			}
		}
		if a.Task.Scope != w.scope || a.Validation != w.validation || a.Task.Complexity != w.complexity || strings.Join(tools, ",") != strings.Join(w.tools, ",") {
			t.Errorf("%q: scope %s validation %s complexity %v tools %v", req, a.Task.Scope, a.Validation, a.Task.Complexity, tools)
		}
	}
}

func TestFollowProvider(t *testing.T) {
	models := testModels("anthropic", "google", "openai")
	models.all = append(models.all, &llm.Model{ID: "gpt-4o", Provider: "openai", API: "x", Reasoning: true})
	req := "Fix the race condition in workers"
	a := RuleAssessment(req)
	r := New(Config{FollowProvider: true, MinConfidence: 0.5}, models)
	r.Follow("google/gemini-3.5-flash")
	st, err := r.Plan(req, a)
	if err != nil || st.Model != "google/gemini-3.1-pro-preview" || st.CapabilityKnown != nil {
		t.Fatalf("followed google: %+v %v", st, err)
	}
	failed := &llm.AssistantMessage{StopReason: llm.StopError, Provider: "google", ErrorMessage: "429 rate limit"}
	r.NoteFailure(failed)
	if next, _ := r.Retry(st, failed); next != nil {
		t.Errorf("followProvider switched provider on a rate limit: %s", next.Model)
	}
	// A followed model outside the registry is the only candidate.
	r.Follow("openai/gpt-4o")
	st, _ = r.Plan(req, a)
	if st.Model != "openai/gpt-4o" || st.Tier != TierBalanced || st.CapabilityKnown == nil || *st.CapabilityKnown {
		t.Errorf("unknown followed model: %+v", st)
	}
	if n := r.Notices(); len(n) != 1 || !strings.Contains(n[0], "laya/auto follows openai") {
		t.Errorf("notices %q", n)
	}
	// A model group holding the followed model is the registry.
	g := New(Config{FollowProvider: true, MinConfidence: 0.5, ModelGroups: map[string]map[string][]string{
		"work": {"fast": {"google/gemini-3.5-flash"}, "strong": {"anthropic/claude-opus-5-5"}}}}, models)
	g.Follow("google/gemini-3.5-flash")
	if st, _ := g.Plan(req, a); st.Model != "anthropic/claude-opus-5-5" {
		t.Errorf("group: %s", st.Model)
	}
	if st, _ := g.Plan("Corrija o texto deste botão", RuleAssessment("Corrija o texto deste botão")); st.Model != "google/gemini-3.5-flash" {
		t.Errorf("group fast: %s", st.Model)
	}
	// Off: the followed model does not matter.
	off := New(Config{MinConfidence: 0.5}, models)
	off.Follow("google/gemini-3.5-flash")
	if st, _ := off.Plan(req, a); st.Model != "anthropic/claude-opus-5-5" {
		t.Errorf("followProvider off: %s", st.Model)
	}
}
