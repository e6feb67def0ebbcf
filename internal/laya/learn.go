package laya

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/tool"
)

// /laya learn: collect each request of a session with the evidence of how
// it went, have the agent label it through the laya_learn tool, and save
// the labels as session exercises of dataset.jsonl.

// LearnToolName is the labeling tool.
const LearnToolName = "laya_learn"

// maxLearnTasks is how many of the newest tasks a learn session offers.
const maxLearnTasks = 60

// Planned is what laya/auto planned for a task.
type Planned struct {
	Type   string `json:"type"`
	Tier   string `json:"tier"`
	Effort string `json:"effort"`
	Source string `json:"source"`
}

// Task is one request of a session with its evidence.
type Task struct {
	Number       int            `json:"number"`
	Request      string         `json:"request"`
	Tools        map[string]int `json:"tools"`
	Files        []string       `json:"files"`
	Commands     []string       `json:"commands"`
	ToolFailures int            `json:"toolFailures"`
	Errors       []string       `json:"errors"`
	TestsPassed  *bool          `json:"testsPassed"`
	Outcome      string         `json:"outcome"`
	Models       []string       `json:"models"`
	Planned      *Planned       `json:"planned,omitempty"`
	Reply        string         `json:"reply,omitempty"`
	Next         string         `json:"next,omitempty"`
}

// seen reports whether the task already lists provider/model.
func (t *Task) seen(base string) bool {
	for _, m := range t.Models {
		if m == base || strings.HasPrefix(m, base+" ") {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// ExtractTasks lists the requests of a branch: each real user message
// opens a task; [laya:learn] groups are skipped. The newest 60 are kept.
// Models that reg (the tier registry, may be nil) lists carry their tier.
func ExtractTasks(entries []*session.Entry, reg map[Tier][]string) []Task {
	tierOf := map[string]Tier{}
	for t, refs := range reg {
		for _, ref := range refs {
			if _, seen := tierOf[ref]; !seen {
				tierOf[ref] = t
			}
		}
	}
	var tasks []Task
	var cur *Task
	var state *State
	calls := map[string]*llm.ToolCall{}
	skipping := false
	flush := func() {
		if cur != nil {
			tasks = append(tasks, *cur)
			cur = nil
		}
	}
	for _, e := range entries {
		if c := e.Custom(); c != nil && c.CustomType == StateCustomType {
			var se StateEntry
			if json.Unmarshal(c.Data, &se) == nil && se.State != nil {
				state = se.State
				if cur != nil && !skipping {
					a := se.State.Assessment
					cur.Planned = &Planned{Type: a.Task.Type, Tier: se.State.Tier.String(), Effort: a.Recommendation.Effort, Source: a.Source}
				}
			}
			continue
		}
		if cm := e.CustomMessage(); cm != nil && cm.CustomType == PlanCustomType && cur != nil && !skipping {
			var d struct {
				Assessment *Assessment `json:"assessment"`
				Policy     *Policy     `json:"policy"`
			}
			if json.Unmarshal(cm.Details, &d) == nil && d.Assessment != nil && cur.Planned == nil {
				p := &Planned{Type: d.Assessment.Task.Type, Tier: d.Assessment.Recommendation.Tier.String(),
					Effort: d.Assessment.Recommendation.Effort, Source: d.Assessment.Source}
				if d.Policy != nil {
					p.Tier, p.Effort = d.Policy.RequiredTier.String(), d.Policy.Effort
				}
				cur.Planned = p
			}
			continue
		}
		m, _ := e.Message()
		switch m := m.(type) {
		case *llm.UserMessage:
			text := m.Content.PlainText()
			if strings.HasPrefix(strings.TrimSpace(text), "[laya:learn]") {
				flush()
				skipping = true
				continue
			}
			if IsHarnessText(text) {
				continue
			}
			flush()
			if n := len(tasks); n > 0 && tasks[n-1].Next == "" {
				tasks[n-1].Next = clipRunes(text, 200)
			}
			skipping = false
			cur = &Task{Request: ClipRequest(text), Tools: map[string]int{}, Files: []string{}, Commands: []string{},
				Errors: []string{}, Models: []string{}, Outcome: "completed"}
		case *llm.AssistantMessage:
			if cur == nil || skipping {
				continue
			}
			base := m.Provider + "/" + m.Model
			if m.Provider != "" && !cur.seen(base) {
				ref := base
				if t, ok := tierOf[base]; ok {
					ref += " (" + t.String() + " tier)"
				} else if state != nil && state.Model == base {
					ref += " (" + state.Tier.String() + " tier)"
				}
				if m.ThinkingLevel != "" {
					ref += " • " + m.ThinkingLevel
				}
				cur.Models = append(cur.Models, ref)
			}
			for _, tc := range m.ToolCalls() {
				calls[tc.ID] = tc
				cur.Tools[tc.Name]++
				var args struct {
					Path     string `json:"path"`
					FilePath string `json:"file_path"`
					Command  string `json:"command"`
				}
				_ = json.Unmarshal(tc.Arguments, &args)
				switch tc.Name {
				case "edit", "write", "multi_edit", "notebook_edit":
					f := args.Path
					if f == "" {
						f = args.FilePath
					}
					if f != "" && indexOf(cur.Files, f) < 0 {
						cur.Files = append(cur.Files, f)
					}
				}
				if args.Command != "" {
					cur.Commands = append(cur.Commands, clipRunes(args.Command, 200))
				}
			}
			switch m.StopReason {
			case llm.StopError:
				cur.Outcome = "error"
			case llm.StopAborted:
				cur.Outcome = "aborted"
			default:
				cur.Outcome = "completed"
			}
			if t := strings.TrimSpace(m.Text()); t != "" {
				cur.Reply = clipRunes(t, 300)
			}
		case *llm.ToolResultMessage:
			if cur == nil || skipping {
				continue
			}
			if m.IsError {
				cur.ToolFailures++
				if line := firstLine(m.Content.PlainText()); line != "" && len(cur.Errors) < 3 {
					cur.Errors = append(cur.Errors, m.ToolName+": "+clipRunes(line, 160))
				}
			}
			if tc := calls[m.ToolCallID]; tc != nil && tc.Name == "bash" {
				var args struct {
					Command string `json:"command"`
				}
				if json.Unmarshal(tc.Arguments, &args) == nil && IsCheckCommand(args.Command) {
					ok := !m.IsError
					cur.TestsPassed = &ok
				}
			}
		}
	}
	flush()
	if len(tasks) > maxLearnTasks {
		tasks = tasks[len(tasks)-maxLearnTasks:]
	}
	for i := range tasks {
		tasks[i].Number = i + 1
	}
	return tasks
}

// Limits of a rendered task.
const (
	maxTaskFiles    = 12
	maxTaskCommands = 8
)

// renderTask is one task as the labeling agent reads it.
func renderTask(t Task) string {
	lines := []string{fmt.Sprintf("### Task %d", t.Number), "Request:", "<request>", t.Request, "</request>"}
	checks := "no checks ran"
	if t.TestsPassed != nil {
		checks = "checks failed"
		if *t.TestsPassed {
			checks = "checks passed"
		}
	}
	ran := strings.Join(t.Models, ", ")
	if ran == "" {
		ran = "no model answered"
	}
	lines = append(lines, fmt.Sprintf("Ran on: %s; outcome %s; %d failed tool calls; %s", ran, t.Outcome, t.ToolFailures, checks))
	if p := t.Planned; p != nil {
		lines = append(lines, fmt.Sprintf("Laya planned: %s, %s tier, %s effort (%s)", p.Type, p.Tier, p.Effort, p.Source))
	}
	names := make([]string, 0, len(t.Tools))
	for n := range t.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	tools := make([]string, len(names))
	for i, n := range names {
		tools[i] = fmt.Sprintf("%s×%d", n, t.Tools[n])
	}
	if len(tools) == 0 {
		tools = []string{"none"}
	}
	lines = append(lines, "Tools: "+strings.Join(tools, ", "))
	if n := len(t.Files); n > 0 {
		shown, more := t.Files, ""
		if n > maxTaskFiles {
			shown, more = t.Files[:maxTaskFiles], fmt.Sprintf(" and %d more", n-maxTaskFiles)
		}
		lines = append(lines, fmt.Sprintf("Files changed (%d): %s%s", n, strings.Join(shown, ", "), more))
	}
	if len(t.Commands) > 0 {
		cmds := t.Commands
		if len(cmds) > maxTaskCommands {
			cmds = cmds[:maxTaskCommands]
		}
		lines = append(lines, "Commands: "+strings.Join(cmds, " | "))
	}
	if len(t.Errors) > 0 {
		lines = append(lines, "Errors: "+strings.Join(t.Errors, " | "))
	}
	if t.Reply != "" {
		lines = append(lines, "Last reply: "+t.Reply)
	}
	if t.Next != "" {
		lines = append(lines, "Next user message: "+t.Next)
	}
	return strings.Join(lines, "\n")
}

// renderQuestions lists the questions with their answer options.
func renderQuestions() string {
	var lines []string
	for _, q := range Questions() {
		switch q.Type {
		case QChoice:
			opts := make([]string, len(q.Options))
			for i, o := range q.Options {
				opts[i] = fmt.Sprintf("%s (%s)", o, q.Descriptions[i])
			}
			lines = append(lines, fmt.Sprintf("- %s: %s One of: %s.", q.ID, q.Instructions, strings.Join(opts, "; ")))
		case QScore:
			levels := make([]string, len(q.Descriptions))
			for i, d := range q.Descriptions {
				levels[i] = fmt.Sprintf("%d %s", i, d)
			}
			lines = append(lines, fmt.Sprintf("- %s: %s An integer: %s.", q.ID, q.Instructions, strings.Join(levels, "; ")))
		default:
			lines = append(lines, fmt.Sprintf("- %s: %s true or false.", q.ID, q.Instructions))
		}
	}
	return strings.Join(lines, "\n")
}

// LearnPrompt is the [laya:learn] message that asks the agent to label the
// tasks of a session (source names another session file; "" = this one).
func LearnPrompt(tasks []Task, source string) string {
	of := "this session"
	if source != "" {
		of = "the session " + source
	}
	rendered := make([]string, len(tasks))
	for i, t := range tasks {
		rendered[i] = renderTask(t)
	}
	return "[laya:learn] Teach Laya, Relay's routing model, the tasks of " + of + ", so it routes similar requests better. Do not change any file and do not redo the tasks.\n\n" +
		"Laya reads a request and answers the questions below. Relay uses the answers to pick the model tier, the reasoning effort, the role, the tools and the validation for the request. For each task listed after the questions, decide the right answers from its evidence: what the task needed, not what was planned or what happened to run.\n\n" +
		"<questions>\n" + renderQuestions() + "\n</questions>\n\n" +
		"How to decide:\n" +
		"- capability_tier and reasoning_effort: the cheapest tier and the lowest effort that would have done the task right. A task that finished cleanly with no failed tool calls may have needed less than the tier that ran it if it was simple. A task that failed, needed many retries, was escalated, or was corrected in the next user message needed at least one tier more than the one that ran it.\n" +
		"- requires_*: what the task needed, with the tools and commands that ran as evidence. Changed files mean requires_write; test, type check, build or lint commands mean requires_tests; git commands mean requires_git; other commands mean requires_shell. A tool that ran without being needed does not count.\n" +
		"- scope: from the files changed and the request: one line or value, one file, one module, several modules, the whole repository, several repositories.\n" +
		"- complexity, risk, ambiguity, reasoning_requirement, validation_level, agent, task_type, security_sensitive: judge the request and what doing it right took.\n" +
		"- Leave out entries that are not tasks for a coding agent: greetings, thanks, or remarks about the conversation itself.\n\n" +
		"For each task, also write a lesson when the session taught something a model doing a similar task should know: the command that validated the result, where the change belongs, a mistake that cost a retry and how it was fixed, a convention the user asked for. Write it as advice for next time, in one to three sentences, in English, with concrete names (commands, paths, settings). Leave it out when there is nothing beyond the obvious. Never put secrets, tokens or personal data in a lesson.\n\n" +
		"Relay applies what you save at once: a new request similar to a learned task is routed with its labels, and the model that runs it reads its lesson. Training then teaches the routing model the same tasks.\n\n" +
		"<tasks>\n" + strings.Join(rendered, "\n\n") + "\n</tasks>\n\n" +
		"Then call the `" + LearnToolName + "` tool once, with one exercise per task you keep. It saves them and starts training. Finally reply, in the language the user writes in, with a short table (task, type, tier, effort, lesson in a few words) and what happens next."
}

// LearnSession holds the tasks offered by the last /laya learn.
type LearnSession struct {
	Session string // session file or id the tasks come from
	Tasks   []Task
}

// LearnTool is the laya_learn tool. Current returns the active learn
// session (nil before /laya learn); Collect lists the current session's
// tasks (for the error that numbers them); OnSaved may start training and
// returns its status line.
type LearnTool struct {
	Home    string
	Now     func() time.Time
	Current func() *LearnSession
	Collect func() []Task
	OnSaved func(res MergeResult, train bool) string

	mu sync.Mutex
}

// learnSchema is the tool's parameter schema, built on first use.
var learnSchema = sync.OnceValue(func() json.RawMessage {
	props := orderedObject{}
	var req []string
	for _, q := range Questions() {
		var s any
		switch q.Type {
		case QChoice:
			s = map[string]any{"type": "string", "enum": q.Options}
		case QScore:
			s = map[string]any{"type": "integer", "minimum": 0, "maximum": q.Levels() - 1}
		default:
			s = map[string]any{"type": "boolean"}
		}
		props = append(props, kv{q.ID, s})
		req = append(req, q.ID)
	}
	schema := orderedObject{
		{"type", "object"},
		{"properties", orderedObject{
			{"exercises", orderedObject{
				{"type", "array"}, {"minItems", 1},
				{"items", orderedObject{
					{"type", "object"},
					{"properties", orderedObject{
						{"task", map[string]any{"type": "integer", "minimum": 1, "description": "Task number from the [laya:learn] list"}},
						{"labels", orderedObject{{"type", "object"}, {"properties", props}, {"required", req}, {"additionalProperties", false}}},
						{"note", map[string]any{"type": "string", "description": "Why these labels (evidence)"}},
						{"lesson", map[string]any{"type": "string", "maxLength": 600, "description": "1-3 sentences a future model needs for this kind of task"}},
					}},
					{"required", []string{"task", "labels"}},
				}},
			}},
			{"train", map[string]any{"type": "boolean", "description": "Train Laya on the saved tasks (default true)"}},
		}},
		{"required", []string{"exercises"}},
	}
	raw, _ := marshalJSON(schema)
	return raw
})

// Spec declares laya_learn.
func (t *LearnTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: LearnToolName, Description: "Save Laya labels for the tasks listed by /laya learn (answers to Laya's questions per task, with an optional lesson), so laya/auto routes similar requests the way they needed.",
		Parameters: learnSchema()}
}

type learnArgs struct {
	Exercises []struct {
		Task   *int           `json:"task"`
		Labels map[string]any `json:"labels"`
		Note   string         `json:"note"`
		Lesson string         `json:"lesson"`
	} `json:"exercises"`
	Train *bool `json:"train"`
}

func numberedTasks(tasks []Task) string {
	var lines []string
	for _, t := range tasks {
		lines = append(lines, fmt.Sprintf("%d. %s", t.Number, clipRunes(strings.Join(strings.Fields(t.Request), " "), 100)))
	}
	if len(lines) == 0 {
		return "(no tasks)"
	}
	return strings.Join(lines, "\n")
}

// Execute validates every exercise, then saves them all (or nothing).
func (t *LearnTool) Execute(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) tool.Result {
	t.mu.Lock()
	defer t.mu.Unlock()
	ls := t.Current()
	if ls == nil {
		var tasks []Task
		if t.Collect != nil {
			tasks = t.Collect()
		}
		return tool.Errorf("Nothing saved: run /laya learn first, so the tasks are numbered. The tasks of this session are:\n%s", numberedTasks(tasks))
	}
	var args learnArgs
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&args); err != nil {
		return tool.Errorf("Nothing saved: arguments are not valid JSON: %v", err)
	}
	if len(args.Exercises) == 0 {
		return tool.Error("Nothing saved: exercises must hold at least one task")
	}
	var problems []string
	var ex []Exercise
	for i, e := range args.Exercises {
		if e.Task == nil {
			problems = append(problems, fmt.Sprintf("exercise %d: task is required", i+1))
			continue
		}
		n := *e.Task
		if n < 1 || n > len(ls.Tasks) {
			problems = append(problems, fmt.Sprintf("task %d: there is no such task (1 to %d)", n, len(ls.Tasks)))
			continue
		}
		labels, probs := ValidateLabels(e.Labels)
		for _, p := range probs {
			problems = append(problems, fmt.Sprintf("task %d: %s", n, p))
		}
		if len([]rune(e.Lesson)) > 600 {
			problems = append(problems, fmt.Sprintf("task %d: lesson is longer than 600 characters", n))
		}
		ex = append(ex, Exercise{Request: ls.Tasks[n-1].Request, Labels: labels, Note: e.Note, Lesson: strings.TrimSpace(e.Lesson), Session: ls.Session})
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return tool.Errorf("Nothing was saved. Fix these exercises and call %s again:\n- %s", LearnToolName, strings.Join(problems, "\n- "))
	}
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	path := DatasetPath(t.Home)
	res, err := MergeExercises(path, ex, now())
	if err != nil {
		return tool.Errorf("Nothing saved: %v", err)
	}
	train := args.Train == nil || *args.Train
	status := ""
	if t.OnSaved != nil {
		status = t.OnSaved(res, train)
	}
	text := fmt.Sprintf("Saved %d exercises (%d new, %d updated); %d session tasks in %s.", len(ex), res.Added, res.Updated, res.SessionTasks, path)
	if status != "" {
		text += "\n" + status
	}
	return tool.Result{Content: llm.Blocks{&llm.TextContent{Text: text}},
		Details: map[string]any{"added": res.Added, "updated": res.Updated, "training": status}}
}
