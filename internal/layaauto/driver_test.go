package layaauto

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/app/apptest"
	"github.com/relay-agent/relay/internal/hooks"

	"github.com/relay-agent/relay/internal/commands"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/harness"
	"github.com/relay-agent/relay/internal/laya"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tool"
)

// layaCatalog has the default registry's anthropic and google models,
// all with credentials, all answered by one fake client.
type layaCatalog struct {
	client *apptest.FakeClient
	models []*llm.Model
}

func newLayaCatalog(fc *apptest.FakeClient, providers ...string) *layaCatalog {
	c := &layaCatalog{client: fc}
	keep := map[string]bool{}
	for _, p := range providers {
		keep[p] = true
	}
	for _, refs := range laya.DefaultRegistry() {
		for _, ref := range refs {
			p, id, _ := laya.SplitRef(ref)
			if keep[p] {
				c.models = append(c.models, &llm.Model{ID: id, Provider: p, API: "fake-api", Reasoning: true, ContextWindow: 200000, MaxTokens: 8000,
					ThinkingLevelMap: map[string]*string{"xhigh": nil}})
			}
		}
	}
	return c
}

func (c *layaCatalog) Client(*llm.Model) (llm.Client, error) { return c.client, nil }
func (c *layaCatalog) Auth(context.Context, *llm.Model) (string, map[string]string, error) {
	return "key", nil, nil
}
func (c *layaCatalog) Find(p, id string) *llm.Model {
	for _, m := range c.models {
		if m.Provider == p && m.ID == id {
			return m
		}
	}
	return nil
}
func (c *layaCatalog) Available() []*llm.Model { return c.models }

// failTool always fails, like an edit whose old text is not found.
type failTool struct{}

func (failTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "edit", Description: "edit", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (failTool) Execute(context.Context, json.RawMessage, func(tool.Result)) tool.Result {
	return tool.Error("Could not find the exact text to replace")
}

type layaEnv struct {
	rt   *app.Runtime
	seam *hooks.Set
	d    *Driver
	fc   *apptest.FakeClient
	home string
}

func newLayaRuntime(t *testing.T, cfg laya.Config, replies ...apptest.Reply) *layaEnv {
	t.Helper()
	fc := &apptest.FakeClient{Replies: replies}
	cat := newLayaCatalog(fc, "anthropic", "google")
	agentDir := t.TempDir()
	reg, _ := tool.NewRegistry(apptest.EchoTool{}, failTool{})
	cfg.Home = filepath.Join(agentDir, "laya")
	if cfg.MinConfidence == 0 {
		cfg.MinConfidence = 0.5
	}
	if cfg.EscalateAfterFailures == 0 {
		cfg.EscalateAfterFailures = 3
	}
	cfg.Telemetry, cfg.Memory = true, true
	active := tool.NewActive([]string{"echo", "edit"})
	d := NewWithRouter(Options{AgentDir: agentDir, Cwd: t.TempDir(), Tools: reg, Active: active}, cat, laya.New(cfg, cat))
	seam := hooks.New()
	rt, err := app.New(app.Config{Hooks: seam, Cwd: t.TempDir(), AgentDir: agentDir, Session: session.InMemory("/proj"), Models: d.Models(), Model: d.Model(laya.AutoModel()),
		Tools: reg, Active: active, NoContext: true,
		Retry: agent.RetryPolicy{Enabled: true, MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Attach(rt, seam, commands.New()); err != nil {
		t.Fatal(err)
	}
	return &layaEnv{rt: rt, seam: seam, d: d, fc: fc, home: cfg.Home}
}

// find looks a model up in the registry the runtime sees (laya/auto
// included).
func (e *layaEnv) find(provider, id string) *llm.Model { return e.d.Models().Find(provider, id) }

func (e *layaEnv) prompt(t *testing.T, text string) {
	t.Helper()
	if err := e.rt.Prompt(context.Background(), text, nil); err != nil {
		t.Fatal(err)
	}
}

// routed returns "model • level" of request i.
func (e *layaEnv) routed(i int) string {
	r := e.fc.Reqs[i]
	return r.Model.ID + " • " + string(r.ThinkingLevel)
}

// planText is the last plan message of a request.
func planText(req *llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if u, ok := req.Messages[i].(*llm.UserMessage); ok && strings.HasPrefix(u.Content.PlainText(), "[laya:plan]") {
			return u.Content.PlainText()
		}
	}
	return ""
}

// deadURL is a local address nothing listens on.
func deadURL(t *testing.T) string {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	return u + "/v1"
}

func TestLayaRoutesWithRulesWhenClassifierIsDown(t *testing.T) {
	e := newLayaRuntime(t, laya.Config{BaseURL: deadURL(t)}, apptest.Say("done"), apptest.Say("done"), apptest.Say("done"))
	e.prompt(t, "Corrija o texto deste botão")
	e.prompt(t, "Fix the race condition in workers")
	e.prompt(t, "Fix the login token expiry")
	want := []string{"claude-haiku-4-5 • minimal", "claude-opus-5-5 • high", "claude-opus-5-5 • medium"}
	for i, w := range want {
		if got := e.routed(i); got != w {
			t.Errorf("request %d routed to %s, want %s", i, got, w)
		}
	}
	// The plan follows the user's message and names the sensitive rule.
	req := e.fc.Reqs[2]
	n := len(req.Messages)
	if u, ok := req.Messages[n-2].(*llm.UserMessage); !ok || u.Content.PlainText() != "Fix the login token expiry" {
		t.Fatalf("message before the plan: %#v", req.Messages[n-2])
	}
	plan := planText(req)
	if !strings.Contains(plan, "- Sensitive area: authentication") || !strings.Contains(plan, "- Validation (required): review") {
		t.Errorf("plan:\n%s", plan)
	}
	if strings.Contains(req.SystemPrompt, "[laya:plan]") {
		t.Error("plan in the system prompt")
	}
	status, footer := e.d.lines()
	if status != "laya balanced: bug_fix → strong claude-opus-5-5 • medium (rules)" || footer != "laya/auto → claude-opus-5-5 • medium" {
		t.Errorf("status %q footer %q", status, footer)
	}
	// Router state lives on the branch; the assistant names the physical model.
	states := 0
	for _, en := range e.rt.Session().Branch("") {
		if c := en.Custom(); c != nil && c.CustomType == laya.StateCustomType {
			var se laya.StateEntry
			if err := json.Unmarshal(c.Data, &se); err != nil || se.Provider != "laya" || se.ModelID != "auto" || se.State == nil {
				t.Errorf("state entry %s", c.Data)
			}
			states++
		}
	}
	if states != 3 {
		t.Errorf("%d state entries", states)
	}
	msgs := e.rt.ContextMessages()
	if a := msgs[len(msgs)-1].(*llm.AssistantMessage); a.Provider != "anthropic" || a.Model != "claude-opus-5-5" {
		t.Errorf("assistant %s/%s", a.Provider, a.Model)
	}
	recs, _ := laya.ReadTelemetry(laya.TelemetryPath(e.home))
	if len(recs) != 3 || !recs[0].Result.Success || recs[0].Selected.Tier != "fast" || recs[2].Policy.Rules[0] != "authentication" {
		t.Errorf("telemetry %+v", recs)
	}
	if e.d.Router().LastError() == "" {
		t.Error("no classifier error recorded")
	}
}

// systemOne answers like a Laya server choosing balanced/low.
func systemOne(t *testing.T, calls *int) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health":
			io.WriteString(w, `{"ok":true,"model":"/opt/laya/model"}`)
		case "/v1/systemone":
			*calls++
			var body struct {
				State     map[string]string          `json:"state"`
				Questions map[string]json.RawMessage `json:"questions"`
			}
			json.NewDecoder(r.Body).Decode(&body)
			if body.State["request"] == "" || len(body.Questions) != 18 || r.Header.Get("authorization") != "Bearer local" {
				w.WriteHeader(422)
				return
			}
			io.WriteString(w, answersJSON("feature", "balanced", "low"))
		default:
			w.WriteHeader(404)
		}
	}))
}

func answersJSON(typ, tier, effort string) string {
	ans := map[string]any{
		"task_type":       map[string]any{"type": "choice", "choice": typ, "probabilities": map[string]float64{typ: 0.9}, "confidence": 0.4},
		"scope":           map[string]any{"type": "choice", "choice": "module", "probabilities": map[string]float64{"module": 0.8}, "confidence": 0.8},
		"capability_tier": map[string]any{"type": "choice", "choice": tier, "probabilities": map[string]float64{tier: 0.85}, "confidence": 0.8},
		"reasoning_effort": map[string]any{"type": "choice", "choice": effort, "probabilities": map[string]float64{effort: 0.8},
			"confidence": 0.8},
		"agent":                 map[string]any{"type": "choice", "choice": "frontend-engineer", "probabilities": map[string]float64{}, "confidence": 0.7},
		"validation_level":      map[string]any{"type": "choice", "choice": "unit_test", "probabilities": map[string]float64{}, "confidence": 0.7},
		"complexity":            map[string]any{"type": "score", "score": 2, "confidence": 0.7},
		"risk":                  map[string]any{"type": "score", "score": 1, "confidence": 0.7},
		"ambiguity":             map[string]any{"type": "score", "score": 0, "confidence": 0.7},
		"reasoning_requirement": map[string]any{"type": "score", "score": 2, "confidence": 0.7},
	}
	for _, id := range laya.ToolRequirements {
		ans[id] = map[string]any{"type": "noul", "noul": 0.2}
	}
	ans["requires_write"] = map[string]any{"type": "noul", "noul": 0.9}
	ans["security_sensitive"] = map[string]any{"type": "noul", "noul": 0.1}
	b, _ := json.Marshal(map[string]any{"answers": ans, "usage": map[string]int{"input_tokens": 300, "output_tokens": 18}})
	return string(b)
}

func TestLayaRoutesWithTheClassifier(t *testing.T) {
	calls := 0
	srv := systemOne(t, &calls)
	defer srv.Close()
	e := newLayaRuntime(t, laya.Config{BaseURL: srv.URL + "/v1"}, apptest.Say("done"))
	e.prompt(t, "Add a dark mode toggle to the settings screen")
	if calls != 1 {
		t.Fatalf("%d classifier calls", calls)
	}
	if got := e.routed(0); got != "claude-sonnet-5-5 • low" {
		t.Errorf("routed to %s", got)
	}
	status, _ := e.d.lines()
	if status != "laya balanced: feature → balanced claude-sonnet-5-5 • low" {
		t.Errorf("status %q", status)
	}
	if e.d.Router().LastError() != "" {
		t.Errorf("error %s", e.d.Router().LastError())
	}
}

func TestLayaRoutesFromMemory(t *testing.T) {
	e := newLayaRuntime(t, laya.Config{BaseURL: deadURL(t)}, apptest.Say("done"), apptest.Say("done"))
	labels := laya.RuleAssessment("Corrija o texto do botão Salvar na tela de pedidos").Labels()
	labels["capability_tier"], labels["reasoning_effort"] = "balanced", "medium"
	_, err := laya.MergeExercises(laya.DatasetPath(e.home), []laya.Exercise{{Request: "Corrija o texto do botão Salvar na tela de pedidos",
		Labels: labels, Lesson: "The label comes from locales/pt-BR/orders.json, not the component; run npm run i18n:check."}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	e.prompt(t, "Corrija o texto do botão Salvar na tela de pedidos, está cortado")
	if got := e.routed(0); got != "claude-sonnet-5-5 • medium" {
		t.Errorf("routed to %s", got)
	}
	if status, _ := e.d.lines(); !strings.HasSuffix(status, "(memory)") {
		t.Errorf("status %q", status)
	}
	if plan := planText(e.fc.Reqs[0]); !strings.Contains(plan, "locales/pt-BR/orders.json") {
		t.Errorf("plan without the lesson:\n%s", plan)
	}
	// With a model the user picked, the lesson comes as a hidden message.
	if err := e.rt.SetModel(e.find("anthropic", "claude-haiku-4-5")); err != nil {
		t.Fatal(err)
	}
	e.prompt(t, "Corrija o texto do botão Salvar na tela de pedidos")
	last := e.fc.Reqs[1]
	if last.Model.ID != "claude-haiku-4-5" {
		t.Errorf("picked model not used: %s", last.Model.ID)
	}
	u := last.Messages[len(last.Messages)-1].(*llm.UserMessage).Content.PlainText()
	if !strings.HasPrefix(u, "[laya:lessons]") || !strings.Contains(u, "100% similar") {
		t.Errorf("lessons message %q", u)
	}
}

func TestLayaEscalatesAfterFailedToolCalls(t *testing.T) {
	e := newLayaRuntime(t, laya.Config{BaseURL: deadURL(t)},
		apptest.Call("edit", `{}`), apptest.Call("edit", `{}`), apptest.Call("edit", `{}`), apptest.Say("fixed"))
	e.prompt(t, "Corrija o texto deste botão")
	got := []string{e.routed(0), e.routed(1), e.routed(2), e.routed(3)}
	want := []string{"claude-haiku-4-5 • minimal", "claude-haiku-4-5 • minimal", "claude-haiku-4-5 • minimal", "claude-sonnet-5-5 • minimal"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("routes %v", got)
	}
	st := e.d.Router().Last()
	if len(st.Escalations) != 1 || st.Escalations[0].Reason != laya.ReasonRepeatedFailure || st.Attempts != 2 || st.FailuresAtEscalation != 3 {
		t.Errorf("state %+v", st)
	}
	recs, _ := laya.ReadTelemetry(laya.TelemetryPath(e.home))
	if len(recs) != 1 || recs[0].Result.ToolFailures != 3 || recs[0].Result.Attempts != 2 || recs[0].Selected.Tier != "balanced" {
		t.Errorf("telemetry %+v", recs)
	}
}

func TestLayaMovesProviderOnRateLimit(t *testing.T) {
	limited := func(_ *llm.Request, b *llm.MessageBuilder) *llm.AssistantMessage {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrRateLimit, Status: 429, Message: "429 rate limit exceeded"})
	}
	e := newLayaRuntime(t, laya.Config{BaseURL: deadURL(t)}, limited, apptest.Say("done"))
	e.prompt(t, "Fix the race condition in workers")
	if len(e.fc.Reqs) != 2 || e.routed(0) != "claude-opus-5-5 • high" || e.routed(1) != "gemini-3.1-pro-preview • high" {
		t.Fatalf("routes %d: %s then %s", len(e.fc.Reqs), e.routed(0), e.routed(1))
	}
	if st := e.d.Router().Last(); st.Escalations[0].Reason != laya.ReasonProviderUnavailable {
		t.Errorf("%+v", st.Escalations)
	}
}

func TestLayaToolRoutingEnforce(t *testing.T) {
	e := newLayaRuntime(t, laya.Config{BaseURL: deadURL(t), ToolRouting: laya.ToolRoutingEnforce}, apptest.Say("answer"), apptest.Say("done"))
	e.prompt(t, "How is the session file locked across processes?")
	if tools := e.fc.Reqs[0].Tools; len(tools) != 1 || tools[0].Name != "echo" {
		t.Errorf("question request tools %v", tools)
	}
	e.prompt(t, "Corrija o texto deste botão")
	names := []string{}
	for _, s := range e.fc.Reqs[1].Tools {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "echo,edit" {
		t.Errorf("tools not restored: %v", names)
	}
}

func TestLayaLearnCommand(t *testing.T) {
	labels := laya.RuleAssessment("Corrija o texto deste botão").Labels()
	labels["capability_tier"] = "balanced"
	args, _ := json.Marshal(map[string]any{"exercises": []any{map[string]any{"task": 1, "labels": labels,
		"lesson": "Button labels live in locales/pt-BR/orders.json."}}})
	e := newLayaRuntime(t, laya.Config{BaseURL: deadURL(t)},
		apptest.Say("done"),
		func(req *llm.Request, b *llm.MessageBuilder) *llm.AssistantMessage {
			return apptest.Call(laya.LearnToolName, string(args))(req, b)
		},
		apptest.Say("| task | tier |\n|---|---|\n| 1 | balanced |"),
		apptest.Say("done"))
	e.prompt(t, "Corrija o texto deste botão")
	out, err := e.d.command(context.Background(), "learn")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Laya learned 1 tasks (1 new") {
		t.Errorf("learn reply %q", out)
	}
	learnReq := e.fc.Reqs[1]
	if u := learnReq.Messages[len(learnReq.Messages)-1].(*llm.UserMessage).Content.PlainText(); !strings.HasPrefix(u, "[laya:learn]") || !strings.Contains(u, "Corrija o texto deste botão") {
		t.Errorf("learn prompt %q", u)
	}
	hasTool := false
	for _, s := range learnReq.Tools {
		hasTool = hasTool || s.Name == laya.LearnToolName
	}
	if !hasTool {
		t.Error("laya_learn not active")
	}
	rows, _ := laya.ReadDataset(laya.DatasetPath(e.home))
	if len(rows) != laya.DefaultSeedCount+1 || rows[len(rows)-1].Source != "session" || rows[len(rows)-1].ID != "s00001" {
		t.Errorf("dataset: %d rows, last %+v", len(rows), rows[len(rows)-1])
	}
	// Labeling is no task of its own: routed directly, not recorded.
	if got := e.routed(1); got != "claude-sonnet-5-5 • low" {
		t.Errorf("labeling routed to %s", got)
	}
	// The learned labels route the same request now.
	e.prompt(t, "Corrija o texto deste botão")
	if got := e.routed(3); got != "claude-sonnet-5-5 • minimal" {
		t.Errorf("after learning routed to %s", got)
	}
	if status, _ := e.d.lines(); !strings.HasSuffix(status, "(memory)") {
		t.Errorf("status %q", status)
	}
	recs, _ := laya.ReadTelemetry(laya.TelemetryPath(e.home))
	if len(recs) != 2 || recs[1].Classification.Source != "memory" {
		t.Errorf("telemetry: %d records", len(recs))
	}
}

func TestLayaLearnFromSessionFile(t *testing.T) {
	dir := t.TempDir()
	other, err := session.Create("/other", dir, session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other.AppendMessage(&llm.UserMessage{Content: llm.StringContent("Add a CSV export to the reports page")})
	other.AppendMessage(&llm.AssistantMessage{Provider: "anthropic", Model: "claude-sonnet-5-5", StopReason: llm.StopStop,
		Content: llm.Blocks{&llm.TextContent{Text: "Added."}}})
	file := other.SessionFile()
	other.Close()
	e := newLayaRuntime(t, laya.Config{BaseURL: deadURL(t)}, apptest.Say("nothing to label"))
	out, err := e.d.command(context.Background(), "learn "+file)
	if err != nil {
		t.Fatal(err)
	}
	if out != "Sent 1 tasks to the agent; nothing was saved yet." {
		t.Errorf("reply %q", out)
	}
	u := e.fc.Reqs[0].Messages[len(e.fc.Reqs[0].Messages)-1].(*llm.UserMessage).Content.PlainText()
	if !strings.Contains(u, "Add a CSV export to the reports page") {
		t.Errorf("prompt lacks the other session's task")
	}
	if _, err := e.d.command(context.Background(), "learn /nope.jsonl"); err == nil {
		t.Error("missing session file accepted")
	}
}

func TestEnableLayaWithoutDocker(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	st := settings.Defaults()
	st.Laya.BaseURL = deadURL(t)
	fc := &apptest.FakeClient{Replies: []apptest.Reply{apptest.Say("done")}}
	cat := newLayaCatalog(fc, "anthropic")
	d := New(Options{Settings: st, AgentDir: t.TempDir(), Cwd: t.TempDir(), PolicyFlag: "quality", Interactive: true, Version: "1.0.0"}, cat)
	rt := attach(t, d, laya.AutoModel())
	var notices []string
	for i := 0; i < 400 && len(notices) == 0; i++ {
		notices = d.Router().Notices()
		time.Sleep(5 * time.Millisecond)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "Docker is not installed") {
		t.Fatalf("notices %q", notices)
	}
	if d.Router().Profile().Name != "quality" {
		t.Errorf("--laya-policy ignored")
	}
	if err := rt.Prompt(context.Background(), "Corrija o texto deste botão", nil); err != nil {
		t.Fatal(err)
	}
	// The quality profile pays one tier more than the rules' fast.
	if fc.Reqs[0].Model.ID != "claude-sonnet-5-5" {
		t.Errorf("routed to %s", fc.Reqs[0].Model.ID)
	}
	out, _, _ := rt.cmds.Run(context.Background(), "/laya status")
	if !strings.Contains(out.Text, "container relay-laya: no-docker") {
		t.Errorf("status:\n%s", out.Text)
	}
	// The Docker notice is not repeated; registry refs the test catalog
	// lacks are reported once, not skipped silently.
	later := d.Router().Notices()
	if len(later) != 1 || !strings.Contains(later[0], "openai-codex/gpt-6-luna") || !strings.Contains(later[0], "not in the model catalog") {
		t.Errorf("later notices %q", later)
	}
	if rt.Prompt(context.Background(), "Corrija o texto deste botão", nil); len(d.Router().Notices()) != 0 {
		t.Error("a notice repeated")
	}
	if !strings.Contains(out.Text, "Not in the model catalog (skipped): openai-codex/gpt-6-luna") {
		t.Errorf("status lacks the unknown refs:\n%s", out.Text)
	}
}

// attached is a runtime with the seam and the registry the driver is on.
type attached struct {
	*app.Runtime
	seam *hooks.Set
	cmds *commands.Registry
}

// attach builds a runtime over the driver's registry and attaches it.
func attach(t *testing.T, d *Driver, model *llm.Model) *attached {
	t.Helper()
	seam, cmds := hooks.New(), commands.New()
	rt, err := app.New(app.Config{Hooks: seam, Commands: cmds, Cwd: t.TempDir(), AgentDir: t.TempDir(), Session: session.InMemory("/p"), Models: d.Models(), Model: d.Model(model), NoContext: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Attach(rt, seam, cmds); err != nil {
		t.Fatal(err)
	}
	return &attached{Runtime: rt, seam: seam, cmds: cmds}
}

func TestLayaCommands(t *testing.T) {
	e := newLayaRuntime(t, laya.Config{BaseURL: deadURL(t)}, apptest.Say("done"))
	e.prompt(t, "Fix the race condition in workers")
	ctx := context.Background()
	out, err := e.d.command(ctx, "")
	if err != nil || !strings.Contains(out, "Policy: balanced (default)") || !strings.Contains(out, "strong:anthropic/claude-opus-5-5") ||
		!strings.Contains(out, "Last plan: laya balanced: bug_fix → strong claude-opus-5-5 • high (rules)") {
		t.Errorf("status:\n%s %v", out, err)
	}
	if out, err := e.d.command(ctx, "policy economy"); err != nil || !strings.Contains(out, "economy") || e.d.Router().Profile().Name != "economy" {
		t.Errorf("policy %q %v", out, err)
	}
	if _, err := e.d.command(ctx, "policy cheap"); err == nil {
		t.Error("accepted an unknown policy")
	}
	dir := t.TempDir()
	if _, err := e.d.command(ctx, "decisions "+filepath.Join(dir, "d.json")); err != nil {
		t.Fatal(err)
	}
	var dec struct {
		Language  string                     `json:"language"`
		Decisions map[string]json.RawMessage `json:"decisions"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "d.json"))
	if json.Unmarshal(b, &dec) != nil || dec.Language != "auto" || len(dec.Decisions) != 18 || !strings.Contains(string(dec.Decisions["requires_git"]), `"noul"`) {
		t.Errorf("decisions %s", b)
	}
	if out, err := e.d.command(ctx, "seed 20 "+filepath.Join(dir, "s.jsonl")); err != nil || !strings.Contains(out, "20 synthetic") {
		t.Errorf("seed %q %v", out, err)
	}
	if _, err := e.d.command(ctx, "seed 0"); err == nil {
		t.Error("seed 0 accepted")
	}
	if out, err := e.d.command(ctx, "export "+filepath.Join(dir, "t.jsonl")); err != nil || !strings.Contains(out, "Wrote 1 exercises") {
		t.Errorf("export %q %v", out, err)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "t.jsonl"))
	if !strings.Contains(string(b), `"expected":{"capability_tier":"strong"},"source":"harness"`) {
		t.Errorf("export rows %s", b)
	}
	if _, err := e.d.command(ctx, "frobnicate"); err == nil || !strings.Contains(err.Error(), "Usage: /laya") {
		t.Errorf("unknown sub: %v", err)
	}
	if out, _ := e.d.command(ctx, "models"); !strings.Contains(out, "- v1: shipped (active)") {
		t.Errorf("models %q", out)
	}
}

func TestLayaModelSelectableAndResumable(t *testing.T) {
	e := newLayaRuntime(t, laya.Config{BaseURL: deadURL(t)}, apptest.Say("done"))
	if m := e.find("laya", "auto"); m == nil || !laya.IsAutoModel(m) {
		t.Fatal("laya/auto not findable")
	}
	found := false
	for _, m := range e.d.Models().Available() {
		found = found || laya.IsAutoModel(m)
	}
	if !found {
		t.Error("laya/auto not listed")
	}
	if m := e.rt.State().Model; !laya.IsAutoModel(m) || m.ContextWindow != 200000 || m.MaxTokens != 8000 {
		t.Errorf("selected %+v", m)
	}
	if e.rt.State().ThinkingLevel != llm.ThinkingOff {
		t.Errorf("laya/auto has level %s", e.rt.State().ThinkingLevel)
	}
	// A physical model selected: no routing, no state.
	_ = e.rt.SetModel(e.find("google", "gemini-3.5-flash"))
	e.prompt(t, "Fix the race condition in workers")
	if e.fc.Reqs[0].Model.ID != "gemini-3.5-flash" || planText(e.fc.Reqs[0]) != "" {
		t.Errorf("physical model routed")
	}
	if s, f := e.d.lines(); s != "" || f != "" {
		t.Errorf("status with a physical model: %q %q", s, f)
	}
}

func TestLayaWithoutCredentials(t *testing.T) {
	fc := &apptest.FakeClient{}
	cat := newLayaCatalog(fc) // no provider of the registry
	rt := attach(t, NewWithRouter(Options{}, cat, laya.New(laya.Config{}, cat)), laya.AutoModel())
	err := rt.Prompt(context.Background(), "Fix the typo", nil)
	if err == nil || !strings.Contains(err.Error(), "laya/auto: no model of the Laya registry has credentials") || len(fc.Reqs) != 0 {
		t.Errorf("err %v, %d requests", err, len(fc.Reqs))
	}
}

func TestLayaCountsVerificationRequests(t *testing.T) {
	s := session.InMemory("/p")
	s.AppendMessage(&llm.UserMessage{Content: llm.StringContent("old task")})
	s.AppendMessage(&llm.ToolResultMessage{ToolCallID: "x", IsError: true})
	s.AppendMessage(&llm.UserMessage{Content: llm.StringContent("Corrija o texto deste botão")})
	st := &laya.State{Request: "Corrija o texto deste botão", Tier: laya.TierFast}
	s.AppendCustom(laya.StateCustomType, laya.StateEntry{Provider: "laya", ModelID: "auto", State: st})
	s.AppendMessage(&llm.AssistantMessage{StopReason: llm.StopToolUse})
	s.AppendMessage(&llm.ToolResultMessage{ToolCallID: "a", IsError: true})
	s.AppendMessage(&llm.AssistantMessage{StopReason: llm.StopStop})
	s.AppendMessage(&llm.UserMessage{Content: llm.StringContent("[harness:evidence] Completion check: no evidence")})
	s.AppendMessage(&llm.AssistantMessage{StopReason: llm.StopToolUse})
	s.AppendMessage(&llm.ToolResultMessage{ToolCallID: "b", IsError: true})
	v := viewBranch(s.Branch(""))
	if v.userText != "Corrija o texto deste botão" || !v.current || v.failures != 3 || v.evidence != 1 || v.lastFailed != nil || v.learning {
		t.Fatalf("view %+v", v)
	}
	cat := newLayaCatalog(&apptest.FakeClient{}, "anthropic")
	r := laya.New(laya.Config{EscalateAfterFailures: 3, MinConfidence: 0.5}, cat)
	a := laya.RuleAssessment(st.Request)
	planned, _ := r.Plan(st.Request, a)
	next, err := r.Continue(planned, v.failures, v.evidence)
	if err != nil || next == nil || next.Escalations[0].Reason != laya.ReasonTestFailure || next.Tier != laya.TierBalanced {
		t.Errorf("escalation %+v %v", next, err)
	}
}

func TestLayaLearnIsNoDeveloperConstraint(t *testing.T) {
	e := newLayaRuntime(t, laya.Config{BaseURL: deadURL(t)}, apptest.Say("done"), apptest.Say("nothing to label"))
	hc := harness.New(harness.Config{Alignment: true, Cwd: t.TempDir()})
	if _, err := hc.Register(e.seam, commands.New()); err != nil {
		t.Fatal(err)
	}
	e.prompt(t, "Corrija o texto deste botão")
	if _, err := e.d.command(context.Background(), "learn"); err != nil {
		t.Fatal(err)
	}
	if st := hc.State(nil); strings.Contains(st, "Do not change any file") {
		t.Errorf("the learn brief became a developer constraint:\n%s", st)
	}
}

func TestLayaFollowsTheSelectedProvider(t *testing.T) {
	e := newLayaRuntime(t, laya.Config{BaseURL: deadURL(t), FollowProvider: true}, apptest.Say("done"))
	_ = e.rt.SetModel(e.find("google", "gemini-3.5-flash"))
	_ = e.rt.SetModel(e.find("laya", "auto"))
	e.prompt(t, "Fix the race condition in workers")
	if got := e.routed(0); got != "gemini-3.1-pro-preview • high" {
		t.Errorf("routed to %s", got)
	}
}
