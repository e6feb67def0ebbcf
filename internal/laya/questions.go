package laya

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"sync"
)

// The questions Laya answers about each request, in one classifier call.
// Their ids, option labels and wording are the contract with the trained
// checkpoint: train and serve with the same text.

// Question types as relay names them; bool goes on the wire as "noul".
const (
	QChoice = "choice"
	QScore  = "score"
	QBool   = "bool"
)

// Question is one typed classifier question. Choice criteria are labels
// with a description (in Options order); score criteria are levels,
// lowest first; bool criteria are the true and false descriptions.
type Question struct {
	ID           string
	Type         string
	Instructions string
	Options      []string // choice labels, in order
	Descriptions []string // one per option (choice), per level (score), or {true, false}
}

// Levels is the number of score levels (0 for other types).
func (q Question) Levels() int {
	if q.Type != QScore {
		return 0
	}
	return len(q.Descriptions)
}

// Value lists of the questions.
var (
	TaskTypes        = []string{"question", "code_edit", "bug_fix", "refactor", "feature", "test", "architecture", "debugging", "security", "research", "documentation"}
	Scopes           = []string{"single_line", "single_file", "module", "multi_module", "repository", "multi_repository"}
	TierNames        = []string{"fast", "balanced", "strong", "frontier"}
	Efforts          = []string{"minimal", "low", "medium", "high", "extra_high"}
	ValidationLevels = []string{"none", "syntax", "compile", "unit_test", "integration_test", "review"}
	ToolRequirements = []string{"requires_write", "requires_shell", "requires_tests", "requires_web", "requires_browser", "requires_database", "requires_git"}
)

// agentRoles are the specialist roles with their descriptions.
var agentRoles = [][2]string{
	{"software-engineer", "general implementation tasks that fit no specialist below"},
	{"code-reviewer", "read-only review of correctness, specification compliance, security and maintainability"},
	{"code-simplifier", "simplify code while preserving its behavior and contracts"},
	{"database-administrator", "data architecture, schemas, migrations, query tuning and integrity"},
	{"fullstack-engineer", "complete vertical features spanning database, backend and frontend"},
	{"principal-engineer", "cross-team technical strategy, RFCs and engineering guardrails"},
	{"product-designer", "user journeys, interaction design, visual systems and accessibility"},
	{"product-owner", "business requirements, backlog refinement and acceptance criteria"},
	{"quality-assurance", "test strategy, regression automation and release quality verification"},
	{"site-reliability-engineer", "SLOs, observability, reliability, incidents and error budgets"},
	{"tech-lead", "delivery decomposition, technical alignment, reviews and engineering standards"},
	{"backend-engineer", "APIs, services, business rules, queues, server-side code"},
	{"frontend-engineer", "web UI, components, styling, browser behavior, accessibility"},
	{"mobile-engineer", "iOS, Android, React Native or Flutter apps"},
	{"devops-engineer", "CI/CD, builds, containers, infrastructure, deployment, release scripts"},
	{"database-engineer", "schemas, migrations, queries, indexes, data modeling"},
	{"security-engineer", "vulnerabilities, authentication, authorization, secrets, hardening"},
	{"software-architect", "system design, module boundaries, cross-cutting architectural decisions"},
	{"qa-engineer", "writing or fixing tests, test strategy, flaky tests, coverage"},
	{"researcher", "investigating, comparing options or explaining code without changing it"},
}

// AgentDescription returns a role's one-line description.
func AgentDescription(id string) string {
	for _, a := range agentRoles {
		if a[0] == id {
			return a[1]
		}
	}
	return ""
}

var toolRequirementText = []string{
	"Does the task require creating or editing files?",
	"Does the task require running shell commands other than tests?",
	"Does the task require running tests, type checks, or builds?",
	"Does the task require searching or reading the web?",
	"Does the task require driving a browser or checking a running UI?",
	"Does the task require querying or changing a database?",
	"Does the task require git operations such as commits, branches, or history?",
}

func choice(id, instr string, pairs ...[2]string) Question {
	q := Question{ID: id, Type: QChoice, Instructions: instr}
	for _, p := range pairs {
		q.Options = append(q.Options, p[0])
		q.Descriptions = append(q.Descriptions, p[1])
	}
	return q
}

// Questions returns the 18 questions relay asks, in a fixed order. The
// slice is shared: callers must not modify it.
func Questions() []Question { return questionTable().list }

type questionSet struct {
	list []Question
	byID map[string]Question
}

// questionTable is built on first use: nothing runs at process start.
var questionTable = sync.OnceValue(func() questionSet {
	qs := buildQuestions()
	set := questionSet{list: qs, byID: map[string]Question{}}
	for _, q := range qs {
		set.byID[q.ID] = q
	}
	return set
})

func buildQuestions() []Question {
	qs := []Question{
		choice("task_type", "What kind of software engineering task does the request ask for?",
			[2]string{"question", "a question to answer, no change requested"},
			[2]string{"code_edit", "a small, explicit change: rename, text, config value, formatting"},
			[2]string{"bug_fix", "fix behavior that is wrong and reproducible"},
			[2]string{"refactor", "restructure code without changing behavior"},
			[2]string{"feature", "add new behavior or capability"},
			[2]string{"test", "write, fix or extend tests"},
			[2]string{"architecture", "design or evaluate structure across modules or systems"},
			[2]string{"debugging", "investigate a failure whose cause is unknown"},
			[2]string{"security", "find or fix a vulnerability, or change auth, secrets or permissions"},
			[2]string{"research", "explore, compare options or explain code without changing it"},
			[2]string{"documentation", "write or update docs, comments, READMEs or changelogs"}),
		{ID: "complexity", Type: QScore, Instructions: "How complex is the task?",
			Descriptions: []string{"trivial", "simple", "moderate", "complex", "expert"}},
		choice("scope", "How much of the codebase does the task touch?",
			[2]string{"single_line", "one line or one value"},
			[2]string{"single_file", "one file"},
			[2]string{"module", "several files of one module or package"},
			[2]string{"multi_module", "several modules or packages"},
			[2]string{"repository", "the whole repository"},
			[2]string{"multi_repository", "more than one repository or service"}),
		{ID: "risk", Type: QScore, Instructions: "How risky is a wrong result?", Descriptions: []string{
			"low: easy to undo, no user impact",
			"moderate: visible behavior change",
			"high: data, money, availability or many users affected",
			"critical: production data, security or irreversible operations"}},
		{ID: "ambiguity", Type: QScore, Instructions: "How ambiguous is the request?", Descriptions: []string{
			"clear: the request states what to do",
			"partial: some details must be inferred",
			"open: the goal or approach must be clarified or explored first"}},
		{ID: "reasoning_requirement", Type: QScore, Instructions: "How much reasoning does the task need?", Descriptions: []string{
			"recall: answer is direct knowledge",
			"routine: a known recipe",
			"multi-step: several dependent steps",
			"deep: careful analysis of interactions",
			"novel: design or debugging without a known recipe"}},
		choice("capability_tier", "What is the cheapest model capability tier likely to solve the task correctly?",
			[2]string{"fast", "small, fast model: trivial edits, lookups, simple questions"},
			[2]string{"balanced", "mid-size model: ordinary features, fixes and refactors"},
			[2]string{"strong", "large model: subtle bugs, risky or cross-module changes"},
			[2]string{"frontier", "most capable model: novel design, hard debugging, critical systems"}),
		choice("reasoning_effort", "How much reasoning effort should the model spend?",
			[2]string{"minimal", "answer or edit directly"},
			[2]string{"low", "brief planning"},
			[2]string{"medium", "plan the steps before acting"},
			[2]string{"high", "analyze alternatives and edge cases"},
			[2]string{"extra_high", "exhaustive analysis of a hard problem"}),
		choice("agent", "Which specialist should handle the task?", agentRoles...),
		choice("validation_level", "What validation should confirm the result?",
			[2]string{"none", "nothing to validate: answers, explanations, plans"},
			[2]string{"syntax", "check formatting or syntax only: docs, config, text"},
			[2]string{"compile", "type check or build"},
			[2]string{"unit_test", "run unit tests of the changed code"},
			[2]string{"integration_test", "run integration or end-to-end tests"},
			[2]string{"review", "careful review of the change: security, architecture, data"}),
	}
	for i, id := range ToolRequirements {
		qs = append(qs, Question{ID: id, Type: QBool, Instructions: toolRequirementText[i],
			Descriptions: []string{"yes, the task needs it", "no, the task does not need it"}})
	}
	qs = append(qs, Question{ID: "security_sensitive", Type: QBool,
		Instructions: "Does the task touch authentication, authorization, secrets, payments, security vulnerabilities, or production data migrations?",
		Descriptions: []string{"yes, it touches one of these", "no"}})
	return qs
}

// LibraryQuestionID is the optional question (19) of the newest
// generation: which body of knowledge the request needs. The System One
// checkpoint is not asked it (its contract is the 18 core questions); the
// llama.cpp classifier is.
const LibraryQuestionID = "library_category"

// LibraryCategories are library_category's options.
var LibraryCategories = []string{"languages", "algorithms", "architecture", "engineering", "databases", "web_frontend", "devops", "security", "automation", "frameworks"}

var libraryDescriptions = []string{
	"a programming language's syntax, semantics or standard library",
	"algorithms and data structures",
	"software architecture and design patterns",
	"engineering practice: testing, reviews, refactoring, tooling",
	"databases, SQL and data modeling",
	"web front end: HTML, CSS, browsers, UI components",
	"CI/CD, containers, infrastructure and operations",
	"security: authentication, secrets, vulnerabilities",
	"scripting and automation of tasks and workflows",
	"a framework or library's API",
}

// LibraryQuestion returns question (19), library_category.
func LibraryQuestion() Question {
	q := Question{ID: LibraryQuestionID, Type: QChoice, Instructions: "Which body of knowledge does the task mostly need?"}
	q.Options = LibraryCategories
	q.Descriptions = libraryDescriptions
	return q
}

// ClassifierQuestions are the questions a general classifier (a llama.cpp
// chat model) answers: the 18 core questions and library_category.
func ClassifierQuestions() []Question {
	return append(append([]Question(nil), Questions()...), LibraryQuestion())
}

// QuestionIDs lists the ids of Questions in order.
func QuestionIDs() []string {
	qs := Questions()
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.ID
	}
	return out
}

func questionByID(id string) (Question, bool) {
	q, ok := questionTable().byID[id]
	return q, ok
}

// wire renders the question as the System One protocol sends it.
func (q Question) wire() map[string]any {
	switch q.Type {
	case QScore:
		return map[string]any{"type": "score", "instructions": q.Instructions, "criteria": q.Descriptions}
	case QBool:
		return map[string]any{"type": "noul", "instructions": q.Instructions,
			"criteria": map[string]string{"true": q.Descriptions[0], "false": q.Descriptions[1]}}
	}
	crit := orderedCriteria{}
	for i, o := range q.Options {
		crit = append(crit, [2]string{o, q.Descriptions[i]})
	}
	return map[string]any{"type": "choice", "instructions": q.Instructions, "criteria": crit}
}

// orderedCriteria marshals choice criteria as an object in option order
// (map order would sort the labels, and order is part of the contract).
type orderedCriteria [][2]string

func (c orderedCriteria) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, kv := range c {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(kv[0])
		v, _ := json.Marshal(kv[1])
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// DecisionsFile is /laya decisions: the questions in laya-trainer's
// .laya/decisions.json format (bool is "noul" there).
func DecisionsFile() ([]byte, error) {
	dec := orderedObject{}
	for _, q := range Questions() {
		dec = append(dec, kv{q.ID, q.wire()})
	}
	doc := orderedObject{
		{"description", "Relay adaptive execution intelligence: task profile, capability tier, effort, agent, tools and validation for a coding request."},
		{"language", "auto"},
		{"decisions", dec},
	}
	return marshalIndent(doc)
}

type kv struct {
	K string
	V any
}

// orderedObject is a JSON object that keeps its key order.
type orderedObject []kv

func (o orderedObject) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, e := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(e.K)
		v, err := marshalJSON(e.V)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// ValidateLabel checks one learned label against its question and returns
// it normalised: a choice label, an int level, or a bool.
func ValidateLabel(id string, v any) (any, error) {
	q, ok := questionByID(id)
	if !ok {
		return nil, fmt.Errorf("%s is not a question", id)
	}
	bad := fmt.Errorf("%s: %s is not a valid answer", id, describeValue(v))
	switch q.Type {
	case QChoice:
		s, ok := v.(string)
		if !ok || indexOf(q.Options, s) < 0 {
			return nil, bad
		}
		return s, nil
	case QScore:
		f, ok := toFloat(v)
		if !ok || f != math.Trunc(f) || f < 0 || int(f) >= q.Levels() {
			return nil, bad
		}
		return int(f), nil
	default:
		b, ok := v.(bool)
		if !ok {
			return nil, bad
		}
		return b, nil
	}
}

// ValidateLabels checks a full label set: every question answered, no
// extras. Problems come back one per line, sorted.
func ValidateLabels(labels map[string]any) (map[string]any, []string) {
	out := map[string]any{}
	var problems []string
	for _, id := range QuestionIDs() {
		v, ok := labels[id]
		if !ok {
			problems = append(problems, id+": missing")
			continue
		}
		n, err := ValidateLabel(id, v)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		out[id] = n
	}
	for id := range labels {
		if _, ok := questionByID(id); !ok {
			problems = append(problems, id+": not a question")
		}
	}
	sort.Strings(problems)
	return out, problems
}

func describeValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
