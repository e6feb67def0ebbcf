package llm

import (
	"encoding/json"
	"fmt"

	"github.com/relay-agent/relay/internal/jsonx"
)

// Roles of AgentMessage. Unknown roles decode to *UnknownMessage.
const (
	RoleSystem            = "system"
	RoleUser              = "user"
	RoleAssistant         = "assistant"
	RoleToolResult        = "toolResult"
	RoleBashExecution     = "bashExecution"
	RoleCustom            = "custom"
	RoleBranchSummary     = "branchSummary"
	RoleCompactionSummary = "compactionSummary"
)

// StopReason of an assistant message.
type StopReason string

const (
	StopPending  StopReason = "pending" // only while streaming; never persisted
	StopStop     StopReason = "stop"
	StopLength   StopReason = "length"
	StopToolUse  StopReason = "toolUse"
	StopError    StopReason = "error"
	StopAborted  StopReason = "aborted"
	StopDeferred StopReason = "deferred"
)

// Message is an AgentMessage: one of the *XxxMessage types of this package.
type Message interface {
	MessageRole() string
}

// Cost in USD.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Usage of one response. Reasoning and CacheWrite1h are subsets of Output
// and CacheWrite; never add them again.
type Usage struct {
	Input        int  `json:"input"`
	Output       int  `json:"output"`
	CacheRead    int  `json:"cacheRead"`
	CacheWrite   int  `json:"cacheWrite"`
	CacheWrite1h int  `json:"cacheWrite1h,omitempty"`
	Reasoning    int  `json:"reasoning,omitempty"`
	TotalTokens  int  `json:"totalTokens"`
	Cost         Cost `json:"cost"`
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.Input += u2.Input
	u.Output += u2.Output
	u.CacheRead += u2.CacheRead
	u.CacheWrite += u2.CacheWrite
	u.CacheWrite1h += u2.CacheWrite1h
	u.Reasoning += u2.Reasoning
	u.TotalTokens += u2.TotalTokens
	u.Cost.Input += u2.Cost.Input
	u.Cost.Output += u2.Cost.Output
	u.Cost.CacheRead += u2.Cost.CacheRead
	u.Cost.CacheWrite += u2.Cost.CacheWrite
	u.Cost.Total += u2.Cost.Total
}

// ToolSpec is a tool declaration as sent to models and persisted in system
// messages.
type ToolSpec struct {
	Name                string          `json:"name"`
	Description         string          `json:"description"`
	Parameters          json.RawMessage `json:"parameters"`
	ConstrainedSampling json.RawMessage `json:"constrainedSampling,omitempty"`
	// PromptSnippet is the tool's one-line entry in the system prompt's
	// tools section ("" leaves it out); PromptGuidelines are its bullets
	// in the rules section while it is active. Neither goes on the wire
	// nor into the session: they shape the prompt text, which is saved.
	PromptSnippet    string   `json:"-"`
	PromptGuidelines []string `json:"-"`
}

// ToolRef names a removed tool.
type ToolRef struct {
	Name string `json:"name"`
}

// Section is one named system-prompt section; a nil Text removes it.
type Section struct {
	Name string
	Text *string
}

// Sections is an ordered name -> text map (JSON object order is kept).
type Sections []Section

func (s Sections) MarshalJSON() ([]byte, error) {
	out := []byte{'{'}
	for i, sec := range s {
		if i > 0 {
			out = append(out, ',')
		}
		k, _ := Marshal(sec.Name)
		out = append(out, k...)
		out = append(out, ':')
		if sec.Text == nil {
			out = append(out, "null"...)
		} else {
			v, _ := Marshal(*sec.Text)
			out = append(out, v...)
		}
	}
	return append(out, '}'), nil
}

func (s *Sections) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*s = nil
		return nil
	}
	var m map[string]*string
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	out := make(Sections, 0, len(m))
	_ = jsonx.EachMember(data, func(mem jsonx.Member) bool {
		if v, ok := m[mem.Key]; ok {
			out = append(out, Section{Name: mem.Key, Text: v})
			delete(m, mem.Key)
		}
		return true
	})
	*s = out
	return nil
}

// Get returns the text of section name.
func (s Sections) Get(name string) (string, bool) {
	for _, sec := range s {
		if sec.Name == name && sec.Text != nil {
			return *sec.Text, true
		}
	}
	return "", false
}

// SystemMessage carries prompt sections and the tool loadout; later system
// messages patch earlier ones.
type SystemMessage struct {
	Content      Content    `json:"content"`
	Sections     Sections   `json:"sections,omitzero"`
	ToolsAdded   []ToolSpec `json:"toolsAdded,omitzero"`
	ToolsRemoved []ToolRef  `json:"toolsRemoved,omitzero"`
	Replace      bool       `json:"replace,omitempty"`
	Timestamp    int64      `json:"timestamp"`
	Extra        Extra      `json:"-"`
}

// UserMessage is a prompt from the person (or a converted custom role).
type UserMessage struct {
	Content   Content `json:"content"`
	Timestamp int64   `json:"timestamp"`
	Extra     Extra   `json:"-"`
}

// DeferredHandle identifies a response to poll later.
type DeferredHandle struct {
	Provider    string          `json:"provider"`
	ModelID     string          `json:"modelId"`
	API         string          `json:"api"`
	ID          string          `json:"id"`
	ExpiresAt   int64           `json:"expiresAt,omitempty"`
	PollAfterMs int64           `json:"pollAfterMs,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`
}

// AssistantMessage is one model response.
type AssistantMessage struct {
	Content               Blocks          `json:"content"`
	API                   string          `json:"api"`
	Provider              string          `json:"provider"`
	Model                 string          `json:"model"`
	ResponseModel         string          `json:"responseModel,omitempty"`
	ResponseID            string          `json:"responseId,omitempty"`
	ProviderThinkingLevel string          `json:"providerThinkingLevel,omitempty"`
	ThinkingLevel         string          `json:"thinkingLevel,omitempty"`
	Diagnostics           json.RawMessage `json:"diagnostics,omitempty"`
	Usage                 Usage           `json:"usage"`
	StopReason            StopReason      `json:"stopReason"`
	Deferred              *DeferredHandle `json:"deferred,omitempty"`
	ErrorMessage          string          `json:"errorMessage,omitempty"`
	RawStopReason         string          `json:"rawStopReason,omitempty"`
	EndTurn               *bool           `json:"endTurn,omitempty"`
	Timestamp             int64           `json:"timestamp"`
	Extra                 Extra           `json:"-"`

	// Err classifies a provider failure for retry decisions. It is not
	// persisted; messages read back from a session get it from ClassifyError.
	Err *ProviderError `json:"-"`
}

// ToolCalls returns the tool-call blocks of the message.
func (m *AssistantMessage) ToolCalls() []*ToolCall {
	var out []*ToolCall
	for _, b := range m.Content {
		if tc, ok := b.(*ToolCall); ok {
			out = append(out, tc)
		}
	}
	return out
}

// Text joins the message's text blocks.
func (m *AssistantMessage) Text() string { return m.Content.PlainText() }

// ToolResultMessage is the outcome of one tool call.
type ToolResultMessage struct {
	ToolCallID  string          `json:"toolCallId"`
	ToolName    string          `json:"toolName"`
	Content     Blocks          `json:"content"`
	Details     json.RawMessage `json:"details,omitempty"`
	Usage       *Usage          `json:"usage,omitempty"`
	NestedCalls json.RawMessage `json:"nestedCalls,omitempty"`
	IsError     bool            `json:"isError"`
	Timestamp   int64           `json:"timestamp"`
	Extra       Extra           `json:"-"`
}

// BashExecutionMessage records a `!cmd` run by the person.
type BashExecutionMessage struct {
	Command            string `json:"command"`
	Output             string `json:"output"`
	ExitCode           *int   `json:"exitCode"`
	Cancelled          bool   `json:"cancelled"`
	Truncated          bool   `json:"truncated"`
	FullOutputPath     string `json:"fullOutputPath,omitempty"`
	ExcludeFromContext bool   `json:"excludeFromContext,omitempty"`
	Timestamp          int64  `json:"timestamp"`
	Extra              Extra  `json:"-"`
}

// CustomMessage is an extension-injected message that reaches the model as
// a user message.
type CustomMessage struct {
	CustomType string          `json:"customType"`
	Content    Content         `json:"content"`
	Display    bool            `json:"display"`
	Details    json.RawMessage `json:"details,omitempty"`
	Timestamp  int64           `json:"timestamp"`
	Extra      Extra           `json:"-"`
}

// BranchSummaryMessage carries the summary of an abandoned branch.
type BranchSummaryMessage struct {
	Summary   string  `json:"summary"`
	FromID    *string `json:"fromId"`
	Timestamp int64   `json:"timestamp"`
	Extra     Extra   `json:"-"`
}

// CompactionSummaryMessage carries the summary of compacted history.
type CompactionSummaryMessage struct {
	Summary      string `json:"summary"`
	TokensBefore int    `json:"tokensBefore"`
	Timestamp    int64  `json:"timestamp"`
	Extra        Extra  `json:"-"`
}

// UnknownMessage keeps a message of a role we do not know, verbatim.
type UnknownMessage struct {
	Role string
	Raw  json.RawMessage
}

func (*SystemMessage) MessageRole() string            { return RoleSystem }
func (*UserMessage) MessageRole() string              { return RoleUser }
func (*AssistantMessage) MessageRole() string         { return RoleAssistant }
func (*ToolResultMessage) MessageRole() string        { return RoleToolResult }
func (*BashExecutionMessage) MessageRole() string     { return RoleBashExecution }
func (*CustomMessage) MessageRole() string            { return RoleCustom }
func (*BranchSummaryMessage) MessageRole() string     { return RoleBranchSummary }
func (*CompactionSummaryMessage) MessageRole() string { return RoleCompactionSummary }
func (m *UnknownMessage) MessageRole() string         { return m.Role }

// Each message type is written with "role" first, as the original writes
// it, then its members in declaration order, then its Extra. The xxxPlain
// conversions have no methods, so encoding/json encodes and decodes their
// fields without recursing into MarshalJSON / UnmarshalJSON.

type systemPlain SystemMessage

func (m SystemMessage) MarshalJSON() ([]byte, error) {
	return marshalTagged("role", RoleSystem, systemPlain(m), m.Extra)
}

func (m *SystemMessage) UnmarshalJSON(data []byte) error {
	if v, ok := fastMessage(data, RoleSystem, false); ok {
		*m = *v.(*SystemMessage)
		return nil
	}
	var w systemPlain
	extra, err := unmarshalKnown(data, &w, "role")
	if err != nil {
		return err
	}
	w.Extra = extra
	*m = SystemMessage(w)
	return nil
}

type userPlain UserMessage

func (m UserMessage) MarshalJSON() ([]byte, error) {
	return marshalTagged("role", RoleUser, userPlain(m), m.Extra)
}

func (m *UserMessage) UnmarshalJSON(data []byte) error {
	if v, ok := fastMessage(data, RoleUser, false); ok {
		*m = *v.(*UserMessage)
		return nil
	}
	var w userPlain
	extra, err := unmarshalKnown(data, &w, "role")
	if err != nil {
		return err
	}
	w.Extra = extra
	*m = UserMessage(w)
	return nil
}

type assistantPlain AssistantMessage

func (m AssistantMessage) MarshalJSON() ([]byte, error) {
	return marshalTagged("role", RoleAssistant, assistantPlain(m), m.Extra)
}

func (m *AssistantMessage) UnmarshalJSON(data []byte) error {
	if v, ok := fastMessage(data, RoleAssistant, false); ok {
		*m = *v.(*AssistantMessage)
		return nil
	}
	var w assistantPlain
	extra, err := unmarshalKnown(data, &w, "role")
	if err != nil {
		return err
	}
	w.Extra = extra
	*m = AssistantMessage(w)
	return nil
}

type toolResultPlain ToolResultMessage

func (m ToolResultMessage) MarshalJSON() ([]byte, error) {
	return marshalTagged("role", RoleToolResult, toolResultPlain(m), m.Extra)
}

func (m *ToolResultMessage) UnmarshalJSON(data []byte) error {
	if v, ok := fastMessage(data, RoleToolResult, false); ok {
		*m = *v.(*ToolResultMessage)
		return nil
	}
	var w toolResultPlain
	extra, err := unmarshalKnown(data, &w, "role")
	if err != nil {
		return err
	}
	w.Extra = extra
	*m = ToolResultMessage(w)
	return nil
}

type bashPlain BashExecutionMessage

func (m BashExecutionMessage) MarshalJSON() ([]byte, error) {
	return marshalTagged("role", RoleBashExecution, bashPlain(m), m.Extra)
}

func (m *BashExecutionMessage) UnmarshalJSON(data []byte) error {
	if v, ok := fastMessage(data, RoleBashExecution, false); ok {
		*m = *v.(*BashExecutionMessage)
		return nil
	}
	var w bashPlain
	extra, err := unmarshalKnown(data, &w, "role")
	if err != nil {
		return err
	}
	w.Extra = extra
	*m = BashExecutionMessage(w)
	return nil
}

type customPlain CustomMessage

func (m CustomMessage) MarshalJSON() ([]byte, error) {
	return marshalTagged("role", RoleCustom, customPlain(m), m.Extra)
}

func (m *CustomMessage) UnmarshalJSON(data []byte) error {
	if v, ok := fastMessage(data, RoleCustom, false); ok {
		*m = *v.(*CustomMessage)
		return nil
	}
	var w customPlain
	extra, err := unmarshalKnown(data, &w, "role")
	if err != nil {
		return err
	}
	w.Extra = extra
	*m = CustomMessage(w)
	return nil
}

type branchSummaryPlain BranchSummaryMessage

func (m BranchSummaryMessage) MarshalJSON() ([]byte, error) {
	return marshalTagged("role", RoleBranchSummary, branchSummaryPlain(m), m.Extra)
}

func (m *BranchSummaryMessage) UnmarshalJSON(data []byte) error {
	if v, ok := fastMessage(data, RoleBranchSummary, false); ok {
		*m = *v.(*BranchSummaryMessage)
		return nil
	}
	var w branchSummaryPlain
	extra, err := unmarshalKnown(data, &w, "role")
	if err != nil {
		return err
	}
	w.Extra = extra
	*m = BranchSummaryMessage(w)
	return nil
}

type compactionSummaryPlain CompactionSummaryMessage

func (m CompactionSummaryMessage) MarshalJSON() ([]byte, error) {
	return marshalTagged("role", RoleCompactionSummary, compactionSummaryPlain(m), m.Extra)
}

func (m *CompactionSummaryMessage) UnmarshalJSON(data []byte) error {
	if v, ok := fastMessage(data, RoleCompactionSummary, false); ok {
		*m = *v.(*CompactionSummaryMessage)
		return nil
	}
	var w compactionSummaryPlain
	extra, err := unmarshalKnown(data, &w, "role")
	if err != nil {
		return err
	}
	w.Extra = extra
	*m = CompactionSummaryMessage(w)
	return nil
}

func (m UnknownMessage) MarshalJSON() ([]byte, error) { return m.Raw, nil }

// DecodeMessage decodes an AgentMessage by its "role". Unknown roles are
// kept verbatim as *UnknownMessage.
func DecodeMessage(data []byte) (Message, error) { return decodeMessage(data, false) }

// DecodeMessageShared is DecodeMessage for a buffer that is never modified
// again and that the caller keeps alive anyway (a session file's records):
// strings without escapes are views of data rather than copies, so the
// message costs no second copy of its text. Strings with escapes, and
// messages the single-pass decoder hands to encoding/json, are copied as
// DecodeMessage copies them.
func DecodeMessageShared(data []byte) (Message, error) { return decodeMessage(data, true) }

func decodeMessage(data []byte, shared bool) (Message, error) {
	role, ok := fastFirst(data, "role")
	if !ok {
		role, _ = jsonx.PeekString(data, "role")
	}
	var m Message
	switch role {
	case RoleSystem:
		m = &SystemMessage{}
	case RoleUser:
		m = &UserMessage{}
	case RoleAssistant:
		m = &AssistantMessage{}
	case RoleToolResult:
		m = &ToolResultMessage{}
	case RoleBashExecution:
		m = &BashExecutionMessage{}
	case RoleCustom:
		m = &CustomMessage{}
	case RoleBranchSummary:
		m = &BranchSummaryMessage{}
	case RoleCompactionSummary:
		m = &CompactionSummaryMessage{}
	default:
		if len(data) == 0 || data[0] != '{' {
			return nil, fmt.Errorf("message is not an object")
		}
		return &UnknownMessage{Role: role, Raw: append(json.RawMessage(nil), data...)}, nil
	}
	if fm, ok := fastMessage(data, role, shared); ok {
		return fm, nil
	}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("%s message: %w", role, err)
	}
	return m, nil
}

// Messages is a message list with polymorphic decoding.
type Messages []Message

func (ms *Messages) UnmarshalJSON(data []byte) error {
	if fastValue(data, ms, decodeMessages) {
		return nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return err
	}
	out := make(Messages, 0, len(raws))
	for i, r := range raws {
		m, err := DecodeMessage(r)
		if err != nil {
			return fmt.Errorf("messages[%d]: %w", i, err)
		}
		out = append(out, m)
	}
	*ms = out
	return nil
}

func (ms Messages) MarshalJSON() ([]byte, error) { return AppendJSON(nil, ms) }
