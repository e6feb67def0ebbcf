package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// chunk is one chat.completion.chunk. Fields some servers send with other
// types (reasoning) are raw and decoded leniently.
type chunk struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Choices []choice        `json:"choices"`
	Usage   *usage          `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type choice struct {
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
	// Moonshot reports usage on the choice instead of the chunk.
	Usage *usage `json:"usage"`
}

type delta struct {
	Content          json.RawMessage   `json:"content"`
	ReasoningContent json.RawMessage   `json:"reasoning_content"`
	Reasoning        json.RawMessage   `json:"reasoning"`
	ReasoningText    json.RawMessage   `json:"reasoning_text"`
	ToolCalls        []toolCallDelta   `json:"tool_calls"`
	ReasoningDetails []json.RawMessage `json:"reasoning_details"`
}

type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type usage struct {
	PromptTokens        int  `json:"prompt_tokens"`
	CompletionTokens    int  `json:"completion_tokens"`
	PromptCacheHitTotal *int `json:"prompt_cache_hit_tokens"` // DeepSeek
	PromptTokensDetails *struct {
		CachedTokens     *int `json:"cached_tokens"`
		CacheWriteTokens int  `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// toUsage maps OpenAI usage: prompt_tokens includes cached (read) tokens, so
// they are subtracted; completion_tokens already includes reasoning.
func (u *usage) toUsage() llm.Usage {
	read := 0
	write := 0
	if d := u.PromptTokensDetails; d != nil {
		if d.CachedTokens != nil {
			read = *d.CachedTokens
		}
		write = d.CacheWriteTokens
	}
	if read == 0 && u.PromptCacheHitTotal != nil {
		read = *u.PromptCacheHitTotal
	}
	out := llm.Usage{
		Input:      max(0, u.PromptTokens-read-write),
		Output:     u.CompletionTokens,
		CacheRead:  read,
		CacheWrite: write,
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.Reasoning = d.ReasoningTokens
	}
	return out
}

// streamState tracks the blocks of one answer. Like the original, a message
// has at most one text and one thinking block; tool calls are keyed by
// their stream index (parallel calls interleave) and by id.
type streamState struct {
	b        *llm.MessageBuilder
	text     int
	thinking int
	byIndex  map[int]int
	byID     map[string]int
	pending  map[string]string // reasoning_details for calls not seen yet
	finished bool
	dec      fastDecoder
	fast     fastChunk
}

func readStream(ctx context.Context, body io.Reader, b *llm.MessageBuilder, m *llm.Model) *llm.AssistantMessage {
	st := &streamState{b: b, text: -1, thinking: -1, byIndex: map[int]int{}, byID: map[string]int{}}
	var fail *llm.ProviderError
	err := llm.ReadEventsRaw(body, func(_ string, data []byte) bool {
		data = bytes.TrimSpace(data)
		if len(data) == 0 {
			return true
		}
		if string(data) == "[DONE]" {
			return false
		}
		if fastPath && st.dec.decode(data, &st.fast) {
			st.applyFast(&st.fast)
			return true
		}
		var ch chunk
		if err := json.Unmarshal(data, &ch); err != nil {
			fail = llm.MalformedError("chat completion chunk", err, string(data))
			return false
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" {
			fail = streamError(ch.Error)
			return false
		}
		st.apply(&ch)
		return true
	})
	if fail != nil {
		return b.Fail(fail)
	}
	if pe := llm.ErrorFromContext(ctx); pe != nil {
		return b.Fail(pe)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return b.FailWith(ctx, err)
	}
	if !st.finished {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrNetwork, Message: "stream ended without finish_reason"})
	}
	return b.Finish()
}

func (st *streamState) apply(ch *chunk) {
	b := st.b
	msg := b.Message()
	if msg.ResponseID == "" && ch.ID != "" {
		b.SetResponseID(ch.ID)
	}
	if msg.ResponseModel == "" {
		b.SetResponseModel(ch.Model)
	}
	if ch.Usage != nil {
		b.SetUsage(ch.Usage.toUsage())
	}
	if len(ch.Choices) == 0 {
		return
	}
	c := &ch.Choices[0]
	if ch.Usage == nil && c.Usage != nil {
		b.SetUsage(c.Usage.toUsage())
	}
	if c.FinishReason != nil && *c.FinishReason != "" {
		st.setFinish(*c.FinishReason)
	}
	d := &c.Delta
	if s := rawString(d.Content); s != "" {
		if st.text < 0 {
			st.text = b.StartText()
		}
		b.AppendText(st.text, s)
	}
	// Servers name the reasoning field differently; use the first non-empty
	// one (some send the same text in two fields) and remember its name as
	// the signature, so replay sends it back in the same field.
	for _, f := range [...]struct {
		name string
		raw  json.RawMessage
	}{{"reasoning_content", d.ReasoningContent}, {"reasoning", d.Reasoning}, {"reasoning_text", d.ReasoningText}} {
		if s := rawString(f.raw); s != "" {
			st.appendThinking(f.name, s)
			break
		}
	}
	for i := range d.ToolCalls {
		st.toolCall(&d.ToolCalls[i])
	}
	for _, raw := range d.ReasoningDetails {
		var det struct {
			Type string `json:"type"`
			ID   string `json:"id"`
			Data string `json:"data"`
		}
		if json.Unmarshal(raw, &det) != nil || det.Type != "reasoning.encrypted" || det.ID == "" || det.Data == "" {
			continue
		}
		if idx, ok := st.byID[det.ID]; ok {
			b.ToolCall(idx).ThoughtSignature = string(raw)
		} else {
			if st.pending == nil {
				st.pending = map[string]string{}
			}
			st.pending[det.ID] = string(raw)
		}
	}
}

func (st *streamState) setFinish(raw string) {
	st.finished = true
	reason, errMsg := mapFinishReason(raw)
	st.b.SetStopReason(reason, raw)
	if errMsg != "" {
		st.b.Message().ErrorMessage = errMsg
	}
}

// appendThinking adds reasoning text; the field it came in is the block's
// signature, so replay sends it back in the same field.
func (st *streamState) appendThinking(field, s string) {
	if st.thinking < 0 {
		st.thinking = st.b.StartThinking()
		st.b.SetThinkingSignature(st.thinking, field)
	}
	st.b.AppendThinking(st.thinking, s)
}

func (st *streamState) toolCall(tc *toolCallDelta) {
	b := st.b
	idx := -1
	if tc.Index != nil {
		if i, ok := st.byIndex[*tc.Index]; ok {
			idx = i
		}
	}
	if idx < 0 && tc.ID != "" {
		if i, ok := st.byID[tc.ID]; ok {
			idx = i
		}
	}
	if idx < 0 {
		idx = b.StartToolCall(tc.ID, tc.Function.Name)
		if tc.Index != nil {
			st.byIndex[*tc.Index] = idx
		}
	}
	call := b.ToolCall(idx)
	if call.ID == "" && tc.ID != "" {
		call.ID = tc.ID
	}
	if call.Name == "" && tc.Function.Name != "" {
		call.Name = tc.Function.Name
	}
	if call.ID != "" {
		st.byID[call.ID] = idx
		if sig, ok := st.pending[call.ID]; ok {
			call.ThoughtSignature = sig
			delete(st.pending, call.ID)
		}
	}
	b.AppendToolCallArgs(idx, tc.Function.Arguments)
}

// mapFinishReason maps finish_reason; unknown and filtered reasons are
// errors carrying the raw reason.
func mapFinishReason(r string) (llm.StopReason, string) {
	switch r {
	case "stop", "end":
		return llm.StopStop, ""
	case "length":
		return llm.StopLength, ""
	case "tool_calls", "function_call":
		return llm.StopToolUse, ""
	}
	return llm.StopError, "Provider finish_reason: " + r
}

// streamError classifies an {"error":{...}} chunk inside a 200 stream.
func streamError(raw json.RawMessage) *llm.ProviderError {
	var e struct {
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
		Meta    struct {
			Raw string `json:"raw"`
		} `json:"metadata"`
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return llm.StreamError("", s)
	}
	_ = json.Unmarshal(raw, &e)
	typ := e.Type
	if typ == "" {
		typ = strings.Trim(string(e.Code), `"`)
	}
	msg := e.Message
	if e.Meta.Raw != "" && !strings.Contains(msg, e.Meta.Raw) {
		msg += "\n" + e.Meta.Raw
	}
	if msg == "" {
		msg = string(raw)
	}
	return llm.StreamError(typ, msg)
}

// rawString decodes a JSON string value; anything else (null, absent,
// another type) is "".
func rawString(raw json.RawMessage) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
