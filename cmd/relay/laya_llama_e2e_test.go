package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/laya"
	"github.com/relay-agent/relay/internal/llm/llamacpp/llamacpptest"
	"github.com/relay-agent/relay/internal/llm/llmtest"
)

// modelAnswers scripts the fake llama.cpp model's answers to Laya's
// questions: the wanted value's label ranks first.
func modelAnswers(want map[string]any) func(string) map[string]float64 {
	byText := map[string]laya.Question{}
	for _, q := range laya.ClassifierQuestions() {
		byText[q.Instructions] = q
	}
	return func(text string) map[string]float64 {
		q, ok := byText[text]
		if !ok {
			return nil
		}
		switch v := want[q.ID].(type) {
		case string:
			for i, o := range q.Options {
				if o == v {
					return map[string]float64{string(rune('A' + i)): -0.05}
				}
			}
		case int:
			return map[string]float64{fmt.Sprint(v): -0.05}
		case bool:
			if v {
				return map[string]float64{"Yes": -0.05}
			}
			return map[string]float64{"No": -0.05}
		}
		return nil
	}
}

// With only a llama.cpp server (no Docker, no System One), laya/auto
// classifies the request with the local model and routes on its answers:
// the keyword rules would send this Portuguese text fix to the fast tier,
// the model says strong. With the server down the rules route it.
func TestLayaRoutesWithLlamaCppClassifier(t *testing.T) {
	srv := llamacpptest.New(true, []llamacpptest.Model{{ID: "qwen3-4b", Status: "loaded"}})
	defer srv.Close()
	srv.Classify = llamacpptest.Classify{Answer: modelAnswers(map[string]any{
		"task_type": "bug_fix", "complexity": 3, "capability_tier": "strong", "reasoning_effort": "high",
		"agent": "frontend-engineer", "validation_level": "unit_test", "requires_write": true, "library_category": "web_frontend",
	})}
	request := "Corrija o texto deste botão"
	e := newEnv(t, &llmtest.Script{Repeat: true, Responses: []llmtest.Response{{Text: "done"}}},
		map[string]any{"laya": map[string]any{"classifier": "llama.cpp", "telemetry": false}})
	run := func(url string) string {
		t.Helper()
		c := e.cmd(nil, "-p", "--model", "laya/auto", request)
		c.Env = append(c.Env, "LLAMA_BASE_URL="+url, "LLAMA_API_KEY=")
		out, err := c.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "done") {
			t.Fatalf("relay -p: %v\n%s", err, out)
		}
		reqs := e.fake.Requests()
		last := reqs[len(reqs)-1]
		m, _ := last.Body["model"].(string)
		return m
	}
	if got := run(srv.URL); got != "claude-opus-5-5" {
		t.Errorf("classified by llama.cpp: routed to %s, want the strong tier's claude-opus-5-5", got)
	}
	if n := srv.CountCalls("/completion"); n != len(laya.ClassifierQuestions()) {
		t.Errorf("%d /completion calls, want one per question (%d)", n, len(laya.ClassifierQuestions()))
	}
	for _, c := range srv.Calls() {
		if c.Model != "qwen3-4b" {
			t.Fatalf("%s asked model %q", c.Path, c.Model)
		}
	}
	data, _ := os.ReadFile(e.sessionFiles()[0])
	if !strings.Contains(string(data), `"libraryCategory":"web_frontend"`) || !strings.Contains(string(data), "Task: bug fix") {
		t.Errorf("the session lacks the model's assessment")
	}

	srv.SetDown(true)
	if got := run(srv.URL); got != "claude-haiku-4-5" {
		t.Errorf("server down: routed to %s, want the rules' fast claude-haiku-4-5", got)
	}

	// /laya status names the classifier and why.
	c := e.cmd(nil, "-p", "/laya status")
	c.Env = append(c.Env, "LLAMA_BASE_URL="+srv.URL)
	srv.SetDown(false)
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `Classifier: llama.cpp: the first loaded model at `+srv.URL+` (laya.classifier "llama.cpp")`) {
		t.Errorf("/laya status: %v\n%s", err, out)
	}
}
