package laya

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relay-agent/relay/internal/llm/llamacpp"
)

// Classifier choices (laya.classifier).
const (
	ClassifierLaya  = "laya"      // the System One server (default)
	ClassifierLlama = "llama.cpp" // a chat model on llama-server
	ClassifierRules = "rules"     // keyword rules only
)

// ParseClassifier splits laya.classifier into its kind and, for
// "llama.cpp/<model>", the model id ("" = the first loaded model).
func ParseClassifier(s string) (kind, model string, err error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == ClassifierLaya || s == Provider+"/"+ClassifierModelID:
		return ClassifierLaya, "", nil
	case s == ClassifierRules:
		return ClassifierRules, "", nil
	case s == ClassifierLlama:
		return ClassifierLlama, "", nil
	case strings.HasPrefix(s, ClassifierLlama+"/") && len(s) > len(ClassifierLlama)+1:
		return ClassifierLlama, s[len(ClassifierLlama)+1:], nil
	}
	return "", "", fmt.Errorf(`laya.classifier %q: expected "laya", "llama.cpp", "llama.cpp/<model>" or "rules"`, s)
}

// LlamaConfig locates the llama.cpp server whose model answers Laya's
// questions.
type LlamaConfig struct {
	Root   string // normalized server URL
	APIKey string
	Model  string // "" = the first loaded model
	// Timeout bounds each HTTP request (laya.timeoutMs).
	Timeout time.Duration
	HTTP    *http.Client
}

// llamaClassifier asks Laya's questions to a llama.cpp chat model
// (llama-cpp-classify), one question after the other.
type llamaClassifier struct {
	cfg LlamaConfig

	mu    sync.Mutex
	cls   *llamacpp.Classifier // nil until the model is known
	done  atomic.Int32         // questions answered in the classification under way
	total atomic.Int32         // 0 = none under way
}

// classifier returns the classifier of the configured model, or of the
// first loaded one on the server (found once; again after a failure).
func (l *llamaClassifier) classifier(ctx context.Context) (*llamacpp.Classifier, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cls != nil {
		return l.cls, nil
	}
	id := l.cfg.Model
	if id == "" {
		c := &llamacpp.Client{Root: l.cfg.Root, APIKey: l.cfg.APIKey, HTTP: l.cfg.HTTP}
		lctx, cancel := context.WithTimeout(ctx, llamacpp.DefaultTimeout)
		infos, err := c.Models(lctx)
		cancel()
		if err != nil {
			return nil, err
		}
		for _, m := range infos {
			if s := m.State(); s == llamacpp.StatusLoaded || s == llamacpp.StatusSleeping {
				id = m.ID
				break
			}
		}
		if id == "" {
			return nil, fmt.Errorf("no model is loaded on the llama.cpp server at %s (load one with /llama load <model>)", l.cfg.Root)
		}
	}
	l.cls = &llamacpp.Classifier{Root: l.cfg.Root, APIKey: l.cfg.APIKey, Model: id, Timeout: l.cfg.Timeout, HTTP: l.cfg.HTTP}
	return l.cls, nil
}

// forget drops a discovered model after a failure, so the next attempt
// looks again (another model may be loaded by then).
func (l *llamaClassifier) forget() {
	if l.cfg.Model != "" {
		return
	}
	l.mu.Lock()
	l.cls = nil
	l.mu.Unlock()
}

// Model is the model in use ("" before the first classification, or the
// configured one).
func (l *llamaClassifier) Model() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cls != nil {
		return l.cls.Model
	}
	return l.cfg.Model
}

// classify answers the core questions and library_category about request.
func (l *llamaClassifier) classify(ctx context.Context, request string) (map[string]Answer, llamacpp.Stats, error) {
	cls, err := l.classifier(ctx)
	if err != nil {
		return nil, llamacpp.Stats{}, err
	}
	qs := ClassifierQuestions()
	wire := make([]llamacpp.Question, len(qs))
	for i, q := range qs {
		wire[i] = llamacpp.Question{ID: q.ID, Type: q.Type, Instructions: q.Instructions, Options: q.Options, Descriptions: q.Descriptions}
	}
	l.done.Store(0)
	l.total.Store(int32(len(qs)))
	defer l.total.Store(0)
	got, st, err := cls.Classify(ctx, map[string]string{"request": request}, wire, func(done, _ int) { l.done.Store(int32(done)) })
	if err != nil {
		l.forget()
		return nil, st, err
	}
	out := make(map[string]Answer, len(got))
	for id, a := range got {
		out[id] = Answer{Type: a.Type, Choice: a.Choice, Probabilities: a.Probabilities, Confidence: a.Confidence, Score: a.Score, Probability: a.Probability}
	}
	return out, st, nil
}

// progress is the classification under way: questions answered and
// asked (total 0 = none).
func (l *llamaClassifier) progress() (done, total int) {
	return int(l.done.Load()), int(l.total.Load())
}

// classifyLlama asks the llama.cpp model. A failure (server down, no
// model loaded, a model without a chat template, a label the tokenizer
// splits, log-probs missing the labels) is said once and the keyword
// rules answer for UnavailableFor.
func (r *Router) classifyLlama(ctx context.Context, request string) (Assessment, bool) {
	r.mu.Lock()
	if r.cfg.Now().Before(r.unavailableUntil) {
		r.mu.Unlock()
		return Assessment{}, false
	}
	r.mu.Unlock()
	answers, st, err := r.llama.classify(ctx, ClipRequest(request))
	var a Assessment
	if err == nil {
		a, err = FromAnswers(answers, SourceLaya)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastStats = st
	if err != nil {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The person cancelled: not the classifier's fault.
			return Assessment{}, false
		}
		r.unavailableUntil = r.cfg.Now().Add(UnavailableFor)
		r.lastError = err.Error()
		r.notice("Laya's llama.cpp classifier failed (" + err.Error() + "); keyword rules route requests, llama.cpp is tried again in a minute.")
		return Assessment{}, false
	}
	r.lastError = ""
	if a.LibraryConfidence < r.cfg.LibraryMinConfidence {
		a.LibraryCategory = ""
	}
	return a, true
}

// ClassifierProgress is the llama.cpp classification under way (questions
// answered, asked); total 0 when none is.
func (r *Router) ClassifierProgress() (done, total int) {
	if r.llama == nil {
		return 0, 0
	}
	return r.llama.progress()
}

// LastClassifierStats counts the server calls of the last llama.cpp
// classification.
func (r *Router) LastClassifierStats() llamacpp.Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastStats
}

// ClassifierStatus says which classifier answers Laya's questions now
// (System One, llama.cpp or keyword rules) and why.
func (r *Router) ClassifierStatus() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.cfg.Now()
	retry := ""
	if now.Before(r.unavailableUntil) {
		retry = fmt.Sprintf("; tried again in %ds", int(r.unavailableUntil.Sub(now).Seconds()+0.999))
	}
	switch {
	case r.kindErr != nil:
		return "keyword rules (" + r.kindErr.Error() + ")"
	case r.kind == ClassifierRules:
		return `keyword rules (laya.classifier is "rules")`
	case r.llama != nil:
		model := r.llama.Model()
		if model == "" {
			model = "the first loaded model"
		}
		what := fmt.Sprintf("llama.cpp: %s at %s (laya.classifier %q)", model, r.llama.cfg.Root, r.cfg.Classifier)
		if retry != "" {
			return "keyword rules: the " + what + " failed: " + r.lastError + retry
		}
		return what
	case r.client == nil:
		return "keyword rules (no laya.baseUrl)"
	}
	what := "System One at " + r.cfg.BaseURL
	if retry != "" {
		return "keyword rules: " + what + " failed: " + r.lastError + retry
	}
	if r.serverBusy != nil {
		if busy, why := r.serverBusy(); busy {
			if why == "" {
				why = "the Laya server is being installed"
			}
			return "keyword rules while " + what + " is not ready (" + why + ")"
		}
	}
	return what
}
