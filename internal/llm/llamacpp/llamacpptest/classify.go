package llamacpptest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
)

// Classify configures the fake's classification endpoints: /tokenize with
// a small deterministic vocabulary, /apply-template with a ChatML
// template, and /completion answering n_predict 1 with
// completion_probabilities in llama-server's shape.
type Classify struct {
	// Answer returns the log-probability of answer labels for the
	// question asked last in the prompt (its "Question: ..." line without
	// the prefix); labels it leaves out get -12. nil: the first label gets
	// -0.05 and the others -4.
	Answer func(question string) map[string]float64
	// Filler is how many other tokens rank above every label, so labels
	// are missing from a list shorter than Filler+labels.
	Filler int
	// NewlineMerges makes "\n"+label a single token unlike the label's own
	// (as SentencePiece tokenizers do): the label is then tokenized alone.
	NewlineMerges bool
	// Split lists labels the tokenizer cuts into two tokens.
	Split map[string]bool
	// NoTemplate fails /apply-template as for a model without a chat
	// template.
	NoTemplate bool
	// OpenThink ends the rendered prompt with "<think>".
	OpenThink bool
	// Gate, when set, holds each /completion until it can receive (a
	// closed gate lets every one through): a test sees the classification
	// under way.
	Gate chan struct{}
}

// Call is one classification request the fake received.
type Call struct {
	Path   string
	Model  string
	NProbs int
	Body   map[string]any
}

// Calls returns the classification requests received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// ResetCalls forgets the recorded classification requests.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	s.calls = nil
	s.mu.Unlock()
}

// CountCalls counts the recorded requests to path.
func (s *Server) CountCalls(path string) int {
	n := 0
	for _, c := range s.Calls() {
		if c.Path == path {
			n++
		}
	}
	return n
}

// SetDown drops every later connection (true) or serves again (false).
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	s.down = down
	s.mu.Unlock()
}

func (s *Server) classifyDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.down
}

// Token ids of the fake vocabulary.
const (
	newlineToken = 198
	yesToken     = 9454
	noToken      = 2822
	mergedBase   = 50000  // "\n"+label with NewlineMerges
	textBase     = 100000 // one token per rune of other text
	fillerBase   = 200000
)

// LabelToken is the fake's token id of an answer label.
func LabelToken(label string) int {
	switch label {
	case "Yes":
		return yesToken
	case "No":
		return noToken
	}
	r := []rune(label)
	if len(r) == 1 {
		return 1000 + int(r[0])
	}
	return -1
}

func isLabel(s string) bool { return LabelToken(s) >= 0 }

func (s *Server) decode(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	var body map[string]any
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&body); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"code":400,"message":%q,"type":"invalid_request_error"}}`, err.Error())
		return nil, false
	}
	model, _ := body["model"].(string)
	n, _ := body["n_probs"].(float64)
	s.mu.Lock()
	s.calls = append(s.calls, Call{Path: r.URL.Path, Model: model, NProbs: int(n), Body: body})
	s.mu.Unlock()
	if s.Router {
		// A router needs a loaded model named in the request.
		for _, m := range s.catalog() {
			if m.ID == model {
				if m.Status != "loaded" && m.Status != "sleeping" {
					w.WriteHeader(http.StatusBadRequest)
					fmt.Fprintf(w, `{"error":{"code":400,"message":"model is not loaded","type":"invalid_request_error"}}`)
					return nil, false
				}
				return body, true
			}
		}
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"code":400,"message":"model %q not found","type":"invalid_request_error"}}`, model)
		return nil, false
	}
	return body, true
}

func (s *Server) tokenize(w http.ResponseWriter, r *http.Request) {
	body, ok := s.decode(w, r)
	if !ok {
		return
	}
	content, _ := body["content"].(string)
	cfg := s.Classify
	var toks []int
	label := func(l string) []int {
		if cfg.Split[l] {
			return []int{textBase + int([]rune(l)[0]), textBase + 1}
		}
		return []int{LabelToken(l)}
	}
	switch {
	case content == "\n":
		toks = []int{newlineToken}
	case strings.HasPrefix(content, "\n") && isLabel(content[1:]):
		l := content[1:]
		if cfg.NewlineMerges {
			toks = []int{mergedBase + LabelToken(l)}
		} else {
			toks = append([]int{newlineToken}, label(l)...)
		}
	case isLabel(content):
		toks = label(content)
	default:
		for _, r := range content {
			toks = append(toks, textBase+int(r))
		}
	}
	writeJSON(w, map[string]any{"tokens": toks})
}

func (s *Server) applyTemplate(w http.ResponseWriter, r *http.Request) {
	body, ok := s.decode(w, r)
	if !ok {
		return
	}
	if s.Classify.NoTemplate {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":{"code":500,"message":"this model has no chat template","type":"server_error"}}`)
		return
	}
	if kw, _ := body["chat_template_kwargs"].(map[string]any); kw["enable_thinking"] != false {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"code":400,"message":"fake: classification must disable thinking","type":"invalid_request_error"}}`)
		return
	}
	var b strings.Builder
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		fmt.Fprintf(&b, "<|im_start|>%s\n%s<|im_end|>\n", mm["role"], mm["content"])
	}
	b.WriteString("<|im_start|>assistant\n")
	if s.Classify.OpenThink {
		b.WriteString("<think>")
	}
	writeJSON(w, map[string]any{"prompt": b.String()})
}

var optionLabel = regexp.MustCompile(`(?m)^([A-Za-z0-9])\. `)

// asked returns the last question of prompt and its answer labels.
func asked(prompt string) (question string, labels []string) {
	i := strings.LastIndex(prompt, "Question: ")
	if i < 0 {
		return "", nil
	}
	rest := prompt[i+len("Question: "):]
	question, _, _ = strings.Cut(rest, "\n")
	if strings.Contains(rest, "Answer Yes or No.") {
		return question, []string{"Yes", "No"}
	}
	for _, m := range optionLabel.FindAllStringSubmatch(rest, -1) {
		labels = append(labels, m[1])
	}
	return question, labels
}

type topEntry struct {
	ID      int     `json:"id"`
	Token   string  `json:"token"`
	Bytes   []int   `json:"bytes"`
	Logprob float64 `json:"logprob"`
}

func (s *Server) completion(w http.ResponseWriter, r *http.Request) {
	body, ok := s.decode(w, r)
	if !ok {
		return
	}
	prompt, _ := body["prompt"].(string)
	nProbs, _ := body["n_probs"].(float64)
	if body["n_predict"] != float64(1) || body["post_sampling_probs"] != false {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"code":400,"message":"fake: classification asks n_predict 1 without post-sampling probabilities","type":"invalid_request_error"}}`)
		return
	}
	if s.Classify.OpenThink && !strings.HasSuffix(prompt, "<think></think>") {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"code":400,"message":"fake: the reasoning block was left open","type":"invalid_request_error"}}`)
		return
	}
	if s.Classify.Gate != nil {
		select {
		case <-s.Classify.Gate:
		case <-r.Context().Done():
			return
		}
	}
	question, labels := asked(prompt)
	lp := map[string]float64{}
	if s.Classify.Answer != nil {
		lp = s.Classify.Answer(question)
	} else if len(labels) > 0 {
		lp[labels[0]] = -0.05
	}
	entry := func(id int, tok string, l float64) topEntry {
		bs := []int{}
		for _, c := range []byte(tok) {
			bs = append(bs, int(c))
		}
		return topEntry{ID: id, Token: tok, Bytes: bs, Logprob: l}
	}
	var top []topEntry
	for i := 0; i < s.Classify.Filler; i++ {
		top = append(top, entry(fillerBase+i, fmt.Sprintf(" filler%d", i), -0.001*float64(i+1)))
	}
	var ranked []topEntry
	for _, l := range labels {
		v, ok := lp[l]
		if !ok {
			v = -12
			if s.Classify.Answer == nil {
				v = -4
			}
		}
		ranked = append(ranked, entry(LabelToken(l), l, v))
	}
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].Logprob > ranked[j].Logprob })
	top = append(top, ranked...)
	top = append(top, entry(textBase+'\n', "\n", -20), entry(textBase+'T', "The", -21))
	if n := int(nProbs); n > 0 && n < len(top) {
		top = top[:n]
	}
	first := top[0]
	n := len([]rune(prompt))
	writeJSON(w, map[string]any{
		"index": 0, "content": first.Token, "tokens": []int{}, "id_slot": 0, "stop": true, "model": body["model"],
		"tokens_predicted": 1, "tokens_evaluated": n, "prompt": prompt, "has_new_line": false, "truncated": false,
		"stop_type": "limit", "stopping_word": "", "tokens_cached": n - 1,
		"generation_settings": map[string]any{"n_predict": 1, "temperature": 0, "n_probs": int(nProbs), "post_sampling_probs": false},
		"timings":             map[string]any{"prompt_n": 1, "prompt_ms": 0.8, "predicted_n": 1, "predicted_ms": 4.1},
		"completion_probabilities": []any{map[string]any{"id": first.ID, "token": first.Token, "bytes": first.Bytes,
			"logprob": first.Logprob, "top_logprobs": top}},
	})
}
