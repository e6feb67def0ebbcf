package layaauto

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/laya"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/llm/llamacpp"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tool"
)

// Config resolves the router configuration from settings (the API key
// from LAYA_API_KEY; New prefers a stored credential). The base URL is
// laya.baseUrl, else LAYA_BASE_URL, else laya.md's 127.0.0.1:8737 (the
// Docker generation; settings.md's 8000 default belongs to the older
// host-Python generation).
func Config(st *settings.Settings, agentDir string, env config.Env) laya.Config {
	l := st.Laya
	base := l.BaseURL
	if base == "" {
		base = env.LayaBaseURL
	}
	if base == "" {
		base = laya.DefaultBaseURL
	}
	// laya.classifier "llama.cpp[/<model>]" asks the llama.cpp server of
	// the llama.cpp provider (LLAMA_BASE_URL, LLAMA_API_KEY).
	root, err := llamacpp.NormalizeURL(cmpOr(env.LlamaBaseURL, llamacpp.DefaultURL))
	if err != nil {
		root = llamacpp.DefaultURL
	}
	return laya.Config{
		Classifier: l.Classifier, Llama: laya.LlamaConfig{Root: root, APIKey: env.LlamaAPIKey},
		LibraryMinConfidence: libraryMinConfidence(env),
		Home:                 filepath.Join(agentDir, "laya"), BaseURL: base, APIKey: env.LayaAPIKey,
		Registry: l.Models, Quota: l.Quota, Policy: l.Policy, MinConfidence: l.MinConfidence,
		EscalateAfterFailures: l.EscalateAfterFailures, ToolRouting: l.ToolRouting, Telemetry: l.Telemetry,
		FollowProvider: l.FollowProvider, ModelGroups: l.ModelGroups,
		Memory: l.Memory, Timeout: time.Duration(l.TimeoutMs) * time.Millisecond,
	}
}

// libraryMinConfidence reads LAYA_LIBRARY_MIN_CONFIDENCE (0..1; anything
// else leaves the default).
func libraryMinConfidence(env config.Env) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(env.Get("LAYA_LIBRARY_MIN_CONFIDENCE")), 64)
	if err != nil || f < 0 || f > 1 {
		return 0
	}
	return f
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Options configure a Driver.
type Options struct {
	Settings *settings.Settings
	AgentDir string
	Cwd      string
	Env      config.Env
	// PolicyFlag is --laya-policy ("" = none).
	PolicyFlag string
	// Interactive sessions with laya.autostart install the Docker runtime
	// in the background (never when Env.Offline).
	Interactive bool
	// Version is relay's, for the image tag.
	Version string
	// Tools is the registry laya_learn joins (not active until /laya learn).
	Tools *tool.Registry
	// Active is the runtime's tool selection, which routing narrows and
	// tool retrieval widens (nil: a selection of the driver's own).
	Active *tool.Active
	// Resources are the loaded skills the plan may name (nil = none).
	Resources *app.Resources
	Now       func() time.Time
}

// New builds the driver from settings. models is the registry without the
// virtual model; the runtime is built with Models() instead.
func New(o Options, models app.Models) *Driver {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Active == nil {
		o.Active = tool.NewActive(nil)
	}
	cfg := Config(o.Settings, o.AgentDir, o.Env)
	// A stored credential for the laya provider wins over LAYA_API_KEY.
	if models != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if key, _, err := models.Auth(ctx, &llm.Model{Provider: laya.Provider, ID: laya.ClassifierModelID, API: "typesafe-system-one"}); err == nil && key != "" {
			cfg.APIKey = key
		}
		cancel()
	}
	d := &Driver{opts: o, models: models}
	// The plan names up to three loaded skills relevant to the request.
	cfg.Skills = func() []laya.Skill {
		var out []laya.Skill
		set := o.Resources.Get()
		if set == nil {
			return nil
		}
		for _, s := range set.Skills {
			if !s.DisableModelInvocation {
				out = append(out, laya.Skill{Name: s.Name, Description: s.Description})
			}
		}
		return out
	}
	d.router = laya.New(cfg, models)
	if o.PolicyFlag != "" {
		d.router.SetFlagProfile(o.PolicyFlag)
	}
	d.registerLearnTool()
	d.setupDocker(o.Settings, cfg)
	return d
}

// NewWithRouter is New around a router built elsewhere (tests).
func NewWithRouter(o Options, models app.Models, router *laya.Router) *Driver {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Active == nil {
		o.Active = tool.NewActive(nil)
	}
	d := &Driver{opts: o, models: models, router: router}
	d.registerLearnTool()
	return d
}

// Models is the registry with laya/auto added, for app.Config.Models.
func (d *Driver) Models() app.Models { return layaModels{Models: d.models, ls: d} }

// Model resolves the laya/auto placeholder chooseModel picked to the
// virtual model with the limits of the models it routes to.
func (d *Driver) Model(m *llm.Model) *llm.Model {
	if laya.IsAutoModel(m) {
		return d.autoModel()
	}
	return m
}

// Attach puts the driver on the runtime's seam: it plans each prompt and
// routes each request (Route), notes failures (message_end), records
// telemetry when a routed run ends, shows its status, stops a training
// when relay quits, and registers /laya.
func (d *Driver) Attach(rt Runtime, h *hooks.Set, cmds *commands.Registry) error {
	d.rt = rt
	h.Route.On(laya.Provider, func(ctx context.Context, e *hooks.Route) (hooks.RouteResult, error) {
		if e.Reason == hooks.RouteUser {
			return hooks.RouteResult{}, d.routePrompt(ctx, e.Prompt)
		}
		m, level := d.requestModel()
		return hooks.RouteResult{Model: m, ThinkingLevel: level}, nil
	})
	h.AssistantEnd.On(laya.Provider, func(_ context.Context, e *hooks.AssistantEnd) (hooks.None, error) {
		d.router.NoteFailure(e.Message)
		return hooks.None{}, nil
	})
	h.Status.On(laya.Provider, func(context.Context, *hooks.StatusQuery) (hooks.StatusResult, error) {
		return d.status(), nil
	})
	h.SessionShutdown.On(laya.Provider, func(context.Context, *hooks.SessionChange) (hooks.None, error) {
		d.shutdown()
		return hooks.None{}, nil
	})
	rt.Subscribe(func(e agent.Event) {
		if e.Type == agent.AgentEnd && !e.WillRetry {
			d.recordTelemetry()
		}
	})
	return cmds.Register(commands.Command{Name: "laya", Description: "Adaptive routing: status, setup, learn, models, policy",
		Source: commands.Builtin, Complete: completeSub,
		Run: func(ctx context.Context, args string) (commands.Output, error) {
			text, err := d.command(ctx, args)
			return commands.Output{Text: text}, err
		}})
}

// completeSub offers the /laya subcommands.
func completeSub(prefix string) []commands.Completion {
	var out []commands.Completion
	for _, s := range []string{"status", "setup", "start", "stop", "learn", "train", "models", "use", "policy", "decisions", "seed", "export"} {
		if strings.HasPrefix(s, prefix) {
			out = append(out, commands.Completion{Value: s})
		}
	}
	return out
}

// shutdown stops a running Laya training (training stops when relay
// quits); the server container keeps running between sessions.
func (d *Driver) shutdown() {
	if d.docker == nil {
		return
	}
	d.mu.Lock()
	training := d.training
	d.mu.Unlock()
	if training || d.docker.Training() != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		d.docker.StopTraining(ctx)
	}
}

// Router returns the router.
func (d *Driver) Router() *laya.Router { return d.router }

func (d *Driver) auto() bool { return laya.IsAutoModel(d.rt.State().Model) }

// status is the status-line part: lines() plus the latest "why Laya is
// not running" notice, both only while laya/auto is selected (people who
// never select it are not told that its server is down).
func (d *Driver) status() hooks.StatusResult {
	if ns := d.router.Notices(); len(ns) > 0 {
		d.mu.Lock()
		d.notice = ns[len(ns)-1]
		d.mu.Unlock()
	}
	line, footer := d.lines()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.notice != "" && line != "" {
		line += " · " + d.notice
	}
	return hooks.StatusResult{Line: line, Footer: footer}
}

// lines returns the status line ("laya balanced: bug_fix → fast
// claude-haiku-4-5 • minimal (rules)", plus Docker progress) and the footer
// text for the selected model ("laya/auto → claude-haiku-4-5 • minimal");
// both are "" unless laya/auto is selected.
func (d *Driver) lines() (status, footer string) {
	if !d.auto() {
		return "", ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	status = d.statusLine
	if done, total := d.router.ClassifierProgress(); total > 0 {
		// The llama.cpp classifier asks its questions one by one: the
		// status line counts them while the prompt waits.
		if status != "" {
			status += " · "
		}
		status += fmt.Sprintf("laya: classifying with llama.cpp %d/%d", done, total)
	}
	if d.progress != "" {
		if status != "" {
			status += " · "
		}
		status += d.progress
	}
	footer = laya.Footer(nil)
	if d.routed != nil {
		footer = fmt.Sprintf("%s/%s → %s • %s", laya.Provider, laya.AutoID, d.routed.ID, d.routedLevel)
	}
	return status, footer
}

// restoreTools puts back the tools toolRouting enforce deactivated.
func (d *Driver) restoreLayaTools(ls *Driver) {
	ls.mu.Lock()
	base := ls.baseline
	ls.baseline = nil
	ls.mu.Unlock()
	if base != nil {
		d.opts.Active.Set(base)
	}
}

// routePrompt runs before a user prompt is sent (after the harness saw it):
// with laya/auto selected it assesses the request, applies the policy,
// selects the model and, under toolRouting enforce, deactivates the tools
// the request does not need.
func (d *Driver) routePrompt(ctx context.Context, text string) error {
	ls := d
	d.restoreRetrieved()
	d.restoreLayaTools(ls)
	if !laya.IsAutoModel(d.rt.State().Model) || laya.IsHarnessText(text) {
		return nil
	}
	ls.router.Follow(viewBranch(d.rt.Session().Branch("")).physical)
	a := ls.router.Assess(ctx, text)
	st, err := ls.router.Plan(text, a)
	if err != nil {
		return err
	}
	active := d.opts.Active.Names()
	deact := ls.router.UnneededTools(st, active)
	if len(deact) > 0 {
		drop := map[string]bool{}
		for _, n := range deact {
			drop[n] = true
		}
		var keep []string
		for _, n := range active {
			if !drop[n] {
				keep = append(keep, n)
			}
		}
		d.opts.Active.Set(keep)
	}
	d.retrieveTools(text)
	ls.mu.Lock()
	if len(deact) > 0 {
		ls.baseline = active
	}
	ls.pending = &pendingPlan{state: st, deactivated: deact}
	ls.mu.Unlock()
	return nil
}

// requestModel is the physical model and thinking level for the next
// request: the selected model, or with laya/auto the routed one. The first
// request of a task stores the router state on the branch and the hidden
// [laya:plan] message after the user's message (persisted, so the prompt
// cache prefix stays stable for the rest of the session); later requests
// escalate after repeated failures or move to another provider after a
// quota error.
func (d *Driver) requestModel() (*llm.Model, llm.ThinkingLevel) {
	ls := d
	if !laya.IsAutoModel(d.rt.State().Model) {
		d.attachLessons(ls)
		st := d.rt.State()
		return st.Model, st.ThinkingLevel
	}
	m, level, err := d.route(ls)
	ls.mu.Lock()
	ls.routeErr = err
	if err == nil {
		ls.routed, ls.routedLevel = m, level
	}
	ls.mu.Unlock()
	if err != nil {
		// The virtual model's client reports err as a failed response.
		st := d.rt.State()
		return st.Model, st.ThinkingLevel
	}
	return m, level
}

func (d *Driver) route(ls *Driver) (*llm.Model, llm.ThinkingLevel, error) {
	sess := d.rt.Session()
	v := viewBranch(sess.Branch(""))
	router := ls.router
	router.Follow(v.physical)
	if v.userText == "" || v.learning {
		// No user request behind this one (or /laya learn's labeling):
		// no task, no state.
		return router.Direct()
	}
	st := v.state
	var next *laya.State
	var err error
	newTask := st == nil || !v.current
	switch {
	case newTask:
		ls.mu.Lock()
		p := ls.pending
		ls.pending = nil
		ls.mu.Unlock()
		var deact []string
		if p != nil && p.state.Request == laya.ClipRequest(v.userText) {
			next, deact = p.state, p.deactivated
		} else {
			// A steering or follow-up message: plan it now (no tool
			// changes mid-run).
			ctx, cancel := context.WithTimeout(context.Background(), laya.DefaultTimeout+laya.HealthTimeout)
			a := router.Assess(ctx, v.userText)
			cancel()
			if next, err = router.Plan(v.userText, a); err != nil {
				return nil, "", err
			}
		}
		if !v.planned {
			if _, err := sess.AppendCustom(laya.StateCustomType, laya.StateEntry{Provider: laya.Provider, ModelID: laya.AutoID, State: next}); err != nil {
				return nil, "", err
			}
			text := router.PlanFor(next, deact)
			if _, err := sess.AppendCustomMessage(laya.PlanCustomType, llm.StringContent(text), false,
				map[string]any{"assessment": next.Assessment, "policy": next.Policy, "deactivated": deact}); err != nil {
				return nil, "", err
			}
		}
		st, next = next, nil
	case v.lastFailed != nil:
		next, err = router.Retry(st, v.lastFailed)
	default:
		next, err = router.Continue(st, v.failures, v.evidence)
	}
	if err != nil {
		return nil, "", err
	}
	if next != nil {
		if _, err := sess.AppendCustom(laya.StateCustomType, laya.StateEntry{Provider: laya.Provider, ModelID: laya.AutoID, State: next}); err != nil {
			return nil, "", err
		}
		st = next
	}
	router.Observe(st)
	ls.mu.Lock()
	ls.statusLine = laya.StatusLine(st)
	ls.mu.Unlock()
	return router.Resolve(st)
}

// attachLessons adds a hidden [laya:lessons] message after a new user
// request when the user picked a model and similar learned tasks carry
// lessons.
func (d *Driver) attachLessons(ls *Driver) {
	if ls.router.Memory() == nil {
		return
	}
	sess := d.rt.Session()
	v := viewBranch(sess.Branch(""))
	ls.mu.Lock()
	seen := v.userID == "" || v.userID == ls.lessonsFor
	ls.lessonsFor = v.userID
	ls.mu.Unlock()
	if seen || v.lessoned {
		return
	}
	if text := ls.router.Lessons(v.userText); text != "" {
		_, _ = sess.AppendCustomMessage(laya.LessonsCustomType, llm.StringContent("[laya:lessons] "+text), false, nil)
	}
}

// recordTelemetry writes one record when a routed run of the current task
// ends.
func (d *Driver) recordTelemetry() {
	if !d.auto() {
		return
	}
	ls := d
	v := viewBranch(d.rt.Session().Branch(""))
	st := v.state
	if st == nil || v.userText == "" || !v.current || v.learning {
		return
	}
	rec := laya.TelemetryRecord{TaskID: st.TaskID, Timestamp: d.opts.Now().UTC().Format(time.RFC3339Nano), Request: st.Request,
		Classification: laya.NewClassification(st.Assessment),
		Policy:         laya.TelemetryPolicy{Profile: st.Profile, RequiredTier: st.Policy.RequiredTier.String(), Rules: st.Policy.Rules},
		Result:         laya.RunResult{Outcome: "completed", Attempts: st.Attempts, Escalations: st.Escalations},
	}
	p, id, _ := laya.SplitRef(st.Model)
	rec.Selected = laya.Selected{Provider: p, Model: id, Tier: st.Tier.String(), ThinkingLevel: string(st.ThinkingLevel)}
	calls := map[string]*llm.ToolCall{}
	var invoked []string
	seenModel := map[string]bool{}
	var lastTS int64
	for _, m := range v.since {
		switch m := m.(type) {
		case *llm.AssistantMessage:
			rec.Usage.Tokens += m.Usage.Input + m.Usage.Output + m.Usage.CacheRead + m.Usage.CacheWrite
			rec.Usage.Cost += m.Usage.Cost.Total
			ref := m.Provider + "/" + m.Model
			if m.Provider != "" && !seenModel[ref] {
				seenModel[ref] = true
				rec.Usage.Models = append(rec.Usage.Models, ref)
			}
			for _, tc := range m.ToolCalls() {
				calls[tc.ID] = tc
				invoked = append(invoked, tc.Name)
			}
			switch m.StopReason {
			case llm.StopError:
				rec.Result.Outcome = "error"
			case llm.StopAborted:
				rec.Result.Outcome = "aborted"
			default:
				rec.Result.Outcome = "completed"
			}
			lastTS = m.Timestamp
		case *llm.ToolResultMessage:
			if m.IsError {
				rec.Result.ToolFailures++
			}
			if tc := calls[m.ToolCallID]; tc != nil && tc.Name == "bash" {
				var args struct {
					Command string `json:"command"`
				}
				if json.Unmarshal(tc.Arguments, &args) == nil && laya.IsCheckCommand(args.Command) {
					ok := !m.IsError
					rec.Result.TestsPassed = &ok
				}
			}
		}
	}
	d.recordRetrieval(invoked)
	if rec.Usage.Models == nil {
		rec.Usage.Models = []string{}
	}
	if lastTS > 0 && v.userTime > 0 {
		rec.Usage.DurationMs = lastTS - v.userTime
	}
	rec.Result.Success = laya.RunSucceeded(rec.Result)
	_ = ls.router.Record(rec)
}

// layaUsage lists the /laya subcommands.
const layaUsage = "Usage: /laya [status|setup|start|stop|learn [session file]|train [--yes]|models|use <model>|policy <profile>|decisions [path]|seed [count] [path]|export [path]]"

// LayaCommand runs /laya [sub] and returns the text to show. learn sends
// the labeling request to the agent and returns when it has settled.
func (d *Driver) command(ctx context.Context, args string) (string, error) {
	ls := d
	fields := strings.Fields(args)
	sub, rest := "status", []string(nil)
	if len(fields) > 0 {
		sub, rest = fields[0], fields[1:]
	}
	path := func(def string) string {
		p := def
		if len(rest) > 0 {
			p = rest[len(rest)-1]
		}
		return config.ResolvePath(d.opts.Cwd, p)
	}
	switch sub {
	case "status":
		return d.statusText(), nil
	case "setup", "start":
		if ls.docker == nil {
			return "", fmt.Errorf("relay manages a Laya container only for a local laya.baseUrl with laya.autostart on")
		}
		if err := ls.docker.Ensure(ctx); err != nil {
			return "", err
		}
		return fmt.Sprintf("Laya is running (%s, model %s).", ls.docker.ImageName(ctx), ls.docker.ActiveModel()), nil
	case "stop":
		if ls.docker == nil {
			return "", fmt.Errorf("relay manages no Laya container in this configuration")
		}
		if err := ls.docker.Stop(ctx); err != nil {
			return "", err
		}
		return "Stopped the relay-laya container; the next relay start runs it again.", nil
	case "learn":
		return d.learnCommand(ctx, strings.Join(rest, " "))
	case "train":
		return d.train(ctx, len(rest) > 0 && (rest[0] == "--yes" || rest[0] == "-y"))
	case "models":
		return d.modelsText(), nil
	case "use":
		if len(rest) != 1 {
			return "", fmt.Errorf("usage: /laya use <model>")
		}
		if ls.docker == nil {
			return "", fmt.Errorf("relay manages no Laya container in this configuration")
		}
		if err := ls.docker.Use(ctx, rest[0]); err != nil {
			return "", err
		}
		return "Laya routes with " + rest[0] + " now.", nil
	case "policy":
		if len(rest) == 0 {
			return "Laya policy: " + ls.router.Profile().Name, nil
		}
		if err := ls.router.SetSessionProfile(rest[0]); err != nil {
			return "", err
		}
		return "Laya policy for this session: " + rest[0], nil
	case "decisions":
		p := path(filepath.Join(".laya", "decisions.json"))
		b, err := laya.DecisionsFile()
		if err != nil {
			return "", err
		}
		if err := writeFile(p, b); err != nil {
			return "", err
		}
		return fmt.Sprintf("Wrote %d questions to %s.", len(laya.QuestionIDs()), p), nil
	case "seed":
		count := laya.DefaultSeedCount
		if len(rest) > 0 {
			var n int
			if _, err := fmt.Sscanf(rest[0], "%d", &n); err == nil && fmt.Sprint(n) == rest[0] {
				if n <= 0 {
					return "", fmt.Errorf("seed count must be a positive integer")
				}
				count, rest = n, rest[1:]
			} else if len(rest) > 1 {
				return "", fmt.Errorf("seed count must be a positive integer")
			}
		}
		p := path(filepath.Join(".laya", "data", "relay-seed.jsonl"))
		if err := laya.WriteJSONL(p, laya.SeedRows(count)); err != nil {
			return "", err
		}
		return fmt.Sprintf("Wrote %d synthetic exercises to %s.", count, p), nil
	case "export":
		recs, err := laya.ReadTelemetry(laya.TelemetryPath(ls.router.Config().Home))
		if err != nil {
			return "", err
		}
		rows := laya.ExportRows(recs)
		p := path(filepath.Join(".laya", "data", "relay-telemetry.jsonl"))
		if err := laya.WriteJSONL(p, rows); err != nil {
			return "", err
		}
		return fmt.Sprintf("Wrote %d exercises from telemetry to %s.", len(rows), p), nil
	}
	return "", fmt.Errorf("unknown /laya command %q. %s", sub, layaUsage)
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// layaLearn is /laya learn [session file]: it numbers the tasks, activates
// laya_learn and asks the agent to label them.
func (d *Driver) learnCommand(ctx context.Context, file string) (string, error) {
	ls := d
	entries := d.rt.Session().Branch("")
	source := d.rt.Session().SessionFile()
	if source == "" {
		source = d.rt.Session().SessionID()
	}
	if file != "" {
		p := config.ResolvePath(d.opts.Cwd, file)
		m, err := session.Load(p)
		if err != nil {
			return "", fmt.Errorf("read session %s: %w", p, err)
		}
		entries, source = m.Branch(""), p
	}
	tasks := laya.ExtractTasks(entries, ls.router.Registry())
	if len(tasks) == 0 {
		return "No requests to learn from in this session.", nil
	}
	ls.mu.Lock()
	ls.learn = &laya.LearnSession{Session: source, Tasks: tasks}
	ls.learned = ""
	ls.mu.Unlock()
	active := d.opts.Active.Names()
	has := false
	for _, n := range active {
		has = has || n == laya.LearnToolName
	}
	if !has {
		d.opts.Active.Set(append(active, laya.LearnToolName))
	}
	if err := d.sendLayaText(ctx, laya.LearnPrompt(tasks, file)); err != nil {
		return "", err
	}
	ls.mu.Lock()
	done := ls.learned
	ls.mu.Unlock()
	if done == "" {
		return fmt.Sprintf("Sent %d tasks to the agent; nothing was saved yet.", len(tasks)), nil
	}
	return done, nil
}

// sendLayaText sends relay's own [laya:...] request as a prompt. The
// harness reads "[laya:...]" texts as relay's, not the developer's words,
// so its "do not change any file" never becomes a standing constraint.
func (d *Driver) sendLayaText(ctx context.Context, text string) error {
	if d.rt.State().Model == nil {
		return app.ErrNoModel
	}
	if err := d.rt.Prompt(ctx, text, nil); err != nil {
		return fmt.Errorf("laya learn: %w", err)
	}
	return nil
}

// train is /laya train.
func (d *Driver) train(ctx context.Context, confirmed bool) (string, error) {
	dk := d.docker
	if dk == nil {
		return "", fmt.Errorf("training needs Docker and the Laya image: relay manages no Laya container in this configuration")
	}
	img := dk.ImageName(ctx)
	gpu := dk.GPUAvailable(ctx, img)
	if !gpu && !confirmed {
		return "Training without an NVIDIA GPU can take an hour or more. Run /laya train --yes to start it.", nil
	}
	res, err := dk.Train(ctx, gpu)
	return trainReport(res, err), err
}

func (d *Driver) modelsText() string {
	ls := d
	var b strings.Builder
	active := laya.ShippedModel
	var reg laya.ModelRegistry
	if ls.docker != nil {
		active, reg = ls.docker.ActiveModel(), ls.docker.Registry()
	}
	mark := func(n string) string {
		if n == active {
			return " (active)"
		}
		return ""
	}
	fmt.Fprintf(&b, "Laya models:\n- %s: shipped%s\n", laya.ShippedModel, mark(laya.ShippedModel))
	for _, m := range reg.Models {
		test := ""
		if m.Test != nil {
			test = fmt.Sprintf(", test %.1f%% (base %.1f%%)", m.Test.Candidate.Accuracy()*100, m.Test.Current.Accuracy()*100)
		}
		fmt.Fprintf(&b, "- %s: from %s, %d session tasks%s, %s%s\n", m.Name, m.BasedOn, m.SessionTasks, test, m.Device, mark(m.Name))
	}
	rows, _ := laya.ReadDataset(laya.DatasetPath(ls.router.Config().Home))
	bySource := map[string]int{}
	for _, row := range rows {
		bySource[row.Source]++
	}
	fmt.Fprintf(&b, "Exercises: %d session, %d synthetic\n", bySource[laya.SourceSession], bySource[laya.SourceSynthetic])
	if ls.docker != nil {
		if p := ls.docker.Training(); p != nil {
			b.WriteString(p.String() + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func (d *Driver) statusText() string {
	ls := d
	router := ls.router
	cfg := router.Config()
	var b strings.Builder
	selected := "not selected (use /model laya/auto)"
	if laya.IsAutoModel(d.rt.State().Model) {
		selected = "selected"
	}
	fmt.Fprintf(&b, "Laya (laya/auto %s)\n", selected)
	fmt.Fprintf(&b, "Policy: %s (%s)\n", router.Profile().Name, router.ProfileSource())
	server := "keyword rules only"
	if cfg.BaseURL != "" {
		server = cfg.BaseURL
	}
	fmt.Fprintf(&b, "Server: %s", server)
	if ls.docker != nil {
		st, problem := ls.docker.State()
		fmt.Fprintf(&b, " (container %s: %s", laya.ServerContainer, st)
		if problem != "" {
			fmt.Fprintf(&b, ": %s", problem)
		}
		fmt.Fprintf(&b, "; routing model %s)", ls.docker.ActiveModel())
		if p := ls.docker.Training(); p != nil {
			fmt.Fprintf(&b, "\n%s", p)
		}
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "Classifier: %s\n", router.ClassifierStatus())
	if e := router.LastError(); e != "" {
		fmt.Fprintf(&b, "Last classifier error: %s\n", e)
	}
	var refs []string
	for _, c := range router.Candidates() {
		refs = append(refs, c.Tier.String()+":"+c.Ref)
	}
	if len(refs) == 0 {
		refs = []string{"none (log in to a provider or set laya.models)"}
	}
	fmt.Fprintf(&b, "Models with credentials: %s\n", strings.Join(refs, ", "))
	if unknown := router.UnknownRefs(); len(unknown) > 0 {
		fmt.Fprintf(&b, "Not in the model catalog (skipped): %s\n", strings.Join(unknown, ", "))
	}
	var quota []string
	seen := map[string]bool{}
	for _, c := range router.Candidates() {
		p := c.Model.Provider
		if !seen[p] {
			seen[p] = true
			quota = append(quota, fmt.Sprintf("%s %.0f%%", p, router.Quota().Available(p)*100))
		}
	}
	if len(quota) > 0 {
		fmt.Fprintf(&b, "Quota: %s\n", strings.Join(quota, ", "))
	}
	mem := "off"
	if m := router.Memory(); m != nil {
		mem = fmt.Sprintf("%d learned tasks", m.Size())
	}
	fmt.Fprintf(&b, "Memory: %s\n", mem)
	tel := "off"
	if cfg.Telemetry {
		tel = laya.TelemetryPath(cfg.Home)
	}
	fmt.Fprintf(&b, "Telemetry: %s\n", tel)
	if st := router.Last(); st != nil {
		fmt.Fprintf(&b, "Last plan: %s\n", laya.StatusLine(st))
		if len(st.Policy.Rules) > 0 {
			fmt.Fprintf(&b, "  rules: %s\n", strings.Join(st.Policy.Rules, ", "))
		}
		if len(st.Alternatives) > 0 {
			fmt.Fprintf(&b, "  alternatives: %s\n", strings.Join(st.Alternatives, ", "))
		}
		for _, e := range st.Escalations {
			fmt.Fprintf(&b, "  escalation: %s %s → %s\n", e.Reason, e.From, e.To)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// Runtime is what the driver needs from the runtime core.
type Runtime interface {
	Session() *session.Manager
	// State is the selected model and thinking level among the rest.
	State() app.State
	Subscribe(fn func(agent.Event)) func()
	Prompt(ctx context.Context, text string, images []llm.ImageContent) error
}
