package layaauto

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/laya"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/toolsearch"
)

// Driver is laya/auto on the runtime: the router, the plan made for the
// prompt being sent, the tool baseline under toolRouting enforce, the
// learn session and the Docker runtime. It registers on the runtime's seam
// (Attach); the runtime never calls it by name.
type Driver struct {
	opts   Options
	rt     Runtime
	router *laya.Router
	docker *laya.Docker // nil when relay does not manage a container
	models app.Models   // the registry without the virtual model

	mu             sync.Mutex
	pending        *pendingPlan
	baseline       []string // active tools before enforce deactivated some
	routed         *llm.Model
	routedLevel    llm.ThinkingLevel
	routeErr       error
	statusLine     string
	notice         string // the latest "why Laya is not running" notice
	progress       string // Docker install/training progress
	lessonsFor     string // user entry id whose lessons were checked
	learn          *laya.LearnSession
	learned        string // the last laya_learn success text
	training       bool
	retrieved      *retrieved       // tools laya.toolRetrieval activated
	retrievalStats *retrievalStats  // counted for tool-retrieval.jsonl
	toolIndex      toolsearch.Cache // BM25 index of the deferred tools
}

// pendingPlan is the plan routePrompt made for the prompt being sent.
type pendingPlan struct {
	state       *laya.State
	deactivated []string
}

// branchView is what the router needs from the active branch.
type branchView struct {
	state      *laya.State // latest router state entry
	current    bool        // state was stored after the latest user request
	userText   string      // latest real user request
	userID     string
	userTime   int64
	planned    bool // a laya.plan message follows the user request
	lessoned   bool // a laya.lessons message follows it
	failures   int  // failed tool results + verification requests since it
	evidence   int  // verification requests since it
	lastFailed *llm.AssistantMessage
	learning   bool          // a [laya:learn] request follows the user request
	since      []llm.Message // messages after the user request
	physical   string        // latest physical model selection, provider/id
}

// viewBranch scans the branch once. Only the entries from the latest
// real user request on are decoded as messages; before it, only model
// changes and router state matter, and those need no message decoding (a
// resumed session may hold tens of thousands of messages).
func viewBranch(entries []*session.Entry) (v branchView) {
	physical := ""
	defer func() { v.physical = physical }()
	start := 0
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Type != session.TypeMessage || e.Role() != llm.RoleUser {
			continue
		}
		if m, _ := e.Message(); m != nil {
			if um, ok := m.(*llm.UserMessage); ok && !laya.IsHarnessText(um.Content.PlainText()) {
				start = i
				break
			}
		}
	}
	for _, e := range entries[:start] {
		if mc := e.ModelChange(); mc != nil {
			if mc.Provider != laya.Provider {
				physical = mc.Provider + "/" + mc.ModelID
			}
		} else if c := e.Custom(); c != nil && c.CustomType == laya.StateCustomType {
			var se laya.StateEntry
			if json.Unmarshal(c.Data, &se) == nil && se.State != nil {
				v.state = se.State
			}
		}
	}
	for _, e := range entries[start:] {
		if mc := e.ModelChange(); mc != nil {
			if mc.Provider != laya.Provider {
				physical = mc.Provider + "/" + mc.ModelID
			}
			continue
		}
		if c := e.Custom(); c != nil && c.CustomType == laya.StateCustomType {
			var se laya.StateEntry
			if json.Unmarshal(c.Data, &se) == nil && se.State != nil {
				v.state, v.current = se.State, v.userID != ""
			}
			continue
		}
		if cm := e.CustomMessage(); cm != nil {
			switch cm.CustomType {
			case laya.PlanCustomType:
				v.planned = true
			case laya.LessonsCustomType:
				v.lessoned = true
			}
			continue
		}
		m, _ := e.Message()
		if m == nil {
			continue
		}
		switch m := m.(type) {
		case *llm.UserMessage:
			text := m.Content.PlainText()
			if laya.IsHarnessText(text) {
				if strings.HasPrefix(strings.TrimSpace(text), "[laya:learn]") {
					v.learning = true
				}
				if strings.HasPrefix(strings.TrimSpace(text), "[harness:evidence]") {
					v.failures++
					v.evidence++
				}
				v.since = append(v.since, m)
				continue
			}
			v = branchView{state: v.state, userText: text, userID: e.ID, userTime: m.Timestamp}
		case *llm.ToolResultMessage:
			if m.IsError {
				v.failures++
			}
			v.since = append(v.since, m)
		case *llm.AssistantMessage:
			v.lastFailed = nil
			if m.StopReason == llm.StopError {
				v.lastFailed = m
			}
			v.since = append(v.since, m)
		default:
			v.since = append(v.since, m)
		}
	}
	return v
}

// layaModels adds the virtual model to the registry the runtime sees. Its
// client streams with the model the router chose last (compaction and
// other requests made with the selected model), or reports why routing
// failed.
type layaModels struct {
	app.Models
	ls *Driver
}

func (m layaModels) Find(provider, id string) *llm.Model {
	if provider == laya.Provider && id == laya.AutoID {
		return m.ls.autoModel()
	}
	return m.Models.Find(provider, id)
}

// Available offers laya/auto only when it can route: some model of the
// Laya registry has credentials. Otherwise picking it (or cycling onto it)
// would only lead to a failing prompt.
func (m layaModels) Available() []*llm.Model {
	avail := m.Models.Available()
	if len(m.ls.router.Candidates()) == 0 {
		return avail
	}
	return append(avail, m.ls.autoModel())
}

// autoModel is laya/auto with the context window and output limit of the
// smallest model it may route to, so compaction thresholds hold whichever
// model runs the next request.
func (ls *Driver) autoModel() *llm.Model {
	am := laya.AutoModel()
	window, out := 0, 0
	for _, c := range ls.router.Candidates() {
		if w := c.Model.ContextWindow; w > 0 && (window == 0 || w < window) {
			window = w
		}
		if o := c.Model.MaxTokens; o > 0 && (out == 0 || o < out) {
			out = o
		}
	}
	if window > 0 {
		am.ContextWindow = window
	}
	if out > 0 {
		am.MaxTokens = out
	}
	return am
}

func (m layaModels) physical() (*llm.Model, llm.ThinkingLevel, error) {
	m.ls.mu.Lock()
	routed, level, err := m.ls.routed, m.ls.routedLevel, m.ls.routeErr
	m.ls.mu.Unlock()
	if err != nil {
		return nil, "", err
	}
	if routed != nil {
		return routed, level, nil
	}
	return m.ls.router.Direct()
}

func (m layaModels) Client(model *llm.Model) (llm.Client, error) {
	if !laya.IsAutoModel(model) {
		return m.Models.Client(model)
	}
	phys, _, err := m.physical()
	if err != nil {
		return failingClient{err}, nil
	}
	c, err := m.Models.Client(phys)
	if err != nil {
		return nil, err
	}
	return routedClient{inner: c, model: phys}, nil
}

func (m layaModels) Auth(ctx context.Context, model *llm.Model) (string, map[string]string, error) {
	if !laya.IsAutoModel(model) {
		return m.Models.Auth(ctx, model)
	}
	phys, _, err := m.physical()
	if err != nil {
		return "", nil, nil
	}
	return m.Models.Auth(ctx, phys)
}

// routedClient sends a request made with laya/auto to the physical model.
type routedClient struct {
	inner llm.Client
	model *llm.Model
}

func (c routedClient) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	r := *req
	r.Model = c.model
	r.ThinkingLevel = c.model.ClampThinkingLevel(req.ThinkingLevel)
	return c.inner.Stream(ctx, &r, emit)
}

// failingClient reports a routing error as a failed response.
type failingClient struct{ err error }

func (c failingClient) Stream(_ context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	return llm.NewMessageBuilder(req.Model, emit).Fail(&llm.ProviderError{Kind: llm.ErrInvalidRequest, Message: c.err.Error()})
}

// registerLearnTool adds laya_learn to the tool registry (not active: the
// /laya learn command activates it).
func (d *Driver) registerLearnTool() {
	ls := d
	t := &laya.LearnTool{
		Home: ls.router.Config().Home, Now: d.opts.Now,
		Current: func() *laya.LearnSession {
			ls.mu.Lock()
			defer ls.mu.Unlock()
			return ls.learn
		},
		Collect: func() []laya.Task { return laya.ExtractTasks(d.rt.Session().Branch(""), ls.router.Registry()) },
		OnSaved: func(res laya.MergeResult, train bool) string {
			status := d.trainAfterLearn(train)
			ls.mu.Lock()
			ls.learned = fmt.Sprintf("Laya learned %d tasks (%d new, %d updated; %d session tasks in the dataset).", res.Added+res.Updated, res.Added, res.Updated, res.SessionTasks)
			ls.mu.Unlock()
			return status
		},
	}
	if d.opts.Tools != nil {
		d.opts.Tools.Replace(t)
	}
}

// trainAfterLearn starts a background training after labels were saved,
// when the Laya server runs; it returns the status line for the tool.
func (d *Driver) trainAfterLearn(train bool) string {
	ls := d
	const memory = "The memory routes similar requests from the next one on."
	if !train {
		return memory
	}
	if ls.docker == nil {
		return memory + " Not training: relay manages no Laya container (laya.autostart is off or laya.baseUrl is remote)."
	}
	if st, _ := ls.docker.State(); st != laya.StateReady {
		return memory + " Not training: the Laya server is not installed yet (run /laya setup, then /laya train)."
	}
	ls.mu.Lock()
	busy := ls.training
	ls.training = true
	ls.mu.Unlock()
	if busy {
		return memory + " A training is already running; run /laya train when it ends to include these tasks."
	}
	go func() {
		defer func() { ls.mu.Lock(); ls.training = false; ls.mu.Unlock() }()
		ctx := context.Background()
		img := ls.docker.ImageName(ctx)
		if !ls.docker.GPUAvailable(ctx, img) {
			ls.router.Notice("Laya: training without an NVIDIA GPU can take an hour or more; run /laya train --yes to start it.")
			return
		}
		res, err := ls.docker.Train(ctx, true)
		ls.router.Notice(trainReport(res, err))
	}()
	return memory + " Training started in the background (relay-laya-train); /laya models shows its progress."
}

// trainReport is the one-line outcome of a training.
func trainReport(res *laya.TrainResult, err error) string {
	if err != nil {
		return "Laya training failed: " + err.Error()
	}
	o := res.Outcome
	s := "Laya trained " + res.Model
	if o.Test != nil {
		s += fmt.Sprintf(": held-out test %.1f%% (current %.1f%%)", o.Test.Candidate.Accuracy()*100, o.Test.Current.Accuracy()*100)
	}
	if o.Focus != nil {
		s += fmt.Sprintf(", session tasks %d/%d right (before %d/%d)", o.Focus.Candidate.Correct, o.Focus.Candidate.N, o.Focus.Current.Correct, o.Focus.Current.N)
	}
	if res.Activated {
		return s + "; it routes requests from now on."
	}
	return s + "; kept the current model (the new one answered more than 1% fewer test questions)."
}

// setupDocker creates the Docker runtime for a local laya.baseUrl with
// laya.autostart, and installs it in the background for interactive
// sessions (progress in the status line; one notice when Docker is
// missing).
func (d *Driver) setupDocker(st *settings.Settings, cfg laya.Config) {
	if !st.Laya.Autostart || !laya.IsLocalURL(cfg.BaseURL) {
		return
	}
	if kind, _, err := laya.ParseClassifier(cfg.Classifier); err != nil || kind != laya.ClassifierLaya {
		// Another classifier answers: the System One container is not
		// needed (and never pulled for it).
		return
	}
	dk := laya.NewDocker(cfg.Home, cfg.BaseURL, st.Laya.Image, d.opts.Version)
	dk.Progress = func(s string) {
		d.mu.Lock()
		d.progress = s
		d.mu.Unlock()
	}
	d.docker = dk
	d.router.SetServerBusy(dk.Busy)
	// Offline: no automatic image pull or start; /laya start still works.
	if d.opts.Interactive && !d.opts.Env.Offline {
		go func() {
			if err := dk.Ensure(context.Background()); err != nil {
				d.router.Notice(err.Error())
			}
		}()
	}
}
