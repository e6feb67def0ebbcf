package hooks

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// InputAction is an input handler's verdict.
type InputAction int

const (
	// InputContinue leaves the input as it is.
	InputContinue InputAction = iota
	// InputTransform replaces the text (and images) for later handlers and
	// for the prompt.
	InputTransform
	// InputHandled consumes the input: nothing is sent to the model.
	InputHandled
)

// Input is user input before it becomes a prompt (spec: input).
type Input struct {
	Text   string
	Images []llm.ImageContent
	// Source is where it came from: "interactive", "rpc", "extension".
	Source string
	// StreamingBehavior is "steer" or "followUp" while a run is active,
	// "" when the input starts a run.
	StreamingBehavior string
}

// InputResult is an input handler's answer.
type InputResult struct {
	Action InputAction
	Text   string
	Images []llm.ImageContent
}

// BeforeAgentStart runs once per prompt before the run starts (spec:
// before_agent_start). SystemPrompt is the prompt the run will use.
type BeforeAgentStart struct {
	Prompt       string
	Images       []llm.ImageContent
	SystemPrompt string
}

// BeforeAgentStartResult may add a message before the prompt and replace
// the system prompt for this run.
type BeforeAgentStartResult struct {
	Message      llm.Message
	SystemPrompt string
}

// Context is the model-visible message list of one request (spec:
// context). Handlers return a replacement list or nil.
type Context struct {
	Model    *llm.Model
	Messages []llm.Message
}

// ContextResult replaces the messages when Messages is non-nil.
type ContextResult struct {
	Messages []llm.Message
}

// SystemPrompt lets features add rules to the system prompt of every
// request (the harness's standing rules, Laya's plan guidance).
type SystemPrompt struct {
	Cwd string
}

// SystemPromptResult adds guideline lines to the prompt's rules, and
// whole named sections (MCP's mcp_servers) after the built-in ones.
type SystemPromptResult struct {
	Guidelines []string
	Sections   []PromptSection
}

// PromptSection is a named system prompt section. Sections are patched by
// name, so a section whose text changes (a server connected) costs one
// small system message, not a new prompt.
type PromptSection struct {
	Name, Text string
}

// RouteReason says why a request is being routed.
type RouteReason string

const (
	RouteUser         RouteReason = "user"
	RouteContinuation RouteReason = "continuation"
	RouteRetry        RouteReason = "retry"
	RouteDirect       RouteReason = "direct"
)

// Route picks the model of one request (spec §4 virtual models: route()).
// Model and ThinkingLevel are the selection; a handler that routes sets
// them in its result. Prompt is the user's text for a new prompt.
type Route struct {
	Model         *llm.Model
	ThinkingLevel llm.ThinkingLevel
	Reason        RouteReason
	Prompt        string
}

// RouteResult selects a physical model; nil Model means "not mine".
type RouteResult struct {
	Model         *llm.Model
	ThinkingLevel llm.ThinkingLevel
}

// ProviderRequest is the provider payload about to be sent (spec:
// before_provider_request). Handlers return a replacement payload or nil.
type ProviderRequest struct {
	Model   *llm.Model
	Payload json.RawMessage
}

// ProviderRequestResult replaces the payload when Payload is non-nil.
type ProviderRequestResult struct {
	Payload json.RawMessage
}

// ProviderHeaders are the request headers, mutated in place (spec:
// before_provider_headers).
type ProviderHeaders struct {
	Model   *llm.Model
	Headers http.Header
}

// ProviderResponse is the HTTP status and headers of the provider's answer
// (spec: after_provider_response).
type ProviderResponse struct {
	Model   *llm.Model
	Status  int
	Headers http.Header
}

// StreamEvent is one event of the assistant stream (spec:
// provider_stream_event). Observe only.
type StreamEvent struct {
	Event llm.AssistantEvent
}

// AssistantEnd is a finished assistant message (spec: message_end for the
// assistant role; Laya's telemetry and plan tracking observe it).
type AssistantEnd struct {
	Message *llm.AssistantMessage
	// Request is the request as sent (nil when none could be built) and
	// SentAt when it went out: cache warming replays it before the prompt
	// cache entry it wrote expires. Handlers must not change it.
	Request *llm.Request
	SentAt  time.Time
}

// ToolCall is a tool call about to run (spec: tool_call). Input may be
// replaced by a handler; later handlers and the tool see the new value.
type ToolCall struct {
	Call             *llm.ToolCall
	ParentToolCallID string
}

// ToolCallResult blocks the call with Reason (the error result the model
// sees); Terminate also ends the run after this turn.
type ToolCallResult struct {
	Block     bool
	Reason    string
	Terminate bool
}

// ToolResult is a finished tool call before it is recorded (spec:
// tool_result). Handlers compose: each sees the previous handlers' result
// in Result and may change it in place.
type ToolResult struct {
	Call   *llm.ToolCall
	Result *llm.ToolResultMessage
}

// UserBash is a user shell command (!cmd) before it runs (spec: user_bash).
type UserBash struct {
	Command            string
	ExcludeFromContext bool
	Cwd                string
}

// UserBashResult, when Handled, replaces running the command with Output.
type UserBashResult struct {
	Handled  bool
	Output   string
	ExitCode *int
}

// Settle runs when the agent would settle: the model ended a turn
// without tool calls (spec: agent_before_settle). Handlers see what the
// earlier ones proposed (Entries, Continue) and may propose session
// entries to append before the agent settles and ask for one more model
// request.
type Settle struct {
	Message     *llm.AssistantMessage
	ToolResults []*llm.ToolResultMessage
	Entries     []EntryDraft
	Continue    bool
	// Outcome is "completed" (an aborted or failed run does not reach
	// this point).
	Outcome string
}

// SettleResult continues the run (one more model request, after
// FollowUp as a user message when set); Stop withdraws an earlier
// handler's Continue (an extension's continue: false). Entries, when
// non-nil, replaces the drafts proposed so far.
type SettleResult struct {
	Continue bool
	FollowUp string
	Stop     bool
	Entries  []EntryDraft
}

// TurnEnd follows each turn whose tool results were recorded, before the
// next model call (threshold compaction runs here).
type TurnEnd struct {
	Message     *llm.AssistantMessage
	ToolResults []*llm.ToolResultMessage
}

// Overflow follows a request that failed with a context overflow.
type Overflow struct {
	Failed *llm.AssistantMessage
}

// OverflowResult says space was freed and the request should be retried.
type OverflowResult struct {
	Recovered bool
}

// SessionReason says why a session starts, ends or changes.
type SessionReason string

const (
	ReasonStartup SessionReason = "startup"
	ReasonReload  SessionReason = "reload"
	ReasonNew     SessionReason = "new"
	ReasonResume  SessionReason = "resume"
	ReasonFork    SessionReason = "fork"
	ReasonQuit    SessionReason = "quit"
	ReasonTree    SessionReason = "tree"
)

// SessionChange names a session operation: session_start, session_shutdown,
// session_tree, session_compact are notifications; the before variants
// (session_before_switch|fork|compact|tree) may cancel.
type SessionChange struct {
	Reason SessionReason
	// Session is the session after the change (before it, for the
	// session_before_* points).
	Session *session.Manager
	// File is the session file after the change ("" in memory).
	File string
	// TargetID is the entry a fork or tree navigation starts from.
	TargetID string
}

// CancelResult cancels a session_before_* operation.
type CancelResult struct {
	Cancel bool
	Reason string
}

// ModelSelect follows a model change (spec: model_select).
type ModelSelect struct {
	Model    *llm.Model
	Previous *llm.Model
	// Source is "set", "cycle" or "restore".
	Source string
}

// ThinkingSelect follows a thinking level change (spec:
// thinking_level_select).
type ThinkingSelect struct {
	Level    llm.ThinkingLevel
	Previous llm.ThinkingLevel
}

// ResourcesDiscover asks for extra resource paths (spec:
// resources_discover).
type ResourcesDiscover struct {
	Cwd    string
	Reason string // "startup" | "reload"
}

// ResourcesResult adds skill, prompt template and theme paths.
type ResourcesResult struct {
	SkillPaths  []string
	PromptPaths []string
	ThemePaths  []string
}

// Trust is the project trust decision (spec: project_trust).
type Trust struct {
	Cwd string
}

// TrustVerdict is a project_trust answer.
type TrustVerdict string

const (
	TrustUndecided TrustVerdict = ""
	TrustYes       TrustVerdict = "yes"
	TrustNo        TrustVerdict = "no"
)

// TrustResult decides trust; Remember stores the decision.
type TrustResult struct {
	Trusted  TrustVerdict
	Remember bool
}

// None is the result of notification points.
type None struct{}

// StatusQuery asks features for their status-line text (the TUI polls it
// each frame; a feature's equivalent of an extension's ui.setStatus), or
// with Detail for the lines /session shows.
type StatusQuery struct {
	Detail bool
}

// StatusResult is a feature's status-line part and footer model text, or
// its /session lines when the query asked for Detail.
type StatusResult struct {
	Line   string
	Footer string
	Detail []string
}

// CacheWarmingDecision is relay's decision before a prompt-cache refresh
// (spec: cache_warming_decision). Costs are in dollars.
type CacheWarmingDecision struct {
	WarmCost, MissCost, ContinuationProbability float64
	Action                                      string // "warm" | "stop"
}

// CacheWarmingResult overrides the action when Action is "warm" or "stop".
type CacheWarmingResult struct {
	Action string
}
