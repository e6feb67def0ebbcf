package hooks

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/relay-agent/relay/internal/llm"
)

// Set is every point of the seam. The zero value is not usable: call New.
type Set struct {
	nextID  atomic.Uint64
	ui      atomic.Pointer[uiBox]
	notices noticeSubs
	mcp     mcpRegistry
	// renderers and shown: extension renderers and the entries front
	// ends draw (render.go).
	renderers renderRegistry
	shown     shownSubs
	onUI      uiWaiters // callbacks for the next BindUI (uibind.go)
	// OnError receives failed handlers (the runtime turns them into
	// extension_error events). Nil drops them.
	OnError func(*HandlerError)

	Input             Point[Input, InputResult]
	BeforeAgentStart  Point[BeforeAgentStart, BeforeAgentStartResult]
	SystemPrompt      Point[SystemPrompt, SystemPromptResult]
	Route             Point[Route, RouteResult]
	Context           Point[Context, ContextResult]
	ContextWithSystem Point[Context, ContextResult]
	ProviderRequest   Point[ProviderRequest, ProviderRequestResult]
	ProviderHeaders   Point[ProviderHeaders, None]
	ProviderResponse  Point[ProviderResponse, None]
	StreamEvent       Point[StreamEvent, None]
	AssistantEnd      Point[AssistantEnd, None]
	ToolCall          Point[ToolCall, ToolCallResult]
	ToolResult        Point[ToolResult, None]
	UserBash          Point[UserBash, UserBashResult]
	Settle            Point[Settle, SettleResult]
	TurnEnd           Point[TurnEnd, None]
	Overflow          Point[Overflow, OverflowResult]
	SessionStart      Point[SessionChange, None]
	SessionShutdown   Point[SessionChange, None]
	SessionTree       Point[SessionChange, None]
	SessionCompact    Point[SessionChange, None]
	BeforeSwitch      Point[SessionChange, CancelResult]
	BeforeFork        Point[SessionChange, CancelResult]
	BeforeCompact     Point[SessionChange, CancelResult]
	BeforeTree        Point[SessionChange, CancelResult]
	ModelSelect       Point[ModelSelect, None]
	ThinkingSelect    Point[ThinkingSelect, None]
	ResourcesDiscover Point[ResourcesDiscover, ResourcesResult]
	ProjectTrust      Point[Trust, TrustResult]
	Status            Point[StatusQuery, StatusResult]
	MCPServersChange  Point[MCPServersChange, None]
	CacheWarming      Point[CacheWarmingDecision, CacheWarmingResult]
}

// New returns a Set with every point named as in the spec.
func New() *Set {
	s := &Set{}
	s.Input.init("input", s)
	s.BeforeAgentStart.init("before_agent_start", s)
	s.SystemPrompt.init("system_prompt", s)
	s.Route.init("route", s)
	s.Context.init("context", s)
	s.ContextWithSystem.init("context_with_system", s)
	s.ProviderRequest.init("before_provider_request", s)
	s.ProviderHeaders.init("before_provider_headers", s)
	s.ProviderResponse.init("after_provider_response", s)
	s.StreamEvent.init("provider_stream_event", s)
	s.AssistantEnd.init("message_end", s)
	s.ToolCall.init("tool_call", s)
	s.ToolResult.init("tool_result", s)
	s.UserBash.init("user_bash", s)
	s.Settle.init("agent_before_settle", s)
	s.TurnEnd.init("turn_end", s)
	s.Overflow.init("context_overflow", s)
	s.SessionStart.init("session_start", s)
	s.SessionShutdown.init("session_shutdown", s)
	s.SessionTree.init("session_tree", s)
	s.SessionCompact.init("session_compact", s)
	s.BeforeSwitch.init("session_before_switch", s)
	s.BeforeFork.init("session_before_fork", s)
	s.BeforeCompact.init("session_before_compact", s)
	s.BeforeTree.init("session_before_tree", s)
	s.ModelSelect.init("model_select", s)
	s.ThinkingSelect.init("thinking_level_select", s)
	s.ResourcesDiscover.init("resources_discover", s)
	s.ProjectTrust.init("project_trust", s)
	s.Status.init("status", s)
	s.MCPServersChange.init("mcp_servers_change", s)
	s.CacheWarming.init("cache_warming_decision", s)
	return s
}

func (p *Point[E, R]) init(name string, s *Set) { p.name, p.set = name, s }

func (s *Set) report(event, source string, err error) {
	if s.OnError != nil {
		s.OnError(&HandlerError{Event: event, Source: source, Err: err})
	}
}

// RunInput applies the input handlers: transforms chain, the first
// "handled" stops. It returns the final input and whether it was handled.
func (s *Set) RunInput(ctx context.Context, in Input) (Input, bool) {
	handled := false
	s.Input.each(ctx, &in, func(_ string, r InputResult) bool {
		switch r.Action {
		case InputTransform:
			in.Text, in.Images = r.Text, r.Images
		case InputHandled:
			handled = true
			return true
		}
		return false
	}, nil)
	return in, handled
}

// RunBeforeAgentStart collects messages to insert before the prompt and
// the system prompt, each handler seeing the previous one's replacement.
func (s *Set) RunBeforeAgentStart(ctx context.Context, e BeforeAgentStart) (msgs []llm.Message, systemPrompt string) {
	s.BeforeAgentStart.each(ctx, &e, func(_ string, r BeforeAgentStartResult) bool {
		if r.Message != nil {
			msgs = append(msgs, r.Message)
		}
		if r.SystemPrompt != "" {
			e.SystemPrompt = r.SystemPrompt
		}
		return false
	}, nil)
	return msgs, e.SystemPrompt
}

// Guidelines collects the system prompt additions of every handler.
func (s *Set) Guidelines(ctx context.Context, cwd string) []string {
	g, _ := s.PromptAdditions(ctx, cwd)
	return g
}

// PromptAdditions collects the guideline lines and the named sections of
// every handler; a later section of the same name replaces an earlier one.
func (s *Set) PromptAdditions(ctx context.Context, cwd string) (guidelines []string, sections []PromptSection) {
	s.SystemPrompt.each(ctx, &SystemPrompt{Cwd: cwd}, func(_ string, r SystemPromptResult) bool {
		guidelines = append(guidelines, r.Guidelines...)
		for _, sec := range r.Sections {
			replaced := false
			for i := range sections {
				if sections[i].Name == sec.Name {
					sections[i], replaced = sec, true
				}
			}
			if !replaced {
				sections = append(sections, sec)
			}
		}
		return false
	}, nil)
	return guidelines, sections
}

// RunRoute asks the routers in order; the first that answers wins. ok is
// false when none routed (the selection stands).
func (s *Set) RunRoute(ctx context.Context, e Route) (RouteResult, bool, error) {
	var out RouteResult
	var failed error
	s.Route.each(ctx, &e, func(_ string, r RouteResult) bool {
		if r.Model != nil {
			out = r
			return true
		}
		return false
	}, func(source string, err error) bool {
		// Spec §4: a router that throws ends the request with an error.
		failed = &HandlerError{Event: "route", Source: source, Err: err}
		return true
	})
	return out, out.Model != nil, failed
}

// RunContext chains the context handlers over the messages.
func (s *Set) RunContext(ctx context.Context, model *llm.Model, msgs []llm.Message) []llm.Message {
	e := Context{Model: model, Messages: msgs}
	s.Context.each(ctx, &e, func(_ string, r ContextResult) bool {
		if r.Messages != nil {
			e.Messages = r.Messages
		}
		return false
	}, nil)
	return e.Messages
}

// RunProviderRequest chains payload replacements.
func (s *Set) RunProviderRequest(ctx context.Context, model *llm.Model, payload []byte) []byte {
	e := ProviderRequest{Model: model, Payload: payload}
	s.ProviderRequest.each(ctx, &e, func(_ string, r ProviderRequestResult) bool {
		if r.Payload != nil {
			e.Payload = r.Payload
		}
		return false
	}, nil)
	return e.Payload
}

// RunToolCall asks every handler in order; the first block wins. A
// handler that fails blocks the call (spec: "handler error blocks").
func (s *Set) RunToolCall(ctx context.Context, e ToolCall) ToolCallResult {
	var out ToolCallResult
	s.ToolCall.each(ctx, &e, func(_ string, r ToolCallResult) bool {
		if r.Terminate {
			out.Terminate = true
		}
		if r.Block {
			out.Block, out.Reason = true, r.Reason
			return true
		}
		return false
	}, func(source string, err error) bool {
		s.report("tool_call", source, err)
		out = ToolCallResult{Block: true, Reason: "Blocked by " + source + ": " + err.Error()}
		return true
	})
	return out
}

// RunUserBash returns the first handler's replacement, if any.
func (s *Set) RunUserBash(ctx context.Context, e UserBash) (UserBashResult, bool) {
	var out UserBashResult
	s.UserBash.each(ctx, &e, func(_ string, r UserBashResult) bool {
		if r.Handled {
			out = r
			return true
		}
		return false
	}, nil)
	return out, out.Handled
}

// RunOverflow asks the handlers to free space; true when one did.
func (s *Set) RunOverflow(ctx context.Context, e Overflow) bool {
	ok := false
	s.Overflow.each(ctx, &e, func(_ string, r OverflowResult) bool {
		ok = r.Recovered
		return ok
	}, nil)
	return ok
}

// RunCancel asks a session_before_* point; the first cancel wins.
func RunCancel(ctx context.Context, p *Point[SessionChange, CancelResult], e SessionChange) CancelResult {
	var out CancelResult
	p.each(ctx, &e, func(_ string, r CancelResult) bool {
		if r.Cancel {
			out = r
			return true
		}
		return false
	}, nil)
	return out
}

// RunResources collects every handler's paths.
func (s *Set) RunResources(ctx context.Context, e ResourcesDiscover) ResourcesResult {
	var out ResourcesResult
	s.ResourcesDiscover.each(ctx, &e, func(_ string, r ResourcesResult) bool {
		out.SkillPaths = append(out.SkillPaths, r.SkillPaths...)
		out.PromptPaths = append(out.PromptPaths, r.PromptPaths...)
		out.ThemePaths = append(out.ThemePaths, r.ThemePaths...)
		return false
	}, nil)
	return out
}

// RunTrust returns the first decisive verdict.
func (s *Set) RunTrust(ctx context.Context, e Trust) TrustResult {
	var out TrustResult
	s.ProjectTrust.each(ctx, &e, func(_ string, r TrustResult) bool {
		if r.Trusted != TrustUndecided {
			out = r
			return true
		}
		return false
	}, nil)
	return out
}

// RunStatus joins the features' status-line parts with " · "; the footer
// is the first non-empty one.
func (s *Set) RunStatus(ctx context.Context) (line, footer string) {
	var parts []string
	s.Status.each(ctx, &StatusQuery{}, func(_ string, r StatusResult) bool {
		if r.Line != "" {
			parts = append(parts, r.Line)
		}
		if footer == "" {
			footer = r.Footer
		}
		return false
	}, nil)
	return strings.Join(parts, " · "), footer
}

// RunStatusDetails collects the features' /session lines.
func (s *Set) RunStatusDetails(ctx context.Context) []string {
	var lines []string
	s.Status.each(ctx, &StatusQuery{Detail: true}, func(_ string, r StatusResult) bool {
		lines = append(lines, r.Detail...)
		return false
	}, nil)
	return lines
}

// RunCacheWarming lets handlers override the decision in turn, each seeing
// the action so far; a failing handler is skipped (relay's decision
// stands). It returns the final action.
func (s *Set) RunCacheWarming(ctx context.Context, d CacheWarmingDecision) string {
	s.CacheWarming.each(ctx, &d, func(_ string, r CacheWarmingResult) bool {
		if r.Action == "warm" || r.Action == "stop" {
			d.Action = r.Action
		}
		return false
	}, nil)
	return d.Action
}

// Wire returns the callbacks a provider request carries (llm.Request's
// OnPayload, OnHeaders, OnResponse) for the before_provider_request,
// before_provider_headers and after_provider_response points; nil for a
// point with no handler, so a request without hooks streams its body as
// built.
func (s *Set) Wire(ctx context.Context, model *llm.Model) (
	onPayload func([]byte) ([]byte, error), onHeaders func(http.Header), onResponse func(int, http.Header)) {
	if s.ProviderRequest.Has() {
		onPayload = func(b []byte) ([]byte, error) { return s.RunProviderRequest(ctx, model, b), nil }
	}
	if s.ProviderHeaders.Has() {
		onHeaders = func(h http.Header) { s.ProviderHeaders.Notify(ctx, &ProviderHeaders{Model: model, Headers: h}) }
	}
	if s.ProviderResponse.Has() {
		onResponse = func(status int, h http.Header) {
			s.ProviderResponse.Notify(ctx, &ProviderResponse{Model: model, Status: status, Headers: h})
		}
	}
	return onPayload, onHeaders, onResponse
}
