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
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/harness"
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
	Cwd      string
	AgentDir string
	Session  *session.Manager
	Models   Models
	Model    *llm.Model // may be nil until one is chosen
	Thinking llm.ThinkingLevel
	// DefaultThinking (settings defaultThinkingLevel; "" = medium) is the
	// level a switch from a model without reasoning to one with it starts at.
	DefaultThinking llm.ThinkingLevel
	// ScopedModels are the models Ctrl+P / cycle_model go through.
	ScopedModels []ScopedModel
	Tools        *tool.Registry
	ActiveTools  []string
	// Harness is the harness core (nil = off).
	Harness *harness.Core

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
	CacheRetention   llm.CacheRetention
	ThinkingBudgets  map[llm.ThinkingLevel]int
	SteeringMode     string
	FollowUpMode     string

	// BashEnv returns extra environment for user shell commands (!cmd).
	Shell func(ctx context.Context, command string, onChunk func(string)) (BashResult, error)

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
	active      []string
	subs        map[int]func(agent.Event)
	nextSub     int
	emitMu      sync.Mutex
	agent       *agent.Agent
	compacting  bool
	autoCompact bool
	bashCancel  context.CancelFunc
	lastPrompt  time.Time
	approver    Approver
	laya        *layaState
	res         resourceState // skills and prompt templates (resources.go)
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
	r := &Runtime{cfg: cfg, sess: cfg.Session, model: cfg.Model, thinking: cfg.Thinking, active: cfg.ActiveTools,
		subs: map[int]func(agent.Event){}, autoCompact: cfg.Compaction.Enabled}
	if r.model != nil {
		r.thinking = r.model.ClampThinkingLevel(r.thinking)
	}
	r.agent = agent.New(agent.Options{
		Stream:       r.stream,
		ExecuteTool:  r.executeTool,
		Persist:      r.persist,
		Emit:         r.emit,
		Hooks:        r.hooks(),
		Retry:        cfg.Retry,
		SteeringMode: cfg.SteeringMode,
		FollowUpMode: cfg.FollowUpMode,
		Now:          cfg.Now,
	})
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

// Model returns the selected model (nil when none).
func (r *Runtime) Model() *llm.Model {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.model
}

// ThinkingLevel returns the effective thinking level.
func (r *Runtime) ThinkingLevel() llm.ThinkingLevel {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.thinking
}

// Agent exposes queue and mode controls.
func (r *Runtime) Agent() *agent.Agent { return r.agent }

// IsStreaming reports whether a run is active.
func (r *Runtime) IsStreaming() bool { return r.agent.IsRunning() }

// IsCompacting reports whether a compaction is running.
func (r *Runtime) IsCompacting() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.compacting
}

// AutoCompaction reports and sets automatic compaction.
func (r *Runtime) AutoCompaction() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.autoCompact }

// SetAutoCompaction switches automatic compaction.
func (r *Runtime) SetAutoCompaction(on bool) { r.mu.Lock(); r.autoCompact = on; r.mu.Unlock() }

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
func (r *Runtime) UserMessage(text string, images []llm.ImageContent) llm.Message {
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
	text, _ = r.ExpandCommand(text)
	if r.Model() == nil {
		return ErrNoModel
	}
	if r.cfg.Harness != nil {
		r.cfg.Harness.OnUserMessage(text, true)
	}
	r.maybeCompact(ctx, "threshold")
	if err := r.routePrompt(ctx, text); err != nil {
		return err
	}
	if err := r.syncSystem(); err != nil {
		return err
	}
	msg := r.UserMessage(text, images)
	err := r.agent.Run(ctx, msg)
	if errors.Is(err, agent.ErrBusy) {
		return fmt.Errorf("prompt: %w", err)
	}
	return err
}

// Steer queues text for delivery before the next model call.
func (r *Runtime) Steer(text string, images []llm.ImageContent) {
	text, _ = r.ExpandCommand(text)
	if r.cfg.Harness != nil {
		r.cfg.Harness.OnUserMessage(text, false)
	}
	r.agent.Steer(r.UserMessage(text, images))
}

// FollowUp queues text for when the agent would otherwise stop.
func (r *Runtime) FollowUp(text string, images []llm.ImageContent) {
	text, _ = r.ExpandCommand(text)
	r.agent.FollowUp(r.UserMessage(text, images))
}

// Abort stops the current run and waits until idle.
func (r *Runtime) Abort() { r.agent.Abort() }

// Close releases the session file.
func (r *Runtime) Close() error {
	r.agent.Abort()
	return r.Session().Close()
}

// ContextMessages returns the model-visible messages of the active branch.
func (r *Runtime) ContextMessages() []llm.Message {
	return r.Session().BuildSessionContext().Messages
}

// LastAssistant returns the newest assistant message on the branch.
func (r *Runtime) LastAssistant() *llm.AssistantMessage {
	msgs := r.ContextMessages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if a, ok := msgs[i].(*llm.AssistantMessage); ok {
			return a
		}
	}
	return nil
}

// activeSpecs returns the declarations of the active tools.
func (r *Runtime) activeSpecs() []llm.ToolSpec {
	r.mu.Lock()
	names := append([]string(nil), r.active...)
	r.mu.Unlock()
	if len(names) == 0 {
		// Registry.Specs() with no names means "all"; no active tools
		// means none (-nt, -nbt, defaultTools: []).
		return nil
	}
	return r.cfg.Tools.Specs(names...)
}

// ActiveTools returns the names of the enabled tools.
func (r *Runtime) ActiveTools() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.active...)
}

// SetActiveTools changes the tool loadout; the next request persists it.
func (r *Runtime) SetActiveTools(names []string) {
	r.mu.Lock()
	r.active = append([]string(nil), names...)
	r.mu.Unlock()
}

func (r *Runtime) promptInputs() PromptInputs {
	in := PromptInputs{Cwd: r.cfg.Cwd, AgentDir: r.cfg.AgentDir, CustomPrompt: r.cfg.CustomPrompt,
		Append: r.cfg.AppendPrompt, Tools: r.activeSpecs(), Now: r.cfg.Now(), Skills: r.loadedSkills()}
	if !r.cfg.NoContext {
		in.ContextFiles = LoadContextFiles(r.cfg.AgentDir, r.cfg.Cwd)
	}
	if r.cfg.Harness != nil {
		in.ExtraRules = r.cfg.Harness.PromptGuidelines()
	}
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
	model, thinking := r.requestModel()
	if model == nil {
		return nil, nil, ErrNoModel
	}
	client, err := r.cfg.Models.Client(model)
	if err != nil {
		return nil, nil, err
	}
	key, headers, err := r.cfg.Models.Auth(ctx, model)
	if err != nil {
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
	modelMsgs := llm.ToModelMessages(visible)
	if r.cfg.Harness != nil {
		modelMsgs = r.cfg.Harness.PrepareRequest(modelMsgs)
	}
	modelMsgs = r.augmentRequest(modelMsgs)
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
	}
	return req, client, nil
}

func (r *Runtime) stream(ctx context.Context, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	req, client, err := r.request(ctx)
	if err != nil {
		return r.failure(err)
	}
	msg := client.Stream(ctx, req, emit)
	if msg.ThinkingLevel == "" && req.Model.Reasoning {
		msg.ThinkingLevel = string(req.ThinkingLevel)
	}
	r.observeAssistant(msg)
	return msg
}

func (r *Runtime) failure(err error) *llm.AssistantMessage {
	m := r.Model()
	msg := &llm.AssistantMessage{Content: llm.Blocks{}, StopReason: llm.StopError, ErrorMessage: err.Error(), Timestamp: r.now(),
		Err: &llm.ProviderError{Kind: llm.ErrAuth, Message: err.Error()}}
	if m != nil {
		msg.API, msg.Provider, msg.Model = m.API, m.Provider, m.ID
	}
	return msg
}

func (r *Runtime) executeTool(ctx context.Context, call *llm.ToolCall, update func(agent.ToolOutcome)) agent.ToolOutcome {
	t, ok := r.cfg.Tools.Get(call.Name)
	active := false
	for _, n := range r.ActiveTools() {
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
	res := t.Execute(ctx, args, func(p tool.Result) { update(toOutcome(p)) })
	return toOutcome(res)
}

func toOutcome(r tool.Result) agent.ToolOutcome {
	out := agent.ToolOutcome{Content: r.Content, IsError: r.IsError}
	if r.Details != nil {
		if raw, ok := r.Details.(json.RawMessage); ok {
			out.Details = raw
		} else if b, err := llm.Marshal(r.Details); err == nil && string(b) != "null" {
			out.Details = b
		}
	}
	return out
}

func (r *Runtime) hooks() agent.Hooks {
	h := agent.Hooks{
		BetweenTurns:  func(ctx context.Context) { r.maybeCompact(ctx, "threshold") },
		Overflow:      r.recoverOverflow,
		AfterToolCall: r.observeToolResult,
	}
	if hc := r.cfg.Harness; hc != nil {
		h.BeforeToolCall = func(ctx context.Context, call *llm.ToolCall) (bool, string) {
			var appr harness.Approver
			if a := r.Approver(); a != nil {
				appr = a
			}
			d := hc.BeforeToolCall(ctx, call, appr)
			return d.Block, d.Reason
		}
		h.AfterToolCall = func(call *llm.ToolCall, res *llm.ToolResultMessage) {
			hc.AfterToolCall(call, res)
			r.observeToolResult(call, res)
		}
		h.AfterAssistant = func(m *llm.AssistantMessage, _ []*llm.ToolResultMessage) (string, bool) { return hc.OnAssistantEnd(m) }
	}
	return h
}

// RestoreHarness rebuilds the harness state from the active branch (its
// constraints entry and messages), after resuming or moving in the tree.
func (r *Runtime) RestoreHarness() {
	hc := r.cfg.Harness
	if hc == nil {
		return
	}
	var data []byte
	for _, e := range r.Session().Branch("") {
		if c := e.Custom(); c != nil && c.CustomType == harness.CustomTypeConstraints {
			data = c.Data
		}
	}
	_ = hc.Restore(r.ContextMessages(), data)
}
