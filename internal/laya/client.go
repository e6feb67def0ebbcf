package laya

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The System One protocol (TypeSafe-compatible) that the Laya server
// speaks: POST <baseUrl>/systemone with the typed questions, GET /health at
// the URL root.

// ClassifierModelID is the classifier's model id.
const ClassifierModelID = "execution-intelligence"

// DefaultTimeout is laya.timeoutMs's default.
const DefaultTimeout = 5000 * time.Millisecond

// HealthTimeout bounds a /health probe.
const HealthTimeout = 1500 * time.Millisecond

// Client talks to one System One server. It never retries: a failed call
// falls back to the keyword rules for a minute.
type Client struct {
	BaseURL string
	APIKey  string // "" = "local"
	Timeout time.Duration
	HTTP    *http.Client
}

// Health is a /health answer.
type Health struct {
	OK        bool     `json:"ok"`
	Model     string   `json:"model"`
	Decisions []string `json:"decisions,omitempty"`
}

// ForeignServerError is a server on the address whose announced questions
// are not relay's (e.g. another project's laya-trainer server).
type ForeignServerError struct {
	Address string
	Model   string
}

func (e *ForeignServerError) Error() string {
	name := "another Laya server"
	if e.Model != "" {
		name += " (" + e.Model + ")"
	}
	return fmt.Sprintf("%s uses %s and answers other questions than relay's; stop it or set laya.baseUrl", name, e.Address)
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c *Client) key() string {
	if c.APIKey == "" {
		return "local"
	}
	return c.APIKey
}

func (c *Client) base() string { return strings.TrimRight(c.BaseURL, "/") }

// HealthURL is /health at the root of the base URL (not under /v1).
func HealthURL(baseURL string) (string, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("invalid laya.baseUrl %q", baseURL)
	}
	return u.Scheme + "://" + u.Host + "/health", nil
}

// Health probes the server. A server that announces decisions must list
// every question relay asks, else it is refused with ForeignServerError.
func (c *Client) Health(ctx context.Context) (*Health, error) {
	hu, err := HealthURL(c.BaseURL)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, HealthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, hu, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, fmt.Errorf("laya health: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var h Health
	if resp.StatusCode/100 != 2 || json.Unmarshal(body, &h) != nil || !h.OK {
		return nil, fmt.Errorf("laya health: server at %s is not healthy (HTTP %d)", hu, resp.StatusCode)
	}
	if h.Decisions != nil {
		have := map[string]bool{}
		for _, d := range h.Decisions {
			have[d] = true
		}
		for _, id := range QuestionIDs() {
			if !have[id] {
				u, _ := url.Parse(c.BaseURL)
				return &h, &ForeignServerError{Address: u.Host, Model: h.Model}
			}
		}
	}
	return &h, nil
}

// Result is one classification.
type Result struct {
	Answers map[string]Answer
	Usage   *ClassifierUsage
}

// ClassifierUsage is the optional token usage of a classification.
type ClassifierUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Classify asks every question about request in one call.
func (c *Client) Classify(ctx context.Context, request string) (*Result, error) {
	qs := Questions()
	questions := orderedObject{}
	for _, q := range qs {
		questions = append(questions, kv{q.ID, q.wire()})
	}
	body, err := marshalJSON(orderedObject{
		{"model", ClassifierModelID},
		{"state", map[string]string{"request": request}},
		{"questions", questions},
	})
	if err != nil {
		return nil, err
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base()+"/systemone", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("authorization", "Bearer "+c.key())
	req.Header.Set("content-type", "application/json")
	resp, err := c.http().Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("Request timed out after %dms", timeout.Milliseconds())
		}
		return nil, fmt.Errorf("System One request: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("Request timed out after %dms", timeout.Milliseconds())
		}
		return nil, fmt.Errorf("System One response: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("System One API returned %d", resp.StatusCode)
	}
	return parseAnswers(raw, qs)
}

// wireAnswer is every field any answer type may carry.
type wireAnswer struct {
	Type             string             `json:"type"`
	Choice           *string            `json:"choice"`
	Probabilities    map[string]float64 `json:"probabilities"`
	Confidence       *float64           `json:"confidence"`
	AnswerConfidence *float64           `json:"answer_confidence"`
	Score            *float64           `json:"score"`
	Noul             *float64           `json:"noul"`
}

func parseAnswers(raw []byte, qs []Question) (*Result, error) {
	var resp struct {
		Answers map[string]json.RawMessage `json:"answers"`
		Usage   json.RawMessage            `json:"usage"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("System One response is not JSON: %w", err)
	}
	out := &Result{Answers: map[string]Answer{}}
	for _, q := range qs {
		wireType := q.Type
		if wireType == QBool {
			wireType = "noul"
		}
		bad := fmt.Errorf("System One API did not return a %s answer for %s", wireType, q.ID)
		var w wireAnswer
		if r, ok := resp.Answers[q.ID]; !ok || json.Unmarshal(r, &w) != nil || w.Type != wireType {
			return nil, bad
		}
		conf := w.Confidence
		if w.AnswerConfidence != nil {
			conf = w.AnswerConfidence
		}
		switch q.Type {
		case QChoice:
			if w.Choice == nil || conf == nil || !finite(*conf) || w.Probabilities == nil {
				return nil, bad
			}
			for _, p := range w.Probabilities {
				if !finite(p) {
					return nil, bad
				}
			}
			a := Answer{Type: QChoice, Choice: *w.Choice, Probabilities: w.Probabilities, Confidence: *conf}
			if w.AnswerConfidence != nil {
				// answer_confidence measures the answer (Laya's confidence
				// measures entropy): it replaces the choice's probability.
				a.Probabilities = copyWithout(w.Probabilities, *w.Choice)
			}
			out.Answers[q.ID] = a
		case QScore:
			if w.Score == nil || !finite(*w.Score) || conf == nil || !finite(*conf) {
				return nil, bad
			}
			out.Answers[q.ID] = Answer{Type: QScore, Score: *w.Score, Confidence: *conf}
		case QBool:
			if w.Noul == nil || !finite(*w.Noul) {
				return nil, bad
			}
			out.Answers[q.ID] = Answer{Type: QBool, Probability: *w.Noul}
		}
	}
	if len(resp.Usage) > 0 {
		var u ClassifierUsage
		if json.Unmarshal(resp.Usage, &u) == nil {
			out.Usage = &u
		}
	}
	return out, nil
}

// copyWithout keeps the probabilities for display but drops the chosen
// label's, so choiceConfidence falls back to answer_confidence.
func copyWithout(p map[string]float64, label string) map[string]float64 {
	out := make(map[string]float64, len(p))
	for k, v := range p {
		if k != label {
			out[k] = v
		}
	}
	return out
}
