// Package app is the runtime shared by every mode: it wires the agent loop
// to the session, the models, the tools, the harness and compaction, and
// owns the system prompt and the slash-command logic.
package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/commands"
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/tool"
)

// Models is what the runtime needs from the model registry.
type Models interface {
	// Client returns the wire client for a model's API.
	Client(m *llm.Model) (llm.Client, error)
	// Auth resolves the API key and extra headers for a model.
	Auth(ctx context.Context, m *llm.Model) (apiKey string, headers map[string]string, err error)
	// Find returns a model by provider and id.
	Find(provider, id string) *llm.Model
	// Available lists the models that have credentials.
	Available() []*llm.Model
}

// Config holds everything the runtime is built from. The CLI fills it from
// settings and flags.
type Config struct {
	// Env is the environment read once by the CLI.
	Env      config.Env
	Cwd      string
	AgentDir string
	Session  *session.Manager
	Models   Models
	Model    *llm.Model // may be nil until one is chosen
	Thinking llm.ThinkingLevel
	// DefaultModel picks the model to use when a session's recorded model
	// cannot be restored (nil = keep the current one).
	DefaultModel func() *llm.Model
	// DefaultThinking (settings defaultThinkingLevel; "" = medium) is the
	// level a switch from a model without reasoning to one with it starts at.
	DefaultThinking llm.ThinkingLevel
	Tools           *tool.Registry
	// Active is the selection of tools declared to the model, shared with
	// what changes it (tool_search, MCP, Laya, extensions); nil = none.
	Active *tool.Active
	// Hooks is the seam features registered on before the runtime was
	// built (the harness core, Laya, extensions); nil = a fresh one.
	Hooks *hooks.Set
	// Resources holds the loaded skills and prompt templates (nil = none).
	Resources *Resources
	// HTTPClient carries provider requests (nil = the default client);
	// the httpProxy setting makes one.
	HTTPClient *llm.HTTPClient
	// Commands is the slash-command registry features registered on; nil
	// = a fresh one. The runtime adds its built-ins.
	Commands *commands.Registry

	CustomPrompt string
	AppendPrompt []string
	NoContext    bool

	Compaction       compaction.Settings
	CompactionFor    func(provider, modelID string) compaction.Settings
	BranchReserve    int
	Retry            agent.RetryPolicy
	ProviderRetries  int
	ProviderMaxDelay time.Duration
	IdleTimeout      time.Duration
	// Transport and WebsocketConnectTimeout are the settings transport and
	// websocketConnectTimeoutMs, for clients that can use a websocket.
	Transport               string
	WebsocketConnectTimeout time.Duration
	CacheRetention          llm.CacheRetention
	ThinkingBudgets         map[llm.ThinkingLevel]int
	SteeringMode            string
	FollowUpMode            string

	Now func() time.Time
}

// ScopedModel is one entry of the model cycle.
type ScopedModel struct {
	Model    *llm.Model
	Thinking llm.ThinkingLevel // "" = keep
}

// BashResult is the outcome of a user shell command.
type BashResult struct {
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode,omitempty"`
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// Runtime is one live session with its agent.
type Runtime struct {
	cfg Config

	mu          sync.Mutex
	sess        *session.Manager
	model       *llm.Model
	thinking    llm.ThinkingLevel
	active      *tool.Active
	subs        map[int]func(agent.Event)
	nextSub     int
	emitMu      sync.Mutex
	agent       *agent.Agent
	compacting  bool
	autoCompact bool
	lastPrompt  time.Time
	hooks       *hooks.Set
	runSystem   string // before_agent_start's system prompt for this run
	cmds        *commands.Registry
	res         *Resources // skills and prompt templates (resources.go)
}

// ErrNoModel is returned when a prompt is sent without a usable model.
var ErrNoModel = errors.New("no model selected: use --model, /model or set defaultProvider/defaultModel in settings.json")

// New builds a runtime.
func New(cfg Config) (*Runtime, error) {
	if cfg.Session == nil {
		return nil, errors.New("new runtime: no session")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Tools == nil {
		cfg.Tools, _ = tool.NewRegistry()
	}
	if cfg.Hooks == nil {
		cfg.Hooks = hooks.New()
	}
	if cfg.Commands == nil {
		cfg.Commands = commands.New()
	}
	r := &Runtime{cfg: cfg, sess: cfg.Session, model: cfg.Model, thinking: cfg.Thinking, active: cfg.Active,
		subs: map[int]func(agent.Event){}, autoCompact: cfg.Compaction.Enabled, hooks: cfg.Hooks, cmds: cfg.Commands}
	r.registerCore()
	if err := r.registerCommands(); err != nil {
		return nil, fmt.Errorf("new runtime: %w", err)
	}
	if cfg.Resources == nil {
		cfg.Resources = NewResources(nil)
	}
	r.res = cfg.Resources
	r.res.bind(r.cmds)
	if r.model != nil {
		r.thinking = r.model.ClampThinkingLevel(r.thinking)
	}
	r.agent = agent.New(agent.Options{
		Stream:       r.stream,
		ExecuteTool:  r.executeTool,
		Persist:      r.persist,
		Emit:         r.emit,
		Hooks:        r.agentHooks(),
		Retry:        cfg.Retry,
		SteeringMode: cfg.SteeringMode,
		FollowUpMode: cfg.FollowUpMode,
		Now:          cfg.Now,
	})
	r.hooks.SessionStart.Notify(context.Background(), &hooks.SessionChange{Reason: hooks.ReasonStartup, Session: r.sess, File: r.sess.SessionFile()})
	return r, nil
}

// Subscribe registers fn for every event; the returned func removes it.
// Events are delivered in order from one goroutine at a time.
func (r *Runtime) Subscribe(fn func(agent.Event)) func() {
	r.mu.Lock()
	id := r.nextSub
	r.nextSub++
	r.subs[id] = fn
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.subs, id)
		r.mu.Unlock()
	}
}

func (r *Runtime) emit(e agent.Event) {
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	r.mu.Lock()
	fns := make([]func(agent.Event), 0, len(r.subs))
	for i := 0; i < r.nextSub; i++ {
		if fn, ok := r.subs[i]; ok {
			fns = append(fns, fn)
		}
	}
	r.mu.Unlock()
	for _, fn := range fns {
		fn(e)
	}
}

// Session returns the open session.
func (r *Runtime) Session() *session.Manager {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sess
}

// currentModel returns the selected model (nil when none).
func (r *Runtime) currentModel() *llm.Model {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.model
}

// thinkingLevel returns the effective thinking level.
func (r *Runtime) thinkingLevel() llm.ThinkingLevel {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.thinking
}

// IsStreaming reports whether a run is active.
func (r *Runtime) isStreaming() bool { return r.agent.IsRunning() }

// IsCompacting reports whether a compaction is running.
func (r *Runtime) isCompacting() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.compacting
}

// AutoCompaction reports and sets automatic compaction.
func (r *Runtime) autoCompaction() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.autoCompact }

func (r *Runtime) now() int64 { return r.cfg.Now().UnixMilli() }

func (r *Runtime) persist(m llm.Message) error {
	sess := r.Session()
	if _, err := sess.AppendMessage(m); err != nil {
		// The message stays in the session in memory; the agent stops
		// the run on this error.
		return &agent.PersistError{Path: sess.SessionFile(), Err: err}
	}
	return nil
}

// UserMessage builds a user message from text and images.
func (r *Runtime) userMessage(text string, images []llm.ImageContent) llm.Message {
	if len(images) == 0 {
		return &llm.UserMessage{Content: llm.StringContent(text), Timestamp: r.now()}
	}
	blocks := llm.Blocks{&llm.TextContent{Text: text}}
	for i := range images {
		img := images[i]
		blocks = append(blocks, &img)
	}
	return &llm.UserMessage{Content: llm.BlockContent(blocks...), Timestamp: r.now()}
}

// Prompt sends text as the next user message and blocks until the agent
// has settled (tool turns, queued messages, retries and recovery done).
func (r *Runtime) Prompt(ctx context.Context, text string, images []llm.ImageContent) error {
	text, _ = r.expandCommand(text)
	if r.currentModel() == nil {
		return ErrNoModel
	}
	in, handled := r.hooks.RunInput(ctx, hooks.Input{Text: text, Images: images, Source: "interactive"})
	if handled {
		return nil
	}
	text, images = in.Text, in.Images
	r.maybeCompact(ctx, "threshold")
	// Routers (Laya's laya/auto) plan the prompt; a failure stops it.
	if _, _, err := r.hooks.RunRoute(ctx, hooks.Route{Model: r.currentModel(), ThinkingLevel: r.thinkingLevel(), Reason: hooks.RouteUser, Prompt: text}); err != nil {
		return err
	}
	if err := r.syncSystem(); err != nil {
		return err
	}
	if err := r.beforeAgentStart(ctx, text, images); err != nil {
		return err
	}
	defer r.setRunSystemPrompt("")
	msg := r.userMessage(text, images)
	err := r.agent.Run(ctx, msg)
	if errors.Is(err, agent.ErrBusy) {
		return fmt.Errorf("prompt: %w", err)
	}
	return err
}

// Steer queues text for delivery before the next model call.
func (r *Runtime) Steer(text string, images []llm.ImageContent) {
	text, _ = r.expandCommand(text)
	in, handled := r.hooks.RunInput(context.Background(), hooks.Input{Text: text, Images: images, Source: "interactive", StreamingBehavior: "steer"})
	if handled {
		return
	}
	r.agent.Steer(r.userMessage(in.Text, in.Images))
}

// FollowUp queues text for when the agent would otherwise stop.
func (r *Runtime) FollowUp(text string, images []llm.ImageContent) {
	text, _ = r.expandCommand(text)
	in, handled := r.hooks.RunInput(context.Background(), hooks.Input{Text: text, Images: images, Source: "interactive", StreamingBehavior: "followUp"})
	if handled {
		return
	}
	r.agent.FollowUp(r.userMessage(in.Text, in.Images))
}

// Abort stops the current run and waits until idle.
func (r *Runtime) Abort() { r.agent.Abort() }

// Close tells the seam relay is quitting (session_shutdown) and releases
// the session file.
func (r *Runtime) Close() error {
	r.agent.Abort()
	r.hooks.SessionShutdown.Notify(context.Background(), &hooks.SessionChange{Reason: hooks.ReasonQuit, Session: r.Session(), File: r.Session().SessionFile()})
	return r.Session().Close()
}

// ContextMessages returns the model-visible messages of the active branch.
func (r *Runtime) ContextMessages() []llm.Message {
	return r.Session().BuildSessionContext().Messages
}

// activeSpecs returns the declarations of the active tools.
func (r *Runtime) activeSpecs() []llm.ToolSpec {
	r.mu.Lock()
	names := r.active.Names()
	r.mu.Unlock()
	if len(names) == 0 {
		// Registry.Specs() with no names means "all"; no active tools
		// means none (-nt, -nbt, defaultTools: []).
		return nil
	}
	return r.cfg.Tools.Specs(names...)
}

func (r *Runtime) promptInputs() PromptInputs {
	in := PromptInputs{Cwd: r.cfg.Cwd, AgentDir: r.cfg.AgentDir, CustomPrompt: r.cfg.CustomPrompt,
		Append: r.cfg.AppendPrompt, Tools: r.activeSpecs(), Now: r.cfg.Now(), Skills: r.loadedSkills()}
	if !r.cfg.NoContext {
		in.ContextFiles = LoadContextFiles(r.cfg.AgentDir, r.cfg.Cwd)
	}
	in.ExtraRules, in.ExtraSections = r.hooks.PromptAdditions(context.Background(), r.cfg.Cwd)
	return in
}

// syncSystem persists a system message when the wanted prompt or tools
// differ from what the branch declares (context files are re-read each
// time).
func (r *Runtime) syncSystem() error {
	_, err := r.syncSystemOn(r.ContextMessages())
	return err
}

// syncSystemOn is syncSystem on already built context messages; it returns
// them with the persisted patch, if any, so the request needs no rebuild.
func (r *Runtime) syncSystemOn(msgs []llm.Message) ([]llm.Message, error) {
	in := r.promptInputs()
	want := BuildSections(in)
	state := llm.ReplaySystem(msgs)
	if patch := SystemPatch(&state, want, in.Tools, r.now()); patch != nil {
		if _, err := r.Session().AppendMessage(patch); err != nil {
			return msgs, fmt.Errorf("persist system prompt: %w", err)
		}
		msgs = append(msgs[:len(msgs):len(msgs)], patch)
	}
	return msgs, nil
}

// request builds the provider request from the active branch.
func (r *Runtime) request(ctx context.Context) (*llm.Request, llm.Client, error) {
	model, thinking := r.currentModel(), r.thinkingLevel()
	if r.hooks.Route.Has() {
		res, ok, err := r.hooks.RunRoute(ctx, hooks.Route{Model: model, ThinkingLevel: thinking, Reason: hooks.RouteContinuation})
		if err != nil {
			return nil, nil, err
		}
		if ok {
			model, thinking = res.Model, res.ThinkingLevel
		}
	}
	if model == nil {
		return nil, nil, &requestError{llm.ErrInvalidRequest, ErrNoModel}
	}
	client, err := r.cfg.Models.Client(model)
	if err != nil {
		return nil, nil, &requestError{llm.ErrInvalidRequest, err}
	}
	key, headers, err := r.cfg.Models.Auth(ctx, model)
	if err != nil {
		var pe *llm.ProviderError
		if !errors.As(err, &pe) {
			err = &requestError{llm.ErrAuth, err}
		}
		return nil, nil, err
	}
	// One context build per request: the system prompt is synced on it
	// (context files are re-read every time) after the router had its say.
	msgs, err := r.syncSystemOn(r.ContextMessages())
	if err != nil {
		return nil, nil, err
	}
	state := llm.ReplaySystem(msgs)
	var visible []llm.Message
	for _, m := range msgs {
		if a, ok := m.(*llm.AssistantMessage); ok && (a.StopReason == llm.StopError || a.StopReason == llm.StopAborted) {
			continue
		}
		visible = append(visible, m)
	}
	modelMsgs := r.hooks.RunContext(ctx, model, llm.ToModelMessages(visible))
	retention := r.cfg.CacheRetention
	if retention == "" {
		retention = llm.CacheShort
	}
	req := &llm.Request{
		Model:           model,
		SystemPrompt:    state.Prompt(),
		Messages:        modelMsgs,
		Tools:           state.Tools,
		ThinkingLevel:   thinking,
		CacheRetention:  retention,
		SessionID:       r.Session().SessionID(),
		APIKey:          key,
		Headers:         headers,
		ThinkingBudgets: r.cfg.ThinkingBudgets,
		MaxRetries:      r.cfg.ProviderRetries,
		MaxRetryDelay:   r.cfg.ProviderMaxDelay,
		IdleTimeout:     r.cfg.IdleTimeout,
		HTTPClient:      r.cfg.HTTPClient,
		Transport:       r.cfg.Transport,

		WebsocketConnectTimeout: r.cfg.WebsocketConnectTimeout,
	}
	req.OnPayload, req.OnHeaders, req.OnResponse = r.hooks.Wire(ctx, model)
	if sys := r.runSystemPrompt(); sys != "" {
		req.SystemPrompt = sys
	}
	r.withSystem(ctx, req, state)
	return req, client, nil
}

func (r *Runtime) stream(ctx context.Context, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	req, client, err := r.request(ctx)
	if err != nil {
		return r.failure(err)
	}
	if r.hooks.StreamEvent.Has() {
		inner := emit
		emit = func(e llm.AssistantEvent) {
			r.hooks.StreamEvent.Notify(ctx, &hooks.StreamEvent{Event: e})
			inner(e)
		}
	}
	sent := r.cfg.Now()
	msg := client.Stream(ctx, req, emit)
	if msg.ThinkingLevel == "" && req.Model.Reasoning {
		msg.ThinkingLevel = string(req.ThinkingLevel)
	}
	r.hooks.AssistantEnd.Notify(ctx, &hooks.AssistantEnd{Message: msg, Request: req, SentAt: sent})
	return msg
}

// failure is the failed response for a request that could not be built,
// classified by its cause: a provider error keeps its kind (a missing key
// is ErrAuth), a router or session failure is ErrOther, no model or an
// unknown API is ErrInvalidRequest.
func (r *Runtime) failure(err error) *llm.AssistantMessage {
	m := r.currentModel()
	kind := llm.ErrOther
	var pe *llm.ProviderError
	var re *requestError
	switch {
	case errors.As(err, &pe):
		kind = pe.Kind
	case errors.As(err, &re):
		kind = re.kind
	}
	msg := &llm.AssistantMessage{Content: llm.Blocks{}, StopReason: llm.StopError, ErrorMessage: err.Error(), Timestamp: r.now(),
		Err: &llm.ProviderError{Kind: kind, Message: err.Error()}}
	if m != nil {
		msg.API, msg.Provider, msg.Model = m.API, m.Provider, m.ID
	}
	return msg
}

func (r *Runtime) executeTool(ctx context.Context, call *llm.ToolCall, update func(agent.ToolOutcome)) agent.ToolOutcome {
	t, ok := r.cfg.Tools.Get(call.Name)
	active := false
	for _, n := range r.active.Names() {
		if n == call.Name {
			active = true
		}
	}
	if !ok || !active {
		return agent.ToolOutcome{Content: llm.Blocks{&llm.TextContent{Text: fmt.Sprintf("Tool %s not found", call.Name)}}, IsError: true}
	}
	args := call.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res := t.Execute(ToolContext(tool.WithCallID(ctx, call.ID), r), args, func(p tool.Result) { update(toOutcome(p)) })
	return toOutcome(res)
}

// ToolContext returns ctx carrying what a tool learns about the run that
// calls it: the model, thinking level and session (tool.Turn) and the
// open session (session.FromContext). The runtime executes every tool
// under it; so does a feature that runs a tool itself (an extension's
// ctx.executeTool).
func ToolContext(ctx context.Context, r *Runtime) context.Context {
	st, s := r.State(), r.Session()
	t := tool.Turn{Model: st.Model, ThinkingLevel: st.ThinkingLevel, SessionID: st.SessionID, SessionFile: st.SessionFile}
	return session.NewContext(tool.WithTurn(ctx, t), s)
}

func toOutcome(r tool.Result) agent.ToolOutcome {
	out := agent.ToolOutcome{Content: r.Content, IsError: r.IsError, Terminate: r.Terminate}
	if r.Details != nil {
		if raw, ok := r.Details.(json.RawMessage); ok {
			out.Details = raw
		} else if b, err := llm.Marshal(r.Details); err == nil && string(b) != "null" {
			out.Details = b
		}
	}
	return out
}

// agentHooks maps the agent loop's places onto the seam. A point with no
// handler is skipped by the loop.
func (r *Runtime) agentHooks() agent.Hooks {
	return agent.Hooks{
		BeforeToolCall: func(ctx context.Context, call *llm.ToolCall) (bool, string) {
			if !r.hooks.ToolCall.Has() {
				return false, ""
			}
			res := r.hooks.RunToolCall(ctx, hooks.ToolCall{Call: call, ParentToolCallID: agent.ParentToolCallID(ctx)})
			return res.Block, res.Reason
		},
		AfterToolCall: func(call *llm.ToolCall, res *llm.ToolResultMessage) {
			r.hooks.ToolResult.Notify(context.Background(), &hooks.ToolResult{Call: call, Result: res})
		},
		AfterAssistant: r.beforeSettle,
		BetweenTurns:   func(ctx context.Context) { r.hooks.TurnEnd.Notify(ctx, &hooks.TurnEnd{}) },
		Overflow: func(ctx context.Context, failed *llm.AssistantMessage) bool {
			return r.hooks.RunOverflow(ctx, hooks.Overflow{Failed: failed})
		},
	}
}

// registerCore puts the core's own participants on the seam: threshold
// and overflow compaction, and the report of failed handlers as
// extension_error events.
func (r *Runtime) registerCore() {
	prev := r.hooks.OnError
	r.hooks.OnError = func(e *hooks.HandlerError) {
		if prev != nil {
			prev(e)
		}
		r.emit(agent.Event{Type: agent.ExtensionError, ExtensionPath: e.Source, Event: e.Event, Error: e.Err.Error()})
	}
	r.hooks.TurnEnd.On("compaction", func(ctx context.Context, _ *hooks.TurnEnd) (hooks.None, error) {
		r.maybeCompact(ctx, "threshold")
		return hooks.None{}, nil
	})
	r.hooks.Overflow.On("compaction", func(ctx context.Context, e *hooks.Overflow) (hooks.OverflowResult, error) {
		return hooks.OverflowResult{Recovered: r.recoverOverflow(ctx, e.Failed)}, nil
	})
}

// requestError is a request that could not be built, with its kind.
type requestError struct {
	kind llm.ErrorKind
	err  error
}

func (e *requestError) Error() string { return e.err.Error() }
func (e *requestError) Unwrap() error { return e.err }

// beforeAgentStart runs the before_agent_start point: messages handlers
// return are recorded before the prompt, and a replaced system prompt
// holds for this run's requests.
func (r *Runtime) beforeAgentStart(ctx context.Context, text string, images []llm.ImageContent) error {
	if !r.hooks.BeforeAgentStart.Has() {
		return nil
	}
	state := llm.ReplaySystem(r.ContextMessages())
	current := state.Prompt()
	msgs, sys := r.hooks.RunBeforeAgentStart(ctx, hooks.BeforeAgentStart{Prompt: text, Images: images, SystemPrompt: current})
	for _, m := range msgs {
		if _, err := r.Session().AppendMessage(m); err != nil {
			return fmt.Errorf("before_agent_start: %w", err)
		}
	}
	if sys != current {
		r.setRunSystemPrompt(sys)
	}
	return nil
}

func (r *Runtime) setRunSystemPrompt(s string) { r.mu.Lock(); r.runSystem = s; r.mu.Unlock() }

func (r *Runtime) runSystemPrompt() string { r.mu.Lock(); defer r.mu.Unlock(); return r.runSystem }

// allow asks a session_before_* point; a cancel becomes the operation's
// error, naming the handler's reason.
func (r *Runtime) allow(p *hooks.Point[hooks.SessionChange, hooks.CancelResult], reason hooks.SessionReason, target string) error {
	if !p.Has() {
		return nil
	}
	res := hooks.RunCancel(context.Background(), p, hooks.SessionChange{Reason: reason, Session: r.Session(), File: r.Session().SessionFile(), TargetID: target})
	if !res.Cancel {
		return nil
	}
	if res.Reason == "" {
		res.Reason = "cancelled by a " + p.Name() + " handler"
	}
	return fmt.Errorf("%s: %s", p.Name(), res.Reason)
}
