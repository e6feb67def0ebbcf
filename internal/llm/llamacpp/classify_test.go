package llamacpp_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm/llamacpp"
	"github.com/relay-agent/relay/internal/llm/llamacpp/llamacpptest"
)

var questions = []llamacpp.Question{
	{ID: "kind", Type: llamacpp.QChoice, Instructions: "What kind of task is it?",
		Options: []string{"question", "bug_fix", "feature", "docs"}, Descriptions: []string{"a question", "fix a bug", "", "write docs"}},
	{ID: "size", Type: llamacpp.QScore, Instructions: "How big is it?", Descriptions: []string{"tiny", "small", "large"}},
	{ID: "writes", Type: llamacpp.QBool, Instructions: "Does it edit files?", Descriptions: []string{"yes, it edits", "no"}},
}

var state = map[string]string{"request": "Fix the <nil> crash in parser.go & add a test"}

func newServer(t *testing.T, cfg llamacpptest.Classify) (*llamacpptest.Server, *llamacpp.Classifier) {
	t.Helper()
	srv := llamacpptest.New(true, []llamacpptest.Model{{ID: "qwen3-0.6b", Status: "loaded"}})
	srv.Classify = cfg
	t.Cleanup(srv.Close)
	return srv, &llamacpp.Classifier{Root: srv.URL, Model: "qwen3-0.6b"}
}

// answers: kind -> B (bug_fix) clearly, size spread over levels, writes
// -> Yes with P = e^-0.2/(e^-0.2+e^-1.8).
func answers(q string) map[string]float64 {
	switch {
	case strings.HasPrefix(q, "What kind"):
		return map[string]float64{"A": -3, "B": -0.1, "C": -2.5, "D": -4}
	case strings.HasPrefix(q, "How big"):
		return map[string]float64{"0": math.Log(0.2), "1": math.Log(0.5), "2": math.Log(0.3)}
	case strings.HasPrefix(q, "Does it edit"):
		return map[string]float64{"Yes": -0.2, "No": -1.8}
	}
	return nil
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestClassifyAnswers(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  llamacpptest.Classify
	}{
		{"leading newline", llamacpptest.Classify{Answer: answers}},
		// SentencePiece-like: "\nB" is one token unlike "B"; the label
		// alone is tokenized instead.
		{"newline merges", llamacpptest.Classify{Answer: answers, NewlineMerges: true}},
		{"template opens a reasoning block", llamacpptest.Classify{Answer: answers, OpenThink: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, c := newServer(t, tc.cfg)
			var progress []int
			got, st, err := c.Classify(context.Background(), state, questions, func(done, total int) {
				if total != 3 {
					t.Errorf("progress total %d", total)
				}
				progress = append(progress, done)
			})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(progress, []int{1, 2, 3}) {
				t.Errorf("progress %v", progress)
			}
			kind := got["kind"]
			e := []float64{math.Exp(-3), math.Exp(-0.1), math.Exp(-2.5), math.Exp(-4)}
			sum := e[0] + e[1] + e[2] + e[3]
			if kind.Type != llamacpp.QChoice || kind.Choice != "bug_fix" || !near(kind.Probabilities["bug_fix"], e[1]/sum) ||
				!near(kind.Probabilities["docs"], e[3]/sum) || !near(kind.Confidence, (4*e[1]/sum-1)/3) {
				t.Errorf("kind = %+v", kind)
			}
			if size := got["size"]; size.Type != llamacpp.QScore || !near(size.Score, 0*0.2+1*0.5+2*0.3) || !near(size.Confidence, (3*0.5-1)/2) {
				t.Errorf("size = %+v", size)
			}
			if w := got["writes"]; w.Type != llamacpp.QBool || !near(w.Probability, math.Exp(-0.2)/(math.Exp(-0.2)+math.Exp(-1.8))) {
				t.Errorf("writes = %+v", w)
			}
			// 4+3+2 labels: two /tokenize calls each with the newline
			// form, a third when it merges.
			per := 2
			if tc.cfg.NewlineMerges {
				per = 3
			}
			if st.Tokenize != 9*per || st.ApplyTemplate != 3 || st.Completion != 3 {
				t.Errorf("stats %+v", st)
			}
			for _, call := range srv.Calls() {
				if call.Model != "qwen3-0.6b" {
					t.Errorf("%s without the model: %v", call.Path, call.Body)
				}
				if call.Path == "/tokenize" && (call.Body["add_special"] != false || call.Body["parse_special"] != false) {
					t.Errorf("tokenize body %v", call.Body)
				}
				if call.Path == "/completion" && (call.NProbs != 256 || call.Body["cache_prompt"] != true || call.Body["temperature"] != float64(0)) {
					t.Errorf("completion body %v", call.Body)
				}
			}
		})
	}
}

// A repeated question costs one /completion: label tokens and the
// rendered prompt come from the cache.
func TestClassifyCachesLabelsAndPrompts(t *testing.T) {
	srv, c := newServer(t, llamacpptest.Classify{Answer: answers})
	if _, _, err := c.Classify(context.Background(), state, questions, nil); err != nil {
		t.Fatal(err)
	}
	srv.ResetCalls()
	_, st, err := c.Classify(context.Background(), state, questions[:1], nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = st
	// questions[:1] renders another overview: one template call; its
	// labels are cached.
	if n := srv.CountCalls("/tokenize"); n != 0 {
		t.Errorf("%d /tokenize calls for cached labels", n)
	}
	srv.ResetCalls()
	_, st, err = c.Classify(context.Background(), state, questions[:1], nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls := srv.Calls(); len(calls) != 1 || calls[0].Path != "/completion" || st.Completion != 1 || st.Tokenize+st.ApplyTemplate != 0 {
		t.Errorf("repeated question: calls %v, stats %+v", calls, st)
	}
}

// A label outside the top n_probs is asked again deeper: 256, then 4096,
// then 32768; beyond that the question fails naming the labels.
func TestClassifyDepthEscalation(t *testing.T) {
	for _, tc := range []struct {
		filler int
		depths []int
		err    string
	}{
		{filler: 100, depths: []int{256}},
		{filler: 300, depths: []int{256, 4096}},
		{filler: 5000, depths: []int{256, 4096, 32768}},
		{filler: 40000, depths: []int{256, 4096, 32768}, err: "did not rank labels A, B, C, D for kind within the top 32768 tokens"},
	} {
		srv, c := newServer(t, llamacpptest.Classify{Answer: answers, Filler: tc.filler})
		_, _, err := c.Classify(context.Background(), state, questions[:1], nil)
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("filler %d: err %v, want %q", tc.filler, err, tc.err)
		}
		var depths []int
		for _, call := range srv.Calls() {
			if call.Path == "/completion" {
				depths = append(depths, call.NProbs)
			}
		}
		if !reflect.DeepEqual(depths, tc.depths) {
			t.Errorf("filler %d: depths %v, want %v", tc.filler, depths, tc.depths)
		}
	}
	// 62 labels: the first depth is 16 per label.
	many := llamacpp.Question{ID: "many", Type: llamacpp.QChoice, Instructions: "Which?"}
	for i := 0; i < 62; i++ {
		many.Options = append(many.Options, "o"+string(rune('a'+i%26))+string(rune('0'+i/26)))
	}
	srv, c := newServer(t, llamacpptest.Classify{})
	if _, _, err := c.Classify(context.Background(), state, []llamacpp.Question{many}, nil); err != nil {
		t.Fatal(err)
	}
	if calls := srv.Calls(); calls[len(calls)-1].NProbs != 62*16 {
		t.Errorf("62 labels: n_probs %d", calls[len(calls)-1].NProbs)
	}
}

func TestClassifyFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  llamacpptest.Classify
		qs   []llamacpp.Question
		err  string
	}{
		{"label split into two tokens", llamacpptest.Classify{Split: map[string]bool{"Yes": true}}, questions, `label "Yes" is not a single token for qwen3-0.6b`},
		{"no chat template", llamacpptest.Classify{NoTemplate: true}, questions, "this model has no chat template"},
		{"every label underflows", llamacpptest.Classify{Answer: func(string) map[string]float64 {
			return map[string]float64{"Yes": -1e38, "No": -1e38}
		}}, questions[2:], "gave no probability to any answer label for writes"},
		{"one option", llamacpptest.Classify{}, []llamacpp.Question{{ID: "one", Type: llamacpp.QChoice, Options: []string{"x"}}}, "a choice needs 2 to 62 options, got 1"},
		{"eleven levels", llamacpptest.Classify{}, []llamacpp.Question{{ID: "big", Type: llamacpp.QScore, Descriptions: make([]string, 11)}}, "a score needs 2 to 10 levels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := newServer(t, tc.cfg)
			_, _, err := c.Classify(context.Background(), state, tc.qs, nil)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err %v, want %q", err, tc.err)
			}
		})
	}
	// A server that is down fails fast with DownError.
	srv, c := newServer(t, llamacpptest.Classify{})
	srv.SetDown(true)
	_, _, err := c.Classify(context.Background(), state, questions, nil)
	var down *llamacpp.DownError
	if !errors.As(err, &down) {
		t.Errorf("server down: %v", err)
	}
	// An unloaded model on a router: the router's refusal is the error.
	srv2 := llamacpptest.New(true, []llamacpptest.Model{{ID: "cold", Status: "unloaded"}})
	defer srv2.Close()
	c2 := &llamacpp.Classifier{Root: srv2.URL, Model: "cold"}
	if _, _, err := c2.Classify(context.Background(), state, questions, nil); err == nil || !strings.Contains(err.Error(), "model is not loaded") {
		t.Errorf("unloaded model: %v", err)
	}
}

// The user message: the state, every question without labels, the state
// again, then the question with labelled options and the instruction.
func TestRender(t *testing.T) {
	st, err := llamacpp.RenderState(state)
	if err != nil {
		t.Fatal(err)
	}
	if want := "State:\n{\n \"request\": \"Fix the <nil> crash in parser.go & add a test\"\n}"; st != want {
		t.Errorf("state %q", st)
	}
	r, err := llamacpp.Render(st, questions, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := st + "\n\nTask: answer each of the following questions about the state." +
		"\n\nQuestion: What kind of task is it?\n\nOptions:\n- question: a question\n- bug_fix: fix a bug\n- feature\n- docs: write docs" +
		"\n\nQuestion: How big is it?\n\nLevels:\n0. tiny\n1. small\n2. large" +
		"\n\nQuestion: Does it edit files?\n\nYes means: yes, it edits\nNo means: no" +
		"\n\n" + st +
		"\n\nQuestion: What kind of task is it?\n\nOptions:\nA. question: a question\nB. bug_fix: fix a bug\nC. feature\nD. docs: write docs\n\nAnswer with one letter."
	if r.Content != want {
		t.Errorf("content:\n%s\n--- want:\n%s", r.Content, want)
	}
	if !reflect.DeepEqual(r.Labels, []string{"A", "B", "C", "D"}) || !reflect.DeepEqual(r.Keys, questions[0].Options) {
		t.Errorf("labels %v keys %v", r.Labels, r.Keys)
	}
	b, _ := llamacpp.Render(st, questions, 2)
	if !strings.HasSuffix(b.Content, "No means: no\n\nAnswer Yes or No.") || !reflect.DeepEqual(b.Keys, []string{"true", "false"}) {
		t.Errorf("bool: %q %v", b.Content[len(b.Content)-40:], b.Keys)
	}
}

func TestSoftmaxTemperature(t *testing.T) {
	p := llamacpp.Softmax([]float64{-0.1, -2.3}, 1)
	q := llamacpp.Softmax([]float64{-0.1, -2.3}, 2)
	if !near(p[0]+p[1], 1) || !(q[0] < p[0]) || !(q[0] > 0.5) {
		t.Errorf("softmax %v, at temperature 2 %v", p, q)
	}
	if c := llamacpp.PeakConfidence([]float64{0.25, 0.25, 0.25, 0.25}); c != 0 {
		t.Errorf("uniform confidence %v", c)
	}
	if c := llamacpp.PeakConfidence([]float64{1, 0}); c != 1 {
		t.Errorf("certain confidence %v", c)
	}
}
