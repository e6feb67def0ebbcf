package llm

import "encoding/json"

// Assistant message event types (the nested assistantMessageEvent of
// message_update, json.md).
const (
	EventStart         = "start"
	EventTextStart     = "text_start"
	EventTextDelta     = "text_delta"
	EventTextEnd       = "text_end"
	EventThinkingStart = "thinking_start"
	EventThinkingDelta = "thinking_delta"
	EventThinkingEnd   = "thinking_end"
	EventToolCallStart = "toolcall_start"
	EventToolCallDelta = "toolcall_delta"
	EventToolCallEnd   = "toolcall_end"
	EventDone          = "done"
	EventError         = "error"
)

// AssistantEvent is one streaming update of an assistant message.
//
// Partial points at the message being built (the same value every time, not
// a copy), so in-process consumers can look at the whole message without
// any per-delta cost. It is never serialized.
type AssistantEvent struct {
	Type         string
	ContentIndex int
	Delta        string            // *_delta
	Content      string            // text_end, thinking_end
	ID           string            // toolcall_start
	ToolName     string            // toolcall_start
	ToolCall     *ToolCall         // toolcall_end
	Reason       StopReason        // done, error
	Message      *AssistantMessage // done: the final message; error: the error message
	Partial      *AssistantMessage
	// PartialArgs holds the best-effort parse of a tool call's arguments so
	// far (toolcall_delta), for live display. Not serialized.
	PartialArgs map[string]any
}

// MarshalJSON writes the delta-only wire form of json.md.
func (e AssistantEvent) MarshalJSON() ([]byte, error) {
	switch e.Type {
	case EventStart:
		return []byte(`{"type":"start"}`), nil
	case EventTextStart, EventThinkingStart:
		return Marshal(struct {
			Type         string `json:"type"`
			ContentIndex int    `json:"contentIndex"`
		}{e.Type, e.ContentIndex})
	case EventTextDelta, EventThinkingDelta, EventToolCallDelta:
		return Marshal(struct {
			Type         string `json:"type"`
			ContentIndex int    `json:"contentIndex"`
			Delta        string `json:"delta"`
		}{e.Type, e.ContentIndex, e.Delta})
	case EventTextEnd, EventThinkingEnd:
		return Marshal(struct {
			Type         string `json:"type"`
			ContentIndex int    `json:"contentIndex"`
			Content      string `json:"content"`
		}{e.Type, e.ContentIndex, e.Content})
	case EventToolCallStart:
		return Marshal(struct {
			Type         string `json:"type"`
			ContentIndex int    `json:"contentIndex"`
			ID           string `json:"id"`
			ToolName     string `json:"toolName"`
		}{e.Type, e.ContentIndex, e.ID, e.ToolName})
	case EventToolCallEnd:
		return Marshal(struct {
			Type         string    `json:"type"`
			ContentIndex int       `json:"contentIndex"`
			ToolCall     *ToolCall `json:"toolCall"`
		}{e.Type, e.ContentIndex, e.ToolCall})
	case EventDone:
		return Marshal(struct {
			Type    string            `json:"type"`
			Reason  StopReason        `json:"reason"`
			Message *AssistantMessage `json:"message"`
		}{e.Type, e.Reason, e.Message})
	case EventError:
		return Marshal(struct {
			Type   string            `json:"type"`
			Reason StopReason        `json:"reason"`
			Error  *AssistantMessage `json:"error"`
		}{e.Type, e.Reason, e.Message})
	}
	return Marshal(struct {
		Type string `json:"type"`
	}{e.Type})
}

// UnmarshalJSON reads the wire form (for clients and tests).
func (e *AssistantEvent) UnmarshalJSON(data []byte) error {
	var w struct {
		Type         string            `json:"type"`
		ContentIndex int               `json:"contentIndex"`
		Delta        string            `json:"delta"`
		Content      string            `json:"content"`
		ID           string            `json:"id"`
		ToolName     string            `json:"toolName"`
		ToolCall     *ToolCall         `json:"toolCall"`
		Reason       StopReason        `json:"reason"`
		Message      *AssistantMessage `json:"message"`
		Error        *AssistantMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*e = AssistantEvent{Type: w.Type, ContentIndex: w.ContentIndex, Delta: w.Delta, Content: w.Content,
		ID: w.ID, ToolName: w.ToolName, ToolCall: w.ToolCall, Reason: w.Reason, Message: w.Message}
	if w.Error != nil {
		e.Message = w.Error
	}
	return nil
}
