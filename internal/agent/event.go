// Package agent runs the turn loop: it streams assistant messages, executes
// their tool calls, delivers steering and follow-up messages, retries
// transient failures, and reports everything as one typed Event stream that
// every front end (TUI, print, JSON, RPC) consumes.
package agent

import (
	"encoding/json"
	"strconv"

	"github.com/relay-agent/relay/internal/jsonx"
	"github.com/relay-agent/relay/internal/llm"
)

// Event types (json.md). The JSON and RPC modes serialize Events with
// MarshalJSON; the TUI reads the fields directly.
const (
	AgentStart   = "agent_start"
	AgentEnd     = "agent_end"
	AgentSettled = "agent_settled"
	TurnStart    = "turn_start"
	TurnEnd      = "turn_end"

	MessageStart  = "message_start"
	MessageUpdate = "message_update"
	MessageEnd    = "message_end"

	ToolExecutionStart  = "tool_execution_start"
	ToolExecutionUpdate = "tool_execution_update"
	ToolExecutionEnd    = "tool_execution_end"

	QueueUpdate          = "queue_update"
	EntryAppended        = "entry_appended"
	SessionInfoChanged   = "session_info_changed"
	ThinkingLevelChanged = "thinking_level_changed"

	CompactionStart = "compaction_start"
	CompactionEnd   = "compaction_end"

	AutoRetryStart = "auto_retry_start"
	AutoRetryEnd   = "auto_retry_end"

	SummarizationRetryScheduled    = "summarization_retry_scheduled"
	SummarizationRetryAttemptStart = "summarization_retry_attempt_start"
	SummarizationRetryFinished     = "summarization_retry_finished"

	BashExecutionUpdate = "bash_execution_update"
	ExtensionError      = "extension_error"

	// SessionWriteFailed reports that a message could not be written to the
	// session file; the run stops there (see PersistError). relay's own
	// event: the original has none.
	SessionWriteFailed = "session_write_failed"
)

// ToolOutput is the {content, details} pair of tool execution events.
type ToolOutput struct {
	Content llm.Blocks      `json:"content"`
	Details json.RawMessage `json:"details"`
}

// CompactionResult is the outcome of a successful compaction.
type CompactionResult struct {
	Summary              string          `json:"summary"`
	FirstKeptEntryID     string          `json:"firstKeptEntryId"`
	TokensBefore         int             `json:"tokensBefore"`
	EstimatedTokensAfter *int            `json:"estimatedTokensAfter,omitempty"`
	Usage                *llm.Usage      `json:"usage,omitempty"`
	Details              json.RawMessage `json:"details,omitempty"`
}

// Event is one session event. Only the fields of its Type are meaningful.
type Event struct {
	Type string

	Message     llm.Message              // message_start/_end; turn_end (assistant)
	Messages    []llm.Message            // agent_end
	WillRetry   bool                     // agent_end, compaction_end
	ToolResults []*llm.ToolResultMessage // turn_end

	Usage          llm.Usage           // message_update
	AssistantEvent *llm.AssistantEvent // message_update

	ToolCallID string          // tool_execution_*
	ToolName   string          // tool_execution_*
	Args       json.RawMessage // tool_execution_start/_update
	Output     *ToolOutput     // tool_execution_update (partialResult), _end (result)
	IsError    bool            // tool_execution_end
	// ParentToolCallID names the calling tool call of a nested call's
	// tool_execution_* events ("" for the model's own calls).
	ParentToolCallID string

	Steering []string // queue_update
	FollowUp []string // queue_update

	Entry json.RawMessage // entry_appended
	Name  *string         // session_info_changed (nil = cleared)
	Level string          // thinking_level_changed

	Reason       string            // compaction_start/_end ("manual"|"threshold"|"overflow")
	Result       *CompactionResult // compaction_end
	Aborted      bool              // compaction_end
	ErrorMessage string            // compaction_end, auto_retry_start, summarization_retry_scheduled

	Attempt     int    // auto_retry_*, summarization_retry_scheduled
	MaxAttempts int    // auto_retry_start, summarization_retry_scheduled
	DelayMs     int64  // auto_retry_start, summarization_retry_scheduled
	Success     bool   // auto_retry_end
	FinalError  string // auto_retry_end
	// Cancelled marks an auto_retry_end whose wait was aborted (not on
	// the wire: finalError says "Retry cancelled" there).
	Cancelled bool
	Source    string // summarization_retry_attempt_start

	ID    string // bash_execution_update (command id)
	Delta string // bash_execution_update

	ExtensionPath string // extension_error
	Event         string // extension_error
	Error         string // extension_error, session_write_failed

	SessionFile string // session_write_failed ("" when not known)
}

func emptyIfNil(ms []llm.Message) []llm.Message {
	if ms == nil {
		return []llm.Message{}
	}
	return ms
}

// MarshalJSON writes the wire form of json.md: message_update is delta-only.
func (e Event) MarshalJSON() ([]byte, error) {
	switch e.Type {
	case AgentStart, AgentSettled, TurnStart, SummarizationRetryFinished:
		return llm.Marshal(struct {
			Type string `json:"type"`
		}{e.Type})
	// The events that carry whole messages are appended member by member
	// (llm.AppendJSON): through encoding/json, a megabyte answer was copied
	// and re-scanned once more for the event around it.
	case AgentEnd:
		b := e.appendHead(`,"messages":`)
		b, err := llm.AppendJSON(b, emptyIfNil(e.Messages))
		b = append(b, `,"willRetry":`...)
		return append(strconv.AppendBool(b, e.WillRetry), '}'), err
	case TurnEnd:
		b, err := llm.AppendJSON(e.appendHead(`,"message":`), e.Message)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"toolResults":[`...)
		for i, tr := range e.ToolResults {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = llm.AppendJSON(b, tr); err != nil {
				return nil, err
			}
		}
		return append(b, ']', '}'), nil
	case MessageStart, MessageEnd:
		b, err := llm.AppendJSON(e.appendHead(`,"message":`), e.Message)
		return append(b, '}'), err
	case MessageUpdate:
		if b, ok := e.appendDeltaUpdate(nil); ok {
			return b, nil
		}
		return llm.Marshal(struct {
			Type           string              `json:"type"`
			Usage          llm.Usage           `json:"usage"`
			AssistantEvent *llm.AssistantEvent `json:"assistantMessageEvent"`
		}{e.Type, e.Usage, e.AssistantEvent})
	case ToolExecutionStart:
		return llm.Marshal(struct {
			Type       string          `json:"type"`
			ToolCallID string          `json:"toolCallId"`
			ToolName   string          `json:"toolName"`
			Args       json.RawMessage `json:"args"`
			Parent     string          `json:"parentToolCallId,omitempty"`
		}{e.Type, e.ToolCallID, e.ToolName, rawOrEmpty(e.Args), e.ParentToolCallID})
	case ToolExecutionUpdate:
		return llm.Marshal(struct {
			Type          string          `json:"type"`
			ToolCallID    string          `json:"toolCallId"`
			ToolName      string          `json:"toolName"`
			Args          json.RawMessage `json:"args"`
			PartialResult *ToolOutput     `json:"partialResult"`
			Parent        string          `json:"parentToolCallId,omitempty"`
		}{e.Type, e.ToolCallID, e.ToolName, rawOrEmpty(e.Args), e.Output, e.ParentToolCallID})
	case ToolExecutionEnd:
		return llm.Marshal(struct {
			Type       string      `json:"type"`
			ToolCallID string      `json:"toolCallId"`
			ToolName   string      `json:"toolName"`
			Result     *ToolOutput `json:"result"`
			IsError    bool        `json:"isError"`
			Parent     string      `json:"parentToolCallId,omitempty"`
		}{e.Type, e.ToolCallID, e.ToolName, e.Output, e.IsError, e.ParentToolCallID})
	case QueueUpdate:
		st, fu := e.Steering, e.FollowUp
		if st == nil {
			st = []string{}
		}
		if fu == nil {
			fu = []string{}
		}
		return llm.Marshal(struct {
			Type     string   `json:"type"`
			Steering []string `json:"steering"`
			FollowUp []string `json:"followUp"`
		}{e.Type, st, fu})
	case EntryAppended:
		return llm.Marshal(struct {
			Type  string          `json:"type"`
			Entry json.RawMessage `json:"entry"`
		}{e.Type, e.Entry})
	case SessionInfoChanged:
		return llm.Marshal(struct {
			Type string  `json:"type"`
			Name *string `json:"name,omitempty"`
		}{e.Type, e.Name})
	case ThinkingLevelChanged:
		return llm.Marshal(struct {
			Type  string `json:"type"`
			Level string `json:"level"`
		}{e.Type, e.Level})
	case CompactionStart:
		return llm.Marshal(struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		}{e.Type, e.Reason})
	case CompactionEnd:
		return llm.Marshal(struct {
			Type         string            `json:"type"`
			Reason       string            `json:"reason"`
			Result       *CompactionResult `json:"result,omitempty"`
			Aborted      bool              `json:"aborted"`
			WillRetry    bool              `json:"willRetry"`
			ErrorMessage string            `json:"errorMessage,omitempty"`
		}{e.Type, e.Reason, e.Result, e.Aborted, e.WillRetry, e.ErrorMessage})
	case AutoRetryStart, SummarizationRetryScheduled:
		return llm.Marshal(struct {
			Type         string `json:"type"`
			Attempt      int    `json:"attempt"`
			MaxAttempts  int    `json:"maxAttempts"`
			DelayMs      int64  `json:"delayMs"`
			ErrorMessage string `json:"errorMessage"`
		}{e.Type, e.Attempt, e.MaxAttempts, e.DelayMs, e.ErrorMessage})
	case AutoRetryEnd:
		return llm.Marshal(struct {
			Type       string `json:"type"`
			Success    bool   `json:"success"`
			Attempt    int    `json:"attempt"`
			FinalError string `json:"finalError,omitempty"`
		}{e.Type, e.Success, e.Attempt, e.FinalError})
	case SummarizationRetryAttemptStart:
		return llm.Marshal(struct {
			Type   string `json:"type"`
			Source string `json:"source"`
			Reason string `json:"reason,omitempty"`
		}{e.Type, e.Source, e.Reason})
	case BashExecutionUpdate:
		return llm.Marshal(struct {
			Type  string `json:"type"`
			ID    string `json:"id,omitempty"`
			Delta string `json:"delta"`
		}{e.Type, e.ID, e.Delta})
	case SessionWriteFailed:
		return llm.Marshal(struct {
			Type        string `json:"type"`
			SessionFile string `json:"sessionFile,omitempty"`
			Error       string `json:"error"`
		}{e.Type, e.SessionFile, e.Error})
	case ExtensionError:
		return llm.Marshal(struct {
			Type          string `json:"type"`
			ExtensionPath string `json:"extensionPath"`
			Event         string `json:"event"`
			Error         string `json:"error"`
		}{e.Type, e.ExtensionPath, e.Event, e.Error})
	}
	return llm.Marshal(struct {
		Type string `json:"type"`
	}{e.Type})
}

func rawOrEmpty(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("{}")
	}
	return r
}

// appendHead starts the record: {"type":T then member (a key and colon).
func (e Event) appendHead(member string) []byte {
	b := append(make([]byte, 0, 256), `{"type":`...)
	return append(jsonx.AppendString(b, e.Type), member...)
}

// appendDeltaUpdate writes a delta message_update without reflection: it
// is the one record type whose volume scales with the answer.
func (e Event) appendDeltaUpdate(dst []byte) ([]byte, bool) {
	ev := e.AssistantEvent
	if ev == nil {
		return nil, false
	}
	switch ev.Type {
	case llm.EventTextDelta, llm.EventThinkingDelta, llm.EventToolCallDelta:
	default:
		return nil, false
	}
	u, err := llm.Marshal(e.Usage)
	if err != nil {
		return nil, false
	}
	dst = append(dst, `{"type":"message_update","usage":`...)
	dst = append(dst, u...)
	dst = append(dst, `,"assistantMessageEvent":{"type":"`...)
	dst = append(dst, ev.Type...)
	dst = append(dst, `","contentIndex":`...)
	dst = strconv.AppendInt(dst, int64(ev.ContentIndex), 10)
	dst = append(dst, `,"delta":`...)
	dst = jsonx.AppendString(dst, ev.Delta)
	return append(dst, '}', '}'), true
}
