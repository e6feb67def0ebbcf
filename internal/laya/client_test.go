package laya

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// goodAnswers answers every question validly.
func goodAnswers(mutate func(map[string]any)) string {
	ans := map[string]any{}
	for _, q := range Questions() {
		switch q.Type {
		case QChoice:
			ans[q.ID] = map[string]any{"type": "choice", "choice": q.Options[0], "probabilities": map[string]float64{q.Options[0]: 0.8}, "confidence": 0.3}
		case QScore:
			ans[q.ID] = map[string]any{"type": "score", "score": 1.4, "confidence": 0.6}
		default:
			ans[q.ID] = map[string]any{"type": "noul", "noul": 0.7}
		}
	}
	if mutate != nil {
		mutate(ans)
	}
	b, _ := json.Marshal(map[string]any{"answers": ans, "usage": map[string]int{"input_tokens": 10, "output_tokens": 2}})
	return string(b)
}

type server struct {
	mu      sync.Mutex
	health  string
	answers string
	status  int
	delay   time.Duration
	bodies  []map[string]json.RawMessage
	paths   []string
}

func (s *server) start(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		switch r.URL.Path {
		case "/health":
			io.WriteString(w, s.health)
		case "/v1/systemone":
			var body map[string]json.RawMessage
			json.NewDecoder(r.Body).Decode(&body)
			s.mu.Lock()
			s.bodies = append(s.bodies, body)
			s.mu.Unlock()
			if s.delay > 0 {
				select {
				case <-time.After(s.delay):
				case <-r.Context().Done():
					return
				}
			}
			if s.status != 0 {
				w.WriteHeader(s.status)
			}
			io.WriteString(w, s.answers)
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestClientGoodServer(t *testing.T) {
	s := &server{health: `{"ok":true,"model":"/opt/laya/model"}`, answers: goodAnswers(nil)}
	srv := s.start(t)
	c := &Client{BaseURL: srv.URL + "/v1/", Timeout: time.Second}
	h, err := c.Health(context.Background())
	if err != nil || !h.OK {
		t.Fatalf("health %v %v", h, err)
	}
	res, err := c.Classify(context.Background(), "Fix the typo")
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage == nil || res.Usage.InputTokens != 10 || len(res.Answers) != 18 {
		t.Errorf("result %+v", res)
	}
	if res.Answers["requires_git"].Type != QBool || res.Answers["requires_git"].Probability != 0.7 {
		t.Errorf("bool answer %+v", res.Answers["requires_git"])
	}
	body := s.bodies[0]
	if string(body["model"]) != `"execution-intelligence"` || string(body["state"]) != `{"request":"Fix the typo"}` {
		t.Errorf("body model/state %s %s", body["model"], body["state"])
	}
	var qs map[string]map[string]json.RawMessage
	json.Unmarshal(body["questions"], &qs)
	if len(qs) != 18 || string(qs["requires_git"]["type"]) != `"noul"` || string(qs["complexity"]["type"]) != `"score"` ||
		!strings.HasPrefix(string(qs["task_type"]["criteria"]), `{"question":"a question to answer`) {
		t.Errorf("questions %s", body["questions"])
	}
	if s.paths[0] != "GET /health" || s.paths[1] != "POST /v1/systemone" {
		t.Errorf("paths %v", s.paths)
	}
	a, err := FromAnswers(res.Answers, SourceLaya)
	if err != nil {
		t.Fatal(err)
	}
	// confidence = min over the three decisions, the chosen probability.
	if a.Confidence != 0.8 || a.Task.Complexity != 0.35 || !a.Tools["requires_git"] {
		t.Errorf("assessment %+v", a)
	}
}

func TestClientAnswerConfidenceReplacesConfidence(t *testing.T) {
	s := &server{health: `{"ok":true}`, answers: goodAnswers(func(m map[string]any) {
		m["capability_tier"].(map[string]any)["answer_confidence"] = 0.42
	})}
	srv := s.start(t)
	res, err := (&Client{BaseURL: srv.URL + "/v1"}).Classify(context.Background(), "x")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := FromAnswers(res.Answers, SourceLaya)
	if a.Confidence != 0.42 {
		t.Errorf("confidence %v", a.Confidence)
	}
}

func TestClientMalformed(t *testing.T) {
	cases := map[string]string{
		"not json":        `{"answers":`,
		"missing answer":  goodAnswers(func(m map[string]any) { delete(m, "risk") }),
		"wrong type":      goodAnswers(func(m map[string]any) { m["requires_web"] = map[string]any{"type": "choice", "choice": "x"} }),
		"no score":        goodAnswers(func(m map[string]any) { m["complexity"] = map[string]any{"type": "score", "confidence": 1} }),
		"string noul":     goodAnswers(func(m map[string]any) { m["requires_web"] = map[string]any{"type": "noul", "noul": "yes"} }),
		"no confidence":   goodAnswers(func(m map[string]any) { delete(m["agent"].(map[string]any), "confidence") }),
		"bad probability": goodAnswers(func(m map[string]any) { m["agent"].(map[string]any)["probabilities"] = map[string]any{"x": "high"} }),
	}
	for name, body := range cases {
		s := &server{health: `{"ok":true}`, answers: body}
		srv := s.start(t)
		_, err := (&Client{BaseURL: srv.URL + "/v1"}).Classify(context.Background(), "x")
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	s := &server{answers: goodAnswers(func(m map[string]any) { m["risk"] = map[string]any{"type": "choice"} })}
	srv := s.start(t)
	_, err := (&Client{BaseURL: srv.URL + "/v1"}).Classify(context.Background(), "x")
	if err == nil || err.Error() != "System One API did not return a score answer for risk" {
		t.Errorf("message %v", err)
	}
	// An option that is not a label fails the assessment.
	s2 := &server{answers: goodAnswers(func(m map[string]any) { m["capability_tier"].(map[string]any)["choice"] = "huge" })}
	srv2 := s2.start(t)
	res, err := (&Client{BaseURL: srv2.URL + "/v1"}).Classify(context.Background(), "x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FromAnswers(res.Answers, SourceLaya); err == nil {
		t.Error("invalid tier accepted")
	}
}

func TestClientStatusAndSlow(t *testing.T) {
	s := &server{status: 503, answers: `{}`}
	srv := s.start(t)
	_, err := (&Client{BaseURL: srv.URL + "/v1"}).Classify(context.Background(), "x")
	if err == nil || err.Error() != "System One API returned 503" {
		t.Errorf("status error %v", err)
	}
	slow := &server{delay: 2 * time.Second, answers: goodAnswers(nil)}
	srv2 := slow.start(t)
	_, err = (&Client{BaseURL: srv2.URL + "/v1", Timeout: 50 * time.Millisecond}).Classify(context.Background(), "x")
	if err == nil || err.Error() != "Request timed out after 50ms" {
		t.Errorf("timeout error %v", err)
	}
	srv2.Close()
	// On a loaded machine the 50 ms may end before the server saw the
	// request at all: what matters is that there is no second one.
	if len(slow.bodies) > 1 {
		t.Errorf("%d calls: the client must not retry", len(slow.bodies))
	}
}

func TestClientRefusesForeignServer(t *testing.T) {
	s := &server{health: `{"ok":true,"model":"trainer","decisions":["intent","urgency"]}`}
	srv := s.start(t)
	_, err := (&Client{BaseURL: srv.URL + "/v1"}).Health(context.Background())
	var fe *ForeignServerError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "another Laya server (trainer) uses 127.0.0.1:") || !strings.Contains(err.Error(), "set laya.baseUrl") {
		t.Errorf("err %v", err)
	}
	// A server listing every relay question is ours to use.
	ids, _ := json.Marshal(QuestionIDs())
	s2 := &server{health: `{"ok":true,"decisions":` + string(ids) + `}`}
	srv2 := s2.start(t)
	if _, err := (&Client{BaseURL: srv2.URL + "/v1"}).Health(context.Background()); err != nil {
		t.Errorf("own decisions refused: %v", err)
	}
	bad := &server{health: `{"ok":false}`}
	srv3 := bad.start(t)
	if _, err := (&Client{BaseURL: srv3.URL + "/v1"}).Health(context.Background()); err == nil {
		t.Error("ok:false accepted")
	}
}

func TestRouterFallsBackAndRetriesAfterAMinute(t *testing.T) {
	now := time.Unix(0, 0)
	s := &server{health: `{"ok":true}`, status: 500, answers: `{}`}
	srv := s.start(t)
	r := newTestRouter(t, Config{BaseURL: srv.URL + "/v1", Now: func() time.Time { return now }}, "anthropic")
	if a := r.Assess(context.Background(), "Fix the race condition in workers"); a.Source != SourceHeuristic || r.LastError() == "" {
		t.Fatalf("source %s err %q", a.Source, r.LastError())
	}
	s.status, s.answers = 0, goodAnswers(nil)
	if a := r.Assess(context.Background(), "x"); a.Source != SourceHeuristic || len(s.bodies) != 1 {
		t.Errorf("Laya retried within a minute (%d calls)", len(s.bodies))
	}
	now = now.Add(UnavailableFor)
	if a := r.Assess(context.Background(), "x"); a.Source != SourceLaya || r.LastError() != "" {
		t.Errorf("source %s after a minute", a.Source)
	}
	// A foreign server is reported once and not used.
	f := &server{health: `{"ok":true,"model":"other","decisions":["intent"]}`}
	fsrv := f.start(t)
	r2 := newTestRouter(t, Config{BaseURL: fsrv.URL + "/v1"}, "anthropic")
	r2.Assess(context.Background(), "x")
	if n := r2.Notices(); len(n) != 1 || !strings.Contains(n[0], "another Laya server") || len(f.bodies) != 0 {
		t.Errorf("notices %v, calls %d", n, len(f.bodies))
	}
}

func TestRouterUsesRulesWhileInstalling(t *testing.T) {
	s := &server{health: `{"ok":true}`, answers: goodAnswers(nil)}
	srv := s.start(t)
	r := newTestRouter(t, Config{BaseURL: srv.URL + "/v1"}, "anthropic")
	busy := true
	r.SetServerBusy(func() (bool, string) { return busy, "" })
	if a := r.Assess(context.Background(), "x"); a.Source != SourceHeuristic || len(s.paths) != 0 {
		t.Errorf("classifier called while installing: %v", s.paths)
	}
	busy = false
	if a := r.Assess(context.Background(), "x"); a.Source != SourceLaya {
		t.Errorf("source %s after install", a.Source)
	}
}
