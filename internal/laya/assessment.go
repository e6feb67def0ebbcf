package laya

import (
	"fmt"
	"math"
)

// Sources of an assessment.
const (
	SourceLaya      = "laya"
	SourceMemory    = "memory"
	SourceHeuristic = "heuristic"
)

// TaskProfile describes the task; scores are normalised to 0..1.
type TaskProfile struct {
	Type       string  `json:"type"`
	Complexity float64 `json:"complexity"`
	Risk       float64 `json:"risk"`
	Ambiguity  float64 `json:"ambiguity"`
	Reasoning  float64 `json:"reasoning"`
	Scope      string  `json:"scope"`
}

// Recommendation is the classifier's tier and effort.
type Recommendation struct {
	Tier   Tier   `json:"tier"`
	Effort string `json:"effort"`
}

// Assessment is what the router knows about one request.
type Assessment struct {
	Source            string          `json:"source"`
	Task              TaskProfile     `json:"task"`
	Recommendation    Recommendation  `json:"recommendation"`
	Agent             string          `json:"agent"`
	Validation        string          `json:"validation"`
	Tools             map[string]bool `json:"tools"`
	SecuritySensitive bool            `json:"securitySensitive"`
	Confidence        float64         `json:"confidence"`
	// LibraryCategory is the answer to library_category, "" when the
	// classifier was not asked or abstained (confidence below
	// LibraryMinConfidence).
	LibraryCategory   string  `json:"libraryCategory,omitempty"`
	LibraryConfidence float64 `json:"libraryConfidence,omitempty"`
}

// LibraryMinConfidence is the default confidence below which the
// library_category answer abstains.
const LibraryMinConfidence = 0.5

// TaskKey groups telemetry history: "<task_type>:<round(complexity*4)>".
func (a Assessment) TaskKey() string {
	return fmt.Sprintf("%s:%d", a.Task.Type, int(math.Round(a.Task.Complexity*4)))
}

// Answer is one classifier answer in process form.
type Answer struct {
	Type          string             `json:"type"` // choice | score | bool
	Choice        string             `json:"choice,omitempty"`
	Probabilities map[string]float64 `json:"probabilities,omitempty"`
	Confidence    float64            `json:"confidence,omitempty"`
	Score         float64            `json:"score,omitempty"`
	Probability   float64            `json:"probability,omitempty"`
}

// choiceConfidence is the probability of the chosen label, falling back to
// the answer's confidence.
func (a Answer) choiceConfidence() float64 {
	if p, ok := a.Probabilities[a.Choice]; ok {
		return p
	}
	return a.Confidence
}

// FromAnswers builds an assessment from a full answer set. Any missing or
// invalid answer is an error (the caller treats it as a classifier
// failure).
func FromAnswers(answers map[string]Answer, source string) (Assessment, error) {
	as := Assessment{Source: source, Tools: map[string]bool{}}
	choices := map[string]string{}
	scores := map[string]float64{}
	conf := 1.0
	for _, q := range Questions() {
		a, ok := answers[q.ID]
		if !ok {
			return Assessment{}, fmt.Errorf("no answer for %s", q.ID)
		}
		if a.Type != q.Type {
			return Assessment{}, fmt.Errorf("answer for %s is %q, want %s", q.ID, a.Type, q.Type)
		}
		switch q.Type {
		case QChoice:
			if indexOf(q.Options, a.Choice) < 0 {
				return Assessment{}, fmt.Errorf("%s: %q is not an option", q.ID, a.Choice)
			}
			choices[q.ID] = a.Choice
			if q.ID == "task_type" || q.ID == "capability_tier" || q.ID == "reasoning_effort" {
				conf = math.Min(conf, a.choiceConfidence())
			}
		case QScore:
			if !finite(a.Score) {
				return Assessment{}, fmt.Errorf("%s: score is not a number", q.ID)
			}
			scores[q.ID] = clamp(a.Score/float64(q.Levels()-1), 0, 1)
		case QBool:
			if !finite(a.Probability) {
				return Assessment{}, fmt.Errorf("%s: probability is not a number", q.ID)
			}
			as.Tools[q.ID] = a.Probability >= 0.5
		}
	}
	as.SecuritySensitive = as.Tools["security_sensitive"]
	delete(as.Tools, "security_sensitive")
	tier, _ := ParseTier(choices["capability_tier"])
	as.Task = TaskProfile{Type: choices["task_type"], Complexity: scores["complexity"], Risk: scores["risk"],
		Ambiguity: scores["ambiguity"], Reasoning: scores["reasoning_requirement"], Scope: choices["scope"]}
	as.Recommendation = Recommendation{Tier: tier, Effort: choices["reasoning_effort"]}
	as.Agent = choices["agent"]
	as.Validation = choices["validation_level"]
	as.Confidence = conf
	// library_category is optional: a missing or unknown answer abstains,
	// and so does one below LibraryMinConfidence (the router may ask for
	// more with LAYA_LIBRARY_MIN_CONFIDENCE).
	if a, ok := answers[LibraryQuestionID]; ok && a.Type == QChoice && indexOf(LibraryCategories, a.Choice) >= 0 {
		as.LibraryConfidence = a.choiceConfidence()
		if as.LibraryConfidence >= LibraryMinConfidence {
			as.LibraryCategory = a.Choice
		}
	}
	return as, nil
}

// FromLabels turns learned labels (choice literal, level int, bool) into an
// assessment with every answer certain; the confidence is the memory
// match's similarity.
func FromLabels(labels map[string]any, similarity float64) (Assessment, error) {
	norm, problems := ValidateLabels(labels)
	if len(problems) > 0 {
		return Assessment{}, fmt.Errorf("invalid labels: %s", problems[0])
	}
	answers := map[string]Answer{}
	for _, q := range Questions() {
		v := norm[q.ID]
		switch q.Type {
		case QChoice:
			answers[q.ID] = Answer{Type: QChoice, Choice: v.(string), Confidence: 1}
		case QScore:
			answers[q.ID] = Answer{Type: QScore, Score: float64(v.(int)), Confidence: 1}
		case QBool:
			p := 0.0
			if v.(bool) {
				p = 1
			}
			answers[q.ID] = Answer{Type: QBool, Probability: p}
		}
	}
	a, err := FromAnswers(answers, SourceMemory)
	if err != nil {
		return Assessment{}, err
	}
	a.Confidence = similarity
	return a, nil
}

// Labels renders an assessment as learned labels (the inverse of
// FromLabels), e.g. for seeds and exports.
func (a Assessment) Labels() map[string]any {
	lv := func(x float64, levels int) int { return int(math.Round(clamp(x, 0, 1) * float64(levels-1))) }
	out := map[string]any{
		"task_type": a.Task.Type, "complexity": lv(a.Task.Complexity, 5), "scope": a.Task.Scope,
		"risk": lv(a.Task.Risk, 4), "ambiguity": lv(a.Task.Ambiguity, 3), "reasoning_requirement": lv(a.Task.Reasoning, 5),
		"capability_tier": a.Recommendation.Tier.String(), "reasoning_effort": a.Recommendation.Effort,
		"agent": a.Agent, "validation_level": a.Validation, "security_sensitive": a.SecuritySensitive,
	}
	for _, id := range ToolRequirements {
		out[id] = a.Tools[id]
	}
	return out
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func clamp(x, lo, hi float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}
