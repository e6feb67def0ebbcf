package laya

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sync"
)

// Telemetry: one JSONL record per routed request in
// <agentDir>/laya/telemetry.jsonl; the history feeds P(success).

// TelemetryPath is the telemetry file under a Laya home.
func TelemetryPath(home string) string { return filepath.Join(home, "telemetry.jsonl") }

// maxTelemetryRows is how many of the newest lines a reader keeps.
const maxTelemetryRows = 5000

// Classification is the assessment part of a record.
type Classification struct {
	Source            string  `json:"source"`
	Type              string  `json:"type"`
	Complexity        float64 `json:"complexity"`
	Risk              float64 `json:"risk"`
	Ambiguity         float64 `json:"ambiguity"`
	Reasoning         float64 `json:"reasoning"`
	Scope             string  `json:"scope"`
	Agent             string  `json:"agent"`
	Validation        string  `json:"validation"`
	Confidence        float64 `json:"confidence"`
	RecommendedTier   string  `json:"recommended_tier"`
	RecommendedEffort string  `json:"recommended_effort"`
}

// TelemetryPolicy is the policy part of a record.
type TelemetryPolicy struct {
	Profile      string   `json:"profile"`
	RequiredTier string   `json:"required_tier"`
	Rules        []string `json:"rules"`
}

// Selected is the model that ran the request.
type Selected struct {
	Provider      string `json:"provider"`
	Model         string `json:"model"`
	Tier          string `json:"tier"`
	ThinkingLevel string `json:"thinking_level"`
}

// RunResult is the outcome part of a record.
type RunResult struct {
	Success      bool         `json:"success"`
	Outcome      string       `json:"outcome"` // completed | error | aborted
	Attempts     int          `json:"attempts"`
	Escalations  []Escalation `json:"escalations"`
	TestsPassed  *bool        `json:"tests_passed"`
	ToolFailures int          `json:"tool_failures"`
}

// RunUsage is the usage part of a record.
type RunUsage struct {
	Tokens     int      `json:"tokens"`
	Cost       float64  `json:"cost"`
	DurationMs int64    `json:"duration_ms"`
	Models     []string `json:"models"`
}

// TelemetryRecord is one routed request.
type TelemetryRecord struct {
	TaskID         string          `json:"task_id"`
	Timestamp      string          `json:"timestamp"`
	Request        string          `json:"request"`
	Classification Classification  `json:"classification"`
	Policy         TelemetryPolicy `json:"policy"`
	Selected       Selected        `json:"selected"`
	Result         RunResult       `json:"result"`
	Usage          RunUsage        `json:"usage"`
}

// NewClassification fills the classification part from an assessment.
func NewClassification(a Assessment) Classification {
	return Classification{Source: a.Source, Type: a.Task.Type, Complexity: a.Task.Complexity, Risk: a.Task.Risk,
		Ambiguity: a.Task.Ambiguity, Reasoning: a.Task.Reasoning, Scope: a.Task.Scope, Agent: a.Agent,
		Validation: a.Validation, Confidence: math.Round(a.Confidence*1000) / 1000,
		RecommendedTier: a.Recommendation.Tier.String(), RecommendedEffort: a.Recommendation.Effort}
}

// ClipRequest clips a request to 2000 characters plus "…".
func ClipRequest(s string) string { return clipRunes(s, 2000) }

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

var telemetryMu sync.Mutex

// AppendTelemetry appends one record.
func AppendTelemetry(path string, rec TelemetryRecord) error {
	rec.Usage.Cost = math.Round(rec.Usage.Cost*1e6) / 1e6
	if rec.Result.Escalations == nil {
		rec.Result.Escalations = []Escalation{}
	}
	if rec.Policy.Rules == nil {
		rec.Policy.Rules = []string{}
	}
	line, err := marshalJSON(rec)
	if err != nil {
		return err
	}
	telemetryMu.Lock()
	defer telemetryMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadTelemetry reads the newest records; bad lines are skipped.
func ReadTelemetry(path string) ([]TelemetryRecord, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines) > maxTelemetryRows+1 {
		lines = lines[len(lines)-maxTelemetryRows-1:]
	}
	var out []TelemetryRecord
	for _, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var r TelemetryRecord
		if json.Unmarshal(l, &r) == nil && r.TaskID != "" {
			out = append(out, r)
		}
	}
	return out, nil
}

// RunSucceeded is a completed run whose last check did not fail.
func RunSucceeded(r RunResult) bool {
	return r.Outcome == "completed" && (r.TestsPassed == nil || *r.TestsPassed)
}

// BuildHistory counts runs and successes per task class and model;
// aborted runs are skipped.
func BuildHistory(recs []TelemetryRecord) History {
	h := History{}
	for _, r := range recs {
		h.Add(r)
	}
	return h
}

// Add counts one record.
func (h History) Add(r TelemetryRecord) {
	if r.Result.Outcome == "aborted" {
		return
	}
	a := Assessment{Task: TaskProfile{Type: r.Classification.Type, Complexity: r.Classification.Complexity}}
	k := a.TaskKey() + "|" + r.Selected.Provider + "/" + r.Selected.Model
	o := h[k]
	o.Runs++
	if RunSucceeded(r.Result) {
		o.Successes++
	}
	h[k] = o
}

// checkCommand matches commands whose outcome says whether tests or builds
// passed.
var checkCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(test|tests|vitest|jest|mocha|pytest|go test|cargo test|mvn|gradle|tsc|check|lint|build)\b|test\.sh`)
})

// IsCheckCommand reports whether a bash command is a test/build/check run.
func IsCheckCommand(cmd string) bool { return checkCommand().MatchString(cmd) }

// ExportRow is one evidence-labeled exercise of /laya export.
type ExportRow struct {
	State    RowState          `json:"state"`
	Expected map[string]string `json:"expected"`
	Source   string            `json:"source"`
}

// ExportRows keeps successful records, labeled with the tier that
// finished them.
func ExportRows(recs []TelemetryRecord) []ExportRow {
	var out []ExportRow
	for _, r := range recs {
		if !r.Result.Success || r.Request == "" {
			continue
		}
		out = append(out, ExportRow{State: RowState{Request: r.Request},
			Expected: map[string]string{"capability_tier": r.Selected.Tier}, Source: SourceHarness})
	}
	return out
}

// ToolRetrievalRecord is one line of tool-retrieval.jsonl
// (laya.toolRetrievalTelemetry): counts only, never the request, tool
// names or paths.
type ToolRetrievalRecord struct {
	Timestamp             string `json:"timestamp"`
	CandidateCount        int    `json:"candidateCount"`
	RetrievedCount        int    `json:"retrievedCount"`
	InvokedCount          int    `json:"invokedCount"`
	InvokedRetrievedCount int    `json:"invokedRetrievedCount"`
}

// ToolRetrievalPath is <home>/tool-retrieval.jsonl.
func ToolRetrievalPath(home string) string { return filepath.Join(home, "tool-retrieval.jsonl") }

// EvaluateToolRetrieval counts a request's retrieval: the deferred
// candidates, the tools retrieved, the distinct tools invoked, and the
// invoked ones that retrieval brought.
func EvaluateToolRetrieval(candidates int, retrieved, invoked []string) ToolRetrievalRecord {
	got := map[string]bool{}
	for _, n := range retrieved {
		got[n] = true
	}
	seen := map[string]bool{}
	rec := ToolRetrievalRecord{CandidateCount: candidates, RetrievedCount: len(retrieved)}
	for _, n := range invoked {
		if seen[n] {
			continue
		}
		seen[n] = true
		rec.InvokedCount++
		if got[n] {
			rec.InvokedRetrievedCount++
		}
	}
	return rec
}

// AppendToolRetrieval appends one record to path.
func AppendToolRetrieval(path string, rec ToolRetrievalRecord) error {
	line, err := marshalJSON(rec)
	if err != nil {
		return err
	}
	telemetryMu.Lock()
	defer telemetryMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
