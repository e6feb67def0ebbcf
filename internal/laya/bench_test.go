package laya

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func BenchmarkRuleAssessment(b *testing.B) {
	for i := 0; i < b.N; i++ {
		RuleAssessment("Corrija o texto do botão Salvar na tela de pedidos, está cortado")
	}
}

func BenchmarkPlan(b *testing.B) {
	r := New(Config{MinConfidence: 0.5}, testModels("anthropic", "google"))
	a := RuleAssessment("Fix the race condition in workers")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Plan("Fix the race condition in workers", a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemoryRoute matches a request against 200 learned tasks over the
// seeded dataset (the index is built once; only the query is vectorized).
func BenchmarkMemoryRoute(b *testing.B) {
	home := b.TempDir()
	var ex []Exercise
	for _, row := range SeedRows(200) {
		ex = append(ex, Exercise{Request: row.State.Request + " " + row.ID, Labels: row.Expected, Lesson: "x"})
	}
	if _, err := MergeExercises(DatasetPath(home), ex, time.Unix(0, 0)); err != nil {
		b.Fatal(err)
	}
	m := NewMemory(DatasetPath(home))
	m.Size()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Route("Corrija o texto do botão Salvar na tela de pedidos, está cortado")
	}
}

// inProcess answers llama-server's classification endpoints from canned
// bytes without a network or a model, so a benchmark measures relay's
// own routing overhead: rendering, JSON, the softmax, policy and
// selection. The completion body is llama-server's shape with 256 top
// log-probs that hold every answer label.
type inProcess struct {
	completion []byte
	template   []byte // a rendered prompt of the usual size (5 KB)
	calls      int
	server     time.Duration // time spent answering, excluded from the figure
}

func newInProcess() *inProcess {
	var top []map[string]any
	labels := []string{"Yes", "No"}
	for _, r := range "ABCDEFGHIJKLMNOPQRST0123456789" {
		labels = append(labels, string(r))
	}
	for i, l := range labels {
		top = append(top, map[string]any{"id": labelID(l), "token": l, "bytes": []int{int(l[0])}, "logprob": -0.05 - float64(i)*0.3})
	}
	for len(top) < 256 {
		top = append(top, map[string]any{"id": 300000 + len(top), "token": " x", "bytes": []int{32, 120}, "logprob": -20.0})
	}
	body, _ := json.Marshal(map[string]any{"content": "Yes", "stop": true, "tokens_predicted": 1, "tokens_evaluated": 900,
		"completion_probabilities": []any{map[string]any{"id": labelID("Yes"), "token": "Yes", "logprob": -0.05, "top_logprobs": top}}})
	tmpl, _ := json.Marshal(map[string]any{"prompt": "<|im_start|>system\n" + strings.Repeat("State and questions. ", 250) + "<|im_end|>\n<|im_start|>assistant\n"})
	return &inProcess{completion: body, template: tmpl}
}

func labelID(l string) int {
	switch l {
	case "Yes":
		return 9454
	case "No":
		return 2822
	}
	return 1000 + int(l[0])
}

func (p *inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	defer func() { p.server += time.Since(start) }()
	p.calls++
	if r.URL.Path == "/completion" || r.URL.Path == "/apply-template" {
		// Canned answers: no decoding, so nearly all CPU time is relay's.
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/apply-template" {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(p.template)), Request: r}, nil
		}
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(p.completion)), Request: r}, nil
	}
	var body map[string]any
	json.NewDecoder(r.Body).Decode(&body)
	var out []byte
	switch r.URL.Path {
	case "/tokenize":
		c, _ := body["content"].(string)
		toks := []int{198}
		if c != "\n" {
			toks = append(toks, labelID(strings.TrimPrefix(c, "\n")))
		}
		out, _ = json.Marshal(map[string]any{"tokens": toks})
	case "/completion":
		out = p.completion
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(out)), Request: r}, nil
}

// BenchmarkLlamaRouting is one routed request with the llama.cpp
// classifier (19 questions) minus the server's own time: a new request
// each iteration (prompts rendered by /apply-template again, label tokens
// cached), and the same request again (one /completion per question).
func BenchmarkLlamaRouting(b *testing.B) {
	for _, repeat := range []bool{false, true} {
		name := "new-request"
		if repeat {
			name = "repeated-request"
		}
		b.Run(name, func(b *testing.B) {
			p := newInProcess()
			r := New(Config{MinConfidence: 0.5, Classifier: "llama.cpp/bench", Timeout: time.Minute,
				Llama: LlamaConfig{Root: "http://llama.invalid", HTTP: &http.Client{Transport: p}}}, testModels("anthropic"))
			req := "Fix the race condition in the queue workers that drops jobs"
			if a := r.Assess(context.Background(), req); a.Source != SourceLaya {
				b.Fatalf("source %s: %s", a.Source, r.LastError())
			}
			p.server = 0
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				q := req
				if !repeat {
					q = fmt.Sprintf("%s (%d)", req, i)
				}
				a := r.Assess(context.Background(), q)
				if _, err := r.Plan(q, a); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/request")
			b.ReportMetric(float64(p.calls)/float64(b.N+1), "calls/op")
			b.ReportMetric(float64((b.Elapsed()-p.server).Microseconds())/1000/float64(b.N), "ms/request-excl-server")
		})
	}
}
