package laya

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm/llamacpp/llamacpptest"
)

// LlamaAnswers scripts the fake server's model: for each question (by its
// instructions) the label of the wanted value gets the highest
// log-probability. Values: choice option, score level (int), bool.
func LlamaAnswers(want map[string]any) func(string) map[string]float64 {
	byText := map[string]Question{}
	for _, q := range ClassifierQuestions() {
		byText[q.Instructions] = q
	}
	return func(text string) map[string]float64 {
		q, ok := byText[text]
		if !ok {
			return nil
		}
		label := ""
		switch v := want[q.ID].(type) {
		case string:
			i := indexOf(q.Options, v)
			if i < 0 {
				panic(fmt.Sprintf("%s: %q is not an option", q.ID, v))
			}
			label = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[i : i+1]
		case int:
			label = fmt.Sprint(v)
		case bool:
			label = "No"
			if v {
				label = "Yes"
			}
		default:
			return nil // the first label wins by default
		}
		return map[string]float64{label: -0.05}
	}
}

// A strong, risky bug fix as a model would answer it.
var bugFix = map[string]any{
	"task_type": "bug_fix", "complexity": 3, "scope": "multi_module", "risk": 2, "ambiguity": 0,
	"reasoning_requirement": 3, "capability_tier": "strong", "reasoning_effort": "high", "agent": "backend-engineer",
	"validation_level": "integration_test", "requires_write": true, "requires_shell": false, "requires_tests": true,
	"requires_web": false, "requires_browser": false, "requires_database": false, "requires_git": false,
	"security_sensitive": false, "library_category": "engineering",
}

func llamaRouter(t *testing.T, srv *llamacpptest.Server, classifier string) (*Router, *time.Time) {
	t.Helper()
	now := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	r := newTestRouter(t, Config{Classifier: classifier, BaseURL: "http://127.0.0.1:1/v1",
		Llama: LlamaConfig{Root: srv.URL}, Timeout: 5 * time.Second, Now: func() time.Time { return now }}, "anthropic")
	return r, &now
}

func TestLlamaClassifierRoutes(t *testing.T) {
	srv := llamacpptest.New(true, []llamacpptest.Model{{ID: "cold", Status: "unloaded"}, {ID: "qwen3-4b", Status: "loaded"}})
	defer srv.Close()
	srv.Classify = llamacpptest.Classify{Answer: LlamaAnswers(bugFix)}
	r, _ := llamaRouter(t, srv, "llama.cpp")
	req := "The queue worker drops jobs when two services retry at once; fix it"
	a := r.Assess(t.Context(), req)
	if a.Source != SourceLaya || a.Task.Type != "bug_fix" || a.Task.Scope != "multi_module" || a.Recommendation.Tier != TierStrong ||
		a.Agent != "backend-engineer" || a.Validation != "integration_test" || !a.Tools["requires_write"] || a.Tools["requires_web"] ||
		a.LibraryCategory != "engineering" || !near(a.Task.Complexity, 0.75) {
		t.Fatalf("assessment %+v", a)
	}
	st, err := r.Plan(req, a)
	if err != nil {
		t.Fatal(err)
	}
	if st.Model != "anthropic/claude-opus-5-5" || st.Tier != TierStrong {
		t.Errorf("routed to %s (%s)", st.Model, st.Tier)
	}
	// Every request names the first loaded model; 19 questions, one
	// /completion each.
	if n := srv.CountCalls("/completion"); n != 19 {
		t.Errorf("%d completions", n)
	}
	for _, c := range srv.Calls() {
		if c.Model != "qwen3-4b" {
			t.Fatalf("%s asked %q", c.Path, c.Model)
		}
	}
	if s := r.ClassifierStatus(); !strings.Contains(s, "llama.cpp: qwen3-4b at "+srv.URL) {
		t.Errorf("status %q", s)
	}
	// The same request again: label tokens and prompts are cached, so it
	// costs one /completion per question and nothing else.
	srv.ResetCalls()
	r.Assess(t.Context(), req)
	if calls := srv.Calls(); len(calls) != 19 || srv.CountCalls("/completion") != 19 {
		t.Errorf("repeated request: %d calls, %d completions", len(calls), srv.CountCalls("/completion"))
	}
	if st := r.LastClassifierStats(); st.Completion != 19 || st.Tokenize != 0 || st.ApplyTemplate != 0 {
		t.Errorf("stats %+v", st)
	}
	if ns := r.Notices(); len(ns) != 0 {
		t.Errorf("notices %q", ns)
	}
}

// Every failure falls back to the keyword rules with one notice saying
// why; llama.cpp is not asked again for a minute.
func TestLlamaClassifierFallsBack(t *testing.T) {
	for _, tc := range []struct {
		name   string
		models []llamacpptest.Model
		cfg    llamacpptest.Classify
		down   bool
		why    string
	}{
		{name: "server down", models: []llamacpptest.Model{{ID: "m", Status: "loaded"}}, down: true, why: "is not reachable"},
		{name: "no model loaded", models: []llamacpptest.Model{{ID: "m", Status: "unloaded"}}, why: "no model is loaded on the llama.cpp server"},
		{name: "no chat template", models: []llamacpptest.Model{{ID: "m", Status: "loaded"}}, cfg: llamacpptest.Classify{NoTemplate: true}, why: "no chat template"},
		{name: "label split into tokens", models: []llamacpptest.Model{{ID: "m", Status: "loaded"}}, cfg: llamacpptest.Classify{Split: map[string]bool{"C": true}}, why: `label "C" is not a single token for m`},
		{name: "log-probs miss every label", models: []llamacpptest.Model{{ID: "m", Status: "loaded"}}, cfg: llamacpptest.Classify{Filler: 40000}, why: "did not rank labels A, B, C"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llamacpptest.New(true, tc.models)
			defer srv.Close()
			srv.Classify = tc.cfg
			srv.SetDown(tc.down)
			r, now := llamaRouter(t, srv, "llama.cpp")
			a := r.Assess(t.Context(), "Fix the typo in README.md")
			if a.Source != SourceHeuristic {
				t.Fatalf("source %s", a.Source)
			}
			var mine []string
			for _, n := range r.Notices() {
				if strings.Contains(n, "llama.cpp classifier failed") {
					mine = append(mine, n)
				}
			}
			if len(mine) != 1 || !strings.Contains(mine[0], tc.why) {
				t.Fatalf("notices %q, want one saying %q", mine, tc.why)
			}
			if s := r.ClassifierStatus(); !strings.HasPrefix(s, "keyword rules: the llama.cpp") || !strings.Contains(s, "tried again in 60s") {
				t.Errorf("status %q", s)
			}
			calls := len(srv.Calls())
			if a := r.Assess(t.Context(), "Fix the typo in README.md"); a.Source != SourceHeuristic || len(srv.Calls()) != calls || len(r.Notices()) != 0 {
				t.Errorf("second request within the minute asked llama.cpp or repeated the notice")
			}
			// A minute later llama.cpp is asked again.
			*now = now.Add(UnavailableFor + time.Second)
			srv.SetDown(false)
			srv.Classify = llamacpptest.Classify{Answer: LlamaAnswers(bugFix)}
			if tc.name != "no model loaded" {
				if a := r.Assess(t.Context(), "Fix the typo in README.md"); a.Source != SourceLaya {
					t.Errorf("after a minute: source %s (%s)", a.Source, r.LastError())
				}
			}
		})
	}
}

func TestClassifierChoice(t *testing.T) {
	srv := llamacpptest.New(true, []llamacpptest.Model{{ID: "a", Status: "loaded"}, {ID: "b", Status: "loaded"}})
	defer srv.Close()
	srv.Classify = llamacpptest.Classify{Answer: LlamaAnswers(bugFix)}
	r, _ := llamaRouter(t, srv, "llama.cpp/b")
	if a := r.Assess(t.Context(), "Fix the worker"); a.Source != SourceLaya {
		t.Fatalf("source %s: %s", a.Source, r.LastError())
	}
	if c := srv.Calls(); c[0].Model != "b" || srv.CountCalls("/models") != 0 {
		t.Errorf("named model: first call %s %q", c[0].Path, c[0].Model)
	}
	for _, tc := range []struct{ setting, status string }{
		{"rules", `keyword rules (laya.classifier is "rules")`},
		{"llama", `keyword rules (laya.classifier "llama": expected "laya", "llama.cpp", "llama.cpp/<model>" or "rules")`},
		{"", "System One at http://127.0.0.1:1/v1"},
	} {
		r, _ := llamaRouter(t, srv, tc.setting)
		if s := r.ClassifierStatus(); s != tc.status {
			t.Errorf("%q: status %q, want %q", tc.setting, s, tc.status)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-3 && b-a < 1e-3 }

// A misspelt laya.models ref is reported once, not skipped silently.
func TestUnknownRefsReportedOnce(t *testing.T) {
	r := newTestRouter(t, Config{Registry: map[string][]string{"fast": {"anthropic/claude-haiku-4-5", "anthropic/claude-haiku-4.5"}}}, "anthropic")
	for i := 0; i < 2; i++ {
		if _, err := r.Plan("Fix the typo", RuleAssessment("Fix the typo")); err != nil {
			t.Fatal(err)
		}
	}
	ns := r.Notices()
	if len(ns) != 1 || !strings.Contains(ns[0], "laya/auto skips anthropic/claude-haiku-4.5: not in the model catalog") {
		t.Errorf("notices %q", ns)
	}
	if u := r.UnknownRefs(); len(u) != 1 || u[0] != "anthropic/claude-haiku-4.5" {
		t.Errorf("unknown %v", u)
	}
}

// LAYA_LIBRARY_MIN_CONFIDENCE raises the bar for library_category: an
// answer below it abstains.
func TestLibraryMinConfidence(t *testing.T) {
	srv := llamacpptest.New(true, []llamacpptest.Model{{ID: "m", Status: "loaded"}})
	defer srv.Close()
	// engineering gets e^-0.05 against -12 for the nine others: about 0.9999.
	srv.Classify = llamacpptest.Classify{Answer: LlamaAnswers(bugFix)}
	for _, tc := range []struct {
		min  float64
		want string
	}{{0, "engineering"}, {0.9, "engineering"}, {0.99999, ""}} {
		r := newTestRouter(t, Config{Classifier: "llama.cpp", Llama: LlamaConfig{Root: srv.URL}, LibraryMinConfidence: tc.min}, "anthropic")
		if a := r.Assess(t.Context(), "Fix the worker"); a.LibraryCategory != tc.want || a.Source != SourceLaya {
			t.Errorf("min %v: library %q (confidence %v), want %q", tc.min, a.LibraryCategory, a.LibraryConfidence, tc.want)
		}
	}
}
