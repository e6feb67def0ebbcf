package ext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/models"
)

// ProviderRegistry is where registerProvider lands: the model registry
// (models.Registry), so the provider's models are found, listed and
// authenticated like any other.
type ProviderRegistry interface {
	RegisterProvider(models.ProviderConfig) error
	UnregisterProvider(name string) bool
}

// providerReg is one provider an extension registered.
type providerReg struct {
	src string
	key int64  // its synthetic key in m.regs
	api string // the api its streamSimple serves ("" without one)
}

// addProvider applies a registerProvider: the configuration goes to the
// model registry (validated there, errors name the key); a streamSimple
// serves every model of its api through the host.
func (m *Manager) addProvider(src string, it regItem) error {
	var p struct {
		Name         string          `json:"name"`
		Config       json.RawMessage `json:"config"`
		CustomStream bool            `json:"customStream"`
		OAuth        bool            `json:"oauth"`
	}
	if err := json.Unmarshal(it.Raw, &p); err != nil {
		return fmt.Errorf("registerProvider: %w", err)
	}
	var api struct {
		API string `json:"api"`
	}
	_ = json.Unmarshal(p.Config, &api)
	m.mu.Lock()
	prev := m.providers[p.Name]
	m.mu.Unlock()
	if p.CustomStream && api.API == "" && (prev == nil || prev.api == "") {
		return fmt.Errorf("registerProvider %q: api: required when registering streamSimple (the api its models name)", p.Name)
	}
	pc := models.ProviderConfig{Name: p.Name, Config: p.Config, OAuth: p.OAuth, Source: src}
	m.mu.Lock()
	reg := m.opts.Providers
	if reg == nil {
		// Before the registry exists (extensions preloaded for the trust
		// decision): applied by BindProviders.
		m.pendingProviders = append(m.pendingProviders, pc)
	}
	m.mu.Unlock()
	if reg != nil {
		if err := reg.RegisterProvider(pc); err != nil {
			return err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.providers == nil {
		m.providers = map[string]*providerReg{}
	}
	// A second registration of the name (this extension's or another's)
	// updates the first: its removal stays with the first.
	pr := prev
	if pr == nil {
		pr = &providerReg{src: src}
		m.synthetic--
		pr.key = m.synthetic
		name := p.Name
		m.regs[pr.key] = func() { m.dropProvider(name, pr) }
		m.providers[p.Name] = pr
	}
	if p.CustomStream {
		if api.API != "" {
			pr.api = api.API
		}
		if m.streamAPIs == nil {
			m.streamAPIs = map[string]string{}
		}
		m.streamAPIs[pr.api] = p.Name
	}
	return nil
}

// BindProviders gives the manager the model registry: the providers
// registered before it existed are applied now (a refused one is
// returned naming its extension and removed), later ones directly.
func (m *Manager) BindProviders(reg ProviderRegistry) []error {
	if m == nil || reg == nil {
		return nil
	}
	m.mu.Lock()
	if m.opts.Providers != nil {
		m.mu.Unlock()
		return nil
	}
	m.opts.Providers = reg
	pending := m.pendingProviders
	m.pendingProviders = nil
	m.mu.Unlock()
	var errs []error
	for _, pc := range pending {
		if err := reg.RegisterProvider(pc); err != nil {
			errs = append(errs, &LoadError{Path: pc.Source, Err: err})
			m.unregisterProvider(pc.Name)
		}
	}
	return errs
}

// dropProvider undoes a registration (unregisterProvider, a host that
// exited): the registry restores what it replaced. It runs under m.mu,
// as every entry of m.regs does.
func (m *Manager) dropProvider(name string, reg *providerReg) {
	if m.providers[name] != reg {
		return
	}
	delete(m.providers, name)
	if reg.api != "" && m.streamAPIs[reg.api] == name {
		delete(m.streamAPIs, reg.api)
	}
	if m.opts.Providers != nil {
		m.opts.Providers.UnregisterProvider(name)
	}
	m.pendingProviders = slices.DeleteFunc(m.pendingProviders, func(pc models.ProviderConfig) bool { return pc.Name == name })
}

// unregisterProvider is the host's unregisterProvider(name).
func (m *Manager) unregisterProvider(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if reg := m.providers[name]; reg != nil {
		if off := m.regs[reg.key]; off != nil {
			delete(m.regs, reg.key)
			off()
		}
	}
}

// streamClient returns the client of a model whose api an extension's
// streamSimple serves, or nil.
func (m *Manager) streamClient(model *llm.Model) llm.Client {
	if model == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if name, ok := m.streamAPIs[model.API]; ok {
		return &streamClient{m: m, provider: name}
	}
	return nil
}

// streamClient streams a request through an extension's streamSimple in
// the host. The extension's events are rebuilt into relay's message as
// they arrive; ctx's end aborts the extension's signal; a host that dies,
// a stream that stops making progress (the request's idle timeout) or
// grows past the answer bound ends the message with an error.
type streamClient struct {
	m        *Manager
	provider string
}

// hostEvent is one event of the extension's stream, as the host forwards
// it (without the partial message).
type hostEvent struct {
	Type         string          `json:"type"`
	ContentIndex int             `json:"contentIndex"`
	Delta        string          `json:"delta"`
	Content      *string         `json:"content"`
	Signature    string          `json:"signature"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	ToolCall     json.RawMessage `json:"toolCall"`
	Reason       string          `json:"reason"`
	Message      json.RawMessage `json:"message"`
}

// eventQueue carries events from the protocol reader (which must not
// block) to the streaming goroutine.
type eventQueue struct {
	mu    sync.Mutex
	evs   []json.RawMessage
	ready chan struct{}
}

func (q *eventQueue) push(raw json.RawMessage) {
	q.mu.Lock()
	q.evs = append(q.evs, raw)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *eventQueue) take() []json.RawMessage {
	q.mu.Lock()
	defer q.mu.Unlock()
	evs := q.evs
	q.evs = nil
	return evs
}

var errIdle = errors.New("no progress")

func (s *streamClient) Stream(ctx context.Context, req *llm.Request, emit func(llm.AssistantEvent)) *llm.AssistantMessage {
	b := llm.NewMessageBuilder(req.Model, emit)
	c, err := s.m.conn()
	if err != nil {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrOther, Message: fmt.Sprintf("provider %s: %v", s.provider, err)})
	}
	q := &eventQueue{ready: make(chan struct{}, 1)}
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type answer struct {
		raw json.RawMessage
		err error
	}
	done := make(chan answer, 1)
	var reqID int64
	go func() {
		raw, err := c.callWith(sctx, "stream", s.params(req), func(id int64) {
			reqID = id
			s.m.mu.Lock()
			s.m.updates[id] = q.push
			s.m.mu.Unlock()
		})
		done <- answer{raw, err}
	}()
	defer func() {
		s.m.mu.Lock()
		delete(s.m.updates, reqID)
		s.m.mu.Unlock()
	}()
	limit := req.MaxAnswerBytes
	if limit <= 0 {
		limit = llm.DefaultMaxAnswerBytes
	}
	st := &rebuild{b: b, idx: map[int]int{}, streamed: map[int]bool{}}
	var idle <-chan time.Time
	var timer *time.Timer
	if req.IdleTimeout > 0 {
		timer = time.NewTimer(req.IdleTimeout)
		defer timer.Stop()
		idle = timer.C
	}
	apply := func() {
		for _, raw := range q.take() {
			var ev hostEvent
			if json.Unmarshal(raw, &ev) != nil {
				continue
			}
			st.apply(ev)
			if st.bytes > limit {
				cancel(fmt.Errorf("the answer exceeded %d bytes", limit))
			}
		}
	}
	for {
		select {
		case <-q.ready:
			apply()
			if timer != nil {
				if !timer.Stop() {
					select {
					case <-timer.C:
					default:
					}
				}
				timer.Reset(req.IdleTimeout)
			}
		case <-idle:
			cancel(fmt.Errorf("%w from provider %s for %v", errIdle, s.provider, req.IdleTimeout))
		case a := <-done:
			apply()
			return s.finish(ctx, sctx, st, a.raw, a.err)
		}
	}
}

// params is the host's stream request: the model, the pi-shaped context
// and the stream options.
func (s *streamClient) params(req *llm.Request) map[string]any {
	tools := make([]map[string]any, 0, len(req.Tools))
	for _, t := range req.Tools {
		tools = append(tools, map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters})
	}
	msgs := req.Messages
	if msgs == nil {
		msgs = []llm.Message{}
	}
	opts := map[string]any{"apiKey": req.APIKey}
	if len(req.Headers) > 0 {
		opts["headers"] = req.Headers
	}
	if req.MaxTokens > 0 {
		opts["maxTokens"] = req.MaxTokens
	}
	if req.ThinkingLevel != "" && req.ThinkingLevel != llm.ThinkingOff {
		opts["reasoning"] = req.ThinkingLevel
	}
	if req.Temperature != nil {
		opts["temperature"] = *req.Temperature
	}
	if req.SessionID != "" {
		opts["sessionId"] = req.SessionID
	}
	if req.CacheRetention != "" {
		opts["cacheRetention"] = req.CacheRetention
	}
	if len(req.ThinkingBudgets) > 0 {
		opts["thinkingBudgets"] = req.ThinkingBudgets
	}
	return map[string]any{"provider": s.provider, "model": req.Model, "options": opts, "state": s.m.state(),
		"context": map[string]any{"systemPrompt": req.SystemPrompt, "messages": msgs, "tools": tools}}
}

// finish ends the message from the host's answer.
func (s *streamClient) finish(ctx, sctx context.Context, st *rebuild, raw json.RawMessage, err error) *llm.AssistantMessage {
	b := st.b
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return b.Fail(&llm.ProviderError{Kind: llm.ErrAborted, Message: "Request was aborted"})
		case errors.Is(context.Cause(sctx), errIdle):
			return b.Fail(&llm.ProviderError{Kind: llm.ErrNetwork, Message: context.Cause(sctx).Error()})
		case context.Cause(sctx) != nil && sctx.Err() != nil:
			return b.Fail(&llm.ProviderError{Kind: llm.ErrMalformed, Message: fmt.Sprintf("provider %s: %v", s.provider, context.Cause(sctx))})
		case errors.Is(err, errHostGone):
			return b.Fail(&llm.ProviderError{Kind: llm.ErrOther, Message: fmt.Sprintf("provider %s: the extension host exited mid-stream: %v", s.provider, err)})
		}
		pe := llm.ClassifyError(0, fmt.Sprintf("provider %s (%s): %v", s.provider, s.src(), err))
		return b.Fail(pe)
	}
	var ev hostEvent
	if json.Unmarshal(raw, &ev) != nil || (ev.Type != "done" && ev.Type != "error") {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrMalformed, Message: fmt.Sprintf("provider %s: the stream ended without a result", s.provider)})
	}
	var msg struct {
		Content      json.RawMessage `json:"content"`
		Usage        *llm.Usage      `json:"usage"`
		StopReason   string          `json:"stopReason"`
		ErrorMessage string          `json:"errorMessage"`
		ResponseID   string          `json:"responseId"`
	}
	_ = json.Unmarshal(ev.Message, &msg)
	if msg.Usage != nil {
		b.SetUsage(*msg.Usage)
	}
	if msg.ResponseID != "" {
		b.SetResponseID(msg.ResponseID)
	}
	if ev.Type == "error" {
		text := msg.ErrorMessage
		if text == "" {
			text = "provider " + s.provider + " failed"
		}
		if ev.Reason == "aborted" || msg.StopReason == "aborted" || ctx.Err() != nil {
			return b.Fail(&llm.ProviderError{Kind: llm.ErrAborted, Message: text})
		}
		return b.Fail(llm.ClassifyError(0, text))
	}
	if !b.HasContent() && len(msg.Content) > 0 {
		// A stream that sent only its final message: its content is
		// played as events so the front ends see it like any other.
		var blocks llm.Blocks
		if json.Unmarshal(msg.Content, &blocks) == nil {
			st.replay(blocks)
		}
	}
	switch r := llm.StopReason(firstOf(msg.StopReason, ev.Reason)); r {
	case llm.StopLength, llm.StopToolUse, llm.StopStop:
		b.SetStopReason(r, string(r))
	}
	return b.Finish()
}

func (s *streamClient) src() string {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	if r := s.m.providers[s.provider]; r != nil {
		return r.src
	}
	return "extension"
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// rebuild maps the extension's content indexes onto the builder's.
type rebuild struct {
	b        *llm.MessageBuilder
	idx      map[int]int // extension index -> builder index
	streamed map[int]bool
	bytes    int64
}

func (r *rebuild) at(ev hostEvent) (int, bool) {
	i, ok := r.idx[ev.ContentIndex]
	return i, ok
}

func (r *rebuild) apply(ev hostEvent) {
	b := r.b
	r.bytes += int64(len(ev.Delta))
	switch ev.Type {
	case "start":
		b.Start()
	case "text_start":
		r.idx[ev.ContentIndex] = b.StartText()
	case "thinking_start":
		r.idx[ev.ContentIndex] = b.StartThinking()
	case "toolcall_start":
		r.idx[ev.ContentIndex] = b.StartToolCall(ev.ID, ev.Name)
	case "text_delta":
		if i, ok := r.at(ev); ok {
			b.AppendText(i, ev.Delta)
		}
	case "thinking_delta":
		if i, ok := r.at(ev); ok {
			b.AppendThinking(i, ev.Delta)
		}
	case "toolcall_delta":
		if i, ok := r.at(ev); ok {
			r.streamed[i] = true
			b.AppendToolCallArgs(i, ev.Delta)
		}
	case "text_end":
		if i, ok := r.at(ev); ok {
			if ev.Signature != "" {
				b.SetTextSignature(i, ev.Signature)
			}
			b.EndText(i)
		}
	case "thinking_end":
		if i, ok := r.at(ev); ok {
			if ev.Signature != "" {
				b.SetThinkingSignature(i, ev.Signature)
			}
			b.EndThinking(i)
		}
	case "toolcall_end":
		i, ok := r.at(ev)
		if !ok {
			return
		}
		var tc struct {
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		_ = json.Unmarshal(ev.ToolCall, &tc)
		call := b.ToolCall(i)
		if call != nil && call.ID == "" {
			call.ID = tc.ID
		}
		if call != nil && call.Name == "" {
			call.Name = tc.Name
		}
		args := strings.TrimSpace(string(tc.Arguments))
		if !r.streamed[i] && strings.HasPrefix(args, "{") {
			b.AppendToolCallArgs(i, args)
		}
		b.EndToolCall(i)
		if r.streamed[i] && strings.HasPrefix(args, "{") && call != nil && json.Valid([]byte(args)) {
			// The extension's parsed arguments are authoritative.
			call.Arguments = json.RawMessage(args)
		}
	}
}

// replay plays a final message's blocks as events.
func (r *rebuild) replay(blocks llm.Blocks) {
	b := r.b
	for _, blk := range blocks {
		switch v := blk.(type) {
		case *llm.TextContent:
			i := b.StartText()
			b.AppendText(i, v.Text)
			b.EndText(i)
		case *llm.ThinkingContent:
			i := b.StartThinking()
			b.AppendThinking(i, v.Thinking)
			if v.ThinkingSignature != "" {
				b.SetThinkingSignature(i, v.ThinkingSignature)
			}
			b.EndThinking(i)
		case *llm.ToolCall:
			i := b.StartToolCall(v.ID, v.Name)
			if len(v.Arguments) > 0 {
				b.AppendToolCallArgs(i, string(v.Arguments))
			}
			b.EndToolCall(i)
		}
	}
}

// modelLister is the model registry's read side ctx.modelRegistry needs.
type modelLister interface {
	All() []*llm.Model
	Generation() uint64
}

// authAPI answers ctx.modelRegistry.getApiKeyAndHeaders(model) with the
// original's {ok, apiKey, headers} | {ok: false, error}, and
// getApiKeyForProvider(provider) with the key or undefined.
func (m *Manager) authAPI(method string, args []json.RawMessage) any {
	m.mu.Lock()
	base := m.base
	m.mu.Unlock()
	var model *llm.Model
	if method == "getApiKeyForProvider" {
		provider := arg[string](args, 0)
		if base != nil {
			for _, md := range base.Available() {
				if md.Provider == provider {
					model = md
					break
				}
			}
		}
		if model == nil {
			model = &llm.Model{Provider: provider}
		}
	} else {
		want := arg[struct {
			Provider string `json:"provider"`
			ID       string `json:"id"`
		}](args, 0)
		if base != nil {
			model = base.Find(want.Provider, want.ID)
		}
		if model == nil {
			return map[string]any{"ok": false, "error": fmt.Sprintf("model %s/%s is not known", want.Provider, want.ID)}
		}
	}
	if base == nil {
		return map[string]any{"ok": false, "error": "models are not available yet"}
	}
	key, headers, err := base.Auth(context.Background(), model)
	if method == "getApiKeyForProvider" {
		if err != nil || key == "" {
			return nil
		}
		return key
	}
	if err != nil {
		return map[string]any{"ok": false, "error": err.Error()}
	}
	res := map[string]any{"ok": true, "apiKey": key}
	if len(headers) > 0 {
		res["headers"] = headers
	}
	return res
}
