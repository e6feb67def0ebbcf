package laya

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

func TestTokenize(t *testing.T) {
	got := strings.Join(Tokenize("Corrija o texto do botão SalvarPedido, está cortado! a x9"), " ")
	if got != "corrija texto botao salvar pedido cortado x9" {
		t.Errorf("tokens %q", got)
	}
}

func learned(t *testing.T, home string, ex ...Exercise) {
	t.Helper()
	if _, err := MergeExercises(DatasetPath(home), ex, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
}

func TestMemoryThresholds(t *testing.T) {
	home := t.TempDir()
	labels := RuleAssessment("Corrija o texto do botão Salvar na tela de pedidos").Labels()
	labels["capability_tier"], labels["reasoning_effort"] = "balanced", "medium"
	learned(t, home, Exercise{Request: "Corrija o texto do botão Salvar na tela de pedidos", Labels: labels,
		Lesson: "The label comes from locales/pt-BR/orders.json, not the component; run npm run i18n:check."})
	m := NewMemory(DatasetPath(home))
	if m.Size() != 1 {
		t.Fatalf("size %d", m.Size())
	}
	sim := func(req string) float64 {
		ms := m.matches(req)
		if len(ms) == 0 {
			return 0
		}
		return ms[0].Similarity
	}
	// The documented example routes from memory.
	req := "Corrija o texto do botão Salvar na tela de pedidos, está cortado"
	a, match, ok := m.Route(req)
	if !ok || a.Source != SourceMemory || a.Recommendation.Tier != TierBalanced || a.Recommendation.Effort != "medium" || a.Confidence != match.Similarity {
		t.Fatalf("route %v %+v (similarity %.2f)", ok, a, sim(req))
	}
	// A loosely related request gets the lesson but not the route.
	loose := "Ajuste o botão Salvar da tela de pedidos no celular"
	if s := sim(loose); s < LessonSimilarity || s >= RouteSimilarity {
		t.Fatalf("loose similarity %.2f", s)
	}
	if _, _, ok := m.Route(loose); ok {
		t.Error("loose request routed from memory")
	}
	if ls := m.Lessons(loose); len(ls) != 1 || !strings.Contains(LessonsText(ls), "locales/pt-BR/orders.json") {
		t.Errorf("lessons %v", ls)
	}
	// Another language rarely matches.
	if s := sim("Fix the Save button label on the orders screen"); s >= LessonSimilarity {
		t.Errorf("english similarity %.2f", s)
	}
	text := LessonsText(m.Lessons(req))
	if !strings.HasPrefix(text, "Lessons from similar tasks done before in this harness (check they still apply):\n  - ") || !strings.Contains(text, `"Corrija o texto do botão Salvar na tela de pedidos" (`) {
		t.Errorf("lessons text %q", text)
	}
	// Off switch: a router without memory uses the rules.
	r := newTestRouter(t, Config{Home: home}, "anthropic")
	if a := r.Assess(t.Context(), req); a.Source != SourceHeuristic {
		t.Errorf("memory off: %s", a.Source)
	}
	r2 := newTestRouter(t, Config{Home: home, Memory: true}, "anthropic")
	if a := r2.Assess(t.Context(), req); a.Source != SourceMemory {
		t.Errorf("memory on: %s", a.Source)
	}
	// Harness text never consults the memory.
	if r2.Lessons("[laya:learn] "+req) != "" {
		t.Error("lessons for harness text")
	}
}

func TestMergeExercisesReplacesRelearned(t *testing.T) {
	home := t.TempDir()
	path := DatasetPath(home)
	labels := RuleAssessment("Fix the typo").Labels()
	learned(t, home, Exercise{Request: "Fix the typo", Labels: labels}, Exercise{Request: "Add a test", Labels: labels})
	labels2 := RuleAssessment("Fix the typo").Labels()
	labels2["capability_tier"] = "strong"
	res, err := MergeExercises(path, []Exercise{{Request: "  fix THE   typo ", Labels: labels2, Lesson: "x"}, {Request: "New one", Labels: labels}}, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || res.Updated != 1 || res.SessionTasks != 3 {
		t.Errorf("merge %+v", res)
	}
	rows, _ := ReadDataset(path)
	if len(rows) != DefaultSeedCount+3 {
		t.Fatalf("%d rows", len(rows))
	}
	byID := map[string]DatasetRow{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	if r := byID["s00001"]; r.Expected["capability_tier"] != "strong" || r.Lesson != "x" || r.Split != "train" || r.LabelSource != "agent" {
		t.Errorf("relearned row %+v", r)
	}
	if _, ok := byID["s00003"]; !ok {
		t.Error("new id does not continue after s00002")
	}
	if byID["r00001"].Source != SourceSynthetic {
		t.Error("synthetic seed missing")
	}
}

func TestSeedDeterministic(t *testing.T) {
	a, b := SeedRows(50), SeedRows(50)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Error("seed is not deterministic")
	}
	splits := map[string]int{}
	for _, r := range SeedRows(DefaultSeedCount) {
		splits[r.Split]++
		if _, problems := ValidateLabels(r.Expected); len(problems) > 0 {
			t.Fatalf("seed row %s: %v", r.ID, problems)
		}
	}
	if splits["test"] == 0 || splits["val"] == 0 || splits["train"] < 800 {
		t.Errorf("splits %v", splits)
	}
	r := &seedRand{a: 2026}
	if x := r.next(); x < 0 || x >= 1 {
		t.Errorf("mulberry32 %v", x)
	}
}

func TestValidateLabels(t *testing.T) {
	good := RuleAssessment("Fix the typo").Labels()
	if _, p := ValidateLabels(good); len(p) != 0 {
		t.Fatalf("good labels: %v", p)
	}
	bad := RuleAssessment("Fix the typo").Labels()
	bad["capability_tier"] = "huge"
	bad["complexity"] = 7
	bad["requires_git"] = "yes"
	bad["extra"] = 1
	delete(bad, "scope")
	_, p := ValidateLabels(bad)
	want := []string{`capability_tier: "huge" is not a valid answer`, `complexity: 7 is not a valid answer`, "extra: not a question",
		`requires_git: "yes" is not a valid answer`, "scope: missing"}
	if strings.Join(p, "|") != strings.Join(want, "|") {
		t.Errorf("problems %q", p)
	}
}

func buildSession(t *testing.T) *session.Manager {
	t.Helper()
	s := session.InMemory("/p")
	add := func(m llm.Message) {
		if _, err := s.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	user := func(text string) { add(&llm.UserMessage{Content: llm.StringContent(text)}) }
	st := &State{Request: "Fix the failing build", Tier: TierFast, Model: "anthropic/claude-haiku-4-5",
		Assessment: Assessment{Source: SourceHeuristic, Task: TaskProfile{Type: "bug_fix"}, Recommendation: Recommendation{Tier: TierFast, Effort: "low"}}}
	user("Fix the failing build")
	s.AppendCustom(StateCustomType, StateEntry{Provider: Provider, ModelID: AutoID, State: st})
	add(&llm.AssistantMessage{Provider: "anthropic", Model: "claude-haiku-4-5", ThinkingLevel: "low", StopReason: llm.StopToolUse, Content: llm.Blocks{
		&llm.ToolCall{ID: "1", Name: "edit", Arguments: json.RawMessage(`{"path":"main.go"}`)},
		&llm.ToolCall{ID: "2", Name: "bash", Arguments: json.RawMessage(`{"command":"go test ./..."}`)}}})
	add(&llm.ToolResultMessage{ToolCallID: "1", ToolName: "edit", Content: llm.Blocks{&llm.TextContent{Text: "Could not find text\nmore"}}, IsError: true})
	add(&llm.ToolResultMessage{ToolCallID: "2", ToolName: "bash", Content: llm.Blocks{&llm.TextContent{Text: "ok"}}})
	add(&llm.AssistantMessage{Provider: "anthropic", Model: "claude-haiku-4-5", StopReason: llm.StopStop, Content: llm.Blocks{&llm.TextContent{Text: "Fixed."}}})
	user("[harness:evidence] Completion check")
	user("That broke the linter, fix it properly")
	add(&llm.AssistantMessage{Provider: "google", Model: "gemini-3.5-flash", StopReason: llm.StopError, ErrorMessage: "boom"})
	user("[laya:learn] label these")
	add(&llm.AssistantMessage{Provider: "google", Model: "gemini-3.5-flash", StopReason: llm.StopStop, Content: llm.Blocks{&llm.TextContent{Text: "table"}}})
	return s
}

func TestExtractTasks(t *testing.T) {
	tasks := ExtractTasks(buildSession(t).Branch(""), DefaultRegistry())
	if len(tasks) != 2 {
		t.Fatalf("%d tasks: %+v", len(tasks), tasks)
	}
	a := tasks[0]
	if a.Number != 1 || a.Request != "Fix the failing build" || a.Tools["edit"] != 1 || a.Tools["bash"] != 1 ||
		strings.Join(a.Files, ",") != "main.go" || strings.Join(a.Commands, ",") != "go test ./..." || a.ToolFailures != 1 ||
		strings.Join(a.Errors, ",") != "edit: Could not find text" || a.TestsPassed == nil || !*a.TestsPassed || a.Outcome != "completed" ||
		a.Reply != "Fixed." || a.Next != "That broke the linter, fix it properly" || a.Planned == nil || a.Planned.Tier != "fast" ||
		strings.Join(a.Models, ",") != "anthropic/claude-haiku-4-5 (fast tier) • low" {
		t.Errorf("task 1 %+v", a)
	}
	b := tasks[1]
	if b.Outcome != "error" || b.Reply != "" || b.Next != "" || b.Planned != nil {
		t.Errorf("task 2 %+v (the [laya:learn] group must be skipped)", b)
	}
	p := LearnPrompt(tasks, "")
	if !strings.HasPrefix(p, "[laya:learn] Teach Laya, Relay's routing model, the tasks of this session") || !strings.Contains(p, "- capability_tier: ") ||
		!strings.Contains(p, "### Task 1\nRequest:\n<request>\nFix the failing build\n</request>\nRan on: anthropic/claude-haiku-4-5 (fast tier) • low; outcome completed; 1 failed tool calls; checks passed\nLaya planned: bug_fix, fast tier, low effort (heuristic)\nTools: bash×1, edit×1\nFiles changed (1): main.go\nCommands: go test ./...\nErrors: edit: Could not find text\nLast reply: Fixed.\nNext user message: That broke the linter, fix it properly") {
		t.Errorf("prompt %s", p)
	}
}

func TestLearnTool(t *testing.T) {
	home := t.TempDir()
	sess := buildSession(t)
	var current *LearnSession
	saved := 0
	lt := &LearnTool{Home: home, Current: func() *LearnSession { return current },
		Collect: func() []Task { return ExtractTasks(sess.Branch(""), nil) },
		OnSaved: func(res MergeResult, train bool) string { saved++; return "training: off" }}
	if lt.Spec().Name != LearnToolName || !json.Valid(lt.Spec().Parameters) {
		t.Fatal("spec")
	}
	labels := RuleAssessment("Fix the failing build").Labels()
	args := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	res := lt.Execute(t.Context(), args(map[string]any{"exercises": []any{map[string]any{"task": 1, "labels": labels}}}), nil)
	if !res.IsError || !strings.Contains(res.Content.PlainText(), "1. Fix the failing build") {
		t.Errorf("without /laya learn: %s", res.Content.PlainText())
	}
	current = &LearnSession{Session: "s.jsonl", Tasks: ExtractTasks(sess.Branch(""), nil)}
	bad := RuleAssessment("x").Labels()
	bad["risk"] = 9
	res = lt.Execute(t.Context(), args(map[string]any{"exercises": []any{
		map[string]any{"task": 1, "labels": labels}, map[string]any{"task": 7, "labels": labels}, map[string]any{"task": 2, "labels": bad}}}), nil)
	if !res.IsError || res.Content.PlainText() != "Nothing was saved. Fix these exercises and call laya_learn again:\n- task 2: risk: 9 is not a valid answer\n- task 7: there is no such task (1 to 2)" {
		t.Errorf("invalid: %q", res.Content.PlainText())
	}
	if _, err := os.Stat(DatasetPath(home)); err == nil || saved != 0 {
		t.Error("saved despite problems")
	}
	res = lt.Execute(t.Context(), args(map[string]any{"exercises": []any{map[string]any{"task": 1, "labels": labels, "lesson": "Run go vet too."}}, "train": false}), nil)
	if res.IsError || !strings.Contains(res.Content.PlainText(), "Saved 1 exercises (1 new, 0 updated); 1 session tasks in "+filepath.Join(home, "training", "data", "dataset.jsonl")) || saved != 1 {
		t.Errorf("save: %q", res.Content.PlainText())
	}
}

func TestTelemetryHistory(t *testing.T) {
	home := t.TempDir()
	path := TelemetryPath(home)
	f := false
	recs := []TelemetryRecord{
		{TaskID: "1", Request: "Fix it", Classification: Classification{Type: "bug_fix", Complexity: 0.5}, Selected: Selected{Provider: "anthropic", Model: "m", Tier: "fast"}, Result: RunResult{Outcome: "completed"}},
		{TaskID: "2", Classification: Classification{Type: "bug_fix", Complexity: 0.5}, Selected: Selected{Provider: "anthropic", Model: "m"}, Result: RunResult{Outcome: "completed", TestsPassed: &f}},
		{TaskID: "3", Classification: Classification{Type: "bug_fix", Complexity: 0.5}, Selected: Selected{Provider: "anthropic", Model: "m"}, Result: RunResult{Outcome: "aborted"}},
	}
	for _, r := range recs {
		r.Result.Success = RunSucceeded(r.Result)
		if err := AppendTelemetry(path, r); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(path, append(must(os.ReadFile(path)), []byte("garbage\n")...), 0o600)
	got, _ := ReadTelemetry(path)
	if len(got) != 3 {
		t.Fatalf("%d records", len(got))
	}
	h := BuildHistory(got)
	if o := h["bug_fix:2|anthropic/m"]; o.Runs != 2 || o.Successes != 1 {
		t.Errorf("history %+v", h)
	}
	// History moves P(success) in the next session's router.
	r := newTestRouter(t, Config{Home: home, Telemetry: true}, "anthropic")
	if r.historySnapshot()["bug_fix:2|anthropic/m"].Runs != 2 {
		t.Error("router did not read telemetry")
	}
	if rows := ExportRows(got); len(rows) != 1 || rows[0].Expected["capability_tier"] != "fast" || rows[0].Source != SourceHarness {
		t.Errorf("export %+v", rows)
	}
	if !IsCheckCommand("npm run build") || !IsCheckCommand("go test ./...") || IsCheckCommand("ls -la") {
		t.Error("check commands")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestTelemetryOffSwitch(t *testing.T) {
	home := t.TempDir()
	r := newTestRouter(t, Config{Home: home}, "anthropic")
	rec := TelemetryRecord{TaskID: "t", Request: "x", Classification: Classification{Type: "bug_fix", Complexity: 0.5},
		Selected: Selected{Provider: "anthropic", Model: "claude-haiku-4-5"}, Result: RunResult{Outcome: "completed", Success: true}}
	if err := r.Record(rec); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(TelemetryPath(home)); err == nil {
		t.Error("telemetry written with laya.telemetry off")
	}
	// The session still learns from its own outcomes.
	if r.historySnapshot()["bug_fix:2|anthropic/claude-haiku-4-5"].Runs != 1 {
		t.Error("history not updated")
	}
	on := newTestRouter(t, Config{Home: home, Telemetry: true}, "anthropic")
	if err := on.Record(rec); err != nil {
		t.Fatal(err)
	}
	got, _ := ReadTelemetry(TelemetryPath(home))
	if len(got) != 1 || got[0].Result.Escalations == nil || got[0].Policy.Rules == nil {
		t.Errorf("records %+v", got)
	}
}
