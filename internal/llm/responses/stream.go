package responses

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// event is one Responses streaming event; only the fields we use.
type event struct {
	Type        string          `json:"type"`
	OutputIndex *int            `json:"output_index"`
	Item        json.RawMessage `json:"item"`
	Delta       string          `json:"delta"`
	Arguments   *string         `json:"arguments"`
	Response    *response       `json:"response"`
	Code        json.RawMessage `json:"code"`
	Message     string          `json:"message"`

	// parsed is Item decoded (by the fast decoder, or on first use).
	parsed *item
}

// itemOf returns the decoded item of e.
func (e *event) itemOf() (*item, *llm.ProviderError) {
	if e.parsed != nil {
		return e.parsed, nil
	}
	var it item
	if err := json.Unmarshal(e.Item, &it); err != nil {
		return nil, llm.MalformedError("output item", err, string(e.Item))
	}
	e.parsed = &it
	return &it, nil
}

type item struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Phase     string `json:"phase"`
	Namespace string `json:"namespace"`
}

type response struct {
	ID     string `json:"id"`
	Model  string `json:"model"`
	Status string `json:"status"`
	Usage  *usage `json:"usage"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

type usage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// output tracks one output item being streamed.
type output struct {
	kind     string // reasoning, message, function_call
	idx      int    // content index
	parts    int    // reasoning summary parts seen
	streamed int    // argument bytes streamed so far
}

type streamState struct {
	b        *llm.MessageBuilder
	items    map[int]*output
	last     *output
	finished bool
	hit      *output // the last item lookup found, at hitIndex
	hitIndex int
}

func readStream(ctx context.Context, body io.Reader, b *llm.MessageBuilder) *llm.AssistantMessage {
	h := newEventHandler(b)
	err := llm.ReadEventsRaw(body, h.handle)
	return h.finish(ctx, err)
}

// eventHandler applies the events of one answer, whatever carries them
// (SSE data lines or websocket frames).
type eventHandler struct {
	st   *streamState
	fail *llm.ProviderError
	dec  fastDecoder
	e    event
	seen int // events applied
}

func newEventHandler(b *llm.MessageBuilder) *eventHandler {
	return &eventHandler{st: &streamState{b: b, items: map[int]*output{}}}
}

// handle applies one event named name (the SSE event field, "" for a
// websocket frame) and reports whether to read on.
func (h *eventHandler) handle(name string, data []byte) bool {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return true
	}
	if string(data) == "[DONE]" {
		return false
	}
	if ignored(name) {
		return true
	}
	e := &h.e
	if !fastPath || !h.dec.decode(data, e) {
		*e = event{}
		if err := json.Unmarshal(data, e); err != nil {
			h.fail = llm.MalformedError("responses event", err, string(data))
			return false
		}
	}
	if e.Type == "" {
		e.Type = name
	}
	if name == "" && ignored(e.Type) {
		return true
	}
	h.seen++
	h.fail = h.st.apply(e)
	return h.fail == nil && !h.st.finished
}

// finish ends the message after the reader stopped with err.
func (h *eventHandler) finish(ctx context.Context, err error) *llm.AssistantMessage {
	b := h.st.b
	if h.fail != nil {
		return b.Fail(h.fail)
	}
	if pe := llm.ErrorFromContext(ctx); pe != nil {
		return b.Fail(pe)
	}
	if h.st.finished {
		return b.Finish()
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.EOF
	}
	return b.FailWith(ctx, err)
}

// ignored reports events whose content we already have from the deltas;
// the long answers repeat the whole text in them, so they are not decoded.
func ignored(name string) bool {
	switch name {
	case "response.output_text.done", "response.content_part.added", "response.content_part.done",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.refusal.done":
		return true
	}
	return false
}

func (st *streamState) lookup(e *event) *output {
	if e.OutputIndex != nil {
		if st.hit != nil && st.hitIndex == *e.OutputIndex {
			return st.hit // the deltas of one item follow each other
		}
		if o, ok := st.items[*e.OutputIndex]; ok {
			st.hit, st.hitIndex = o, *e.OutputIndex
			return o
		}
		return nil
	}
	return st.last
}

func (st *streamState) apply(e *event) *llm.ProviderError {
	b := st.b
	switch e.Type {
	case "response.created", "response.in_progress":
		if e.Response != nil {
			if e.Response.ID != "" {
				b.SetResponseID(e.Response.ID)
			}
			b.SetResponseModel(e.Response.Model)
		}
	case "response.output_item.added":
		it, perr := e.itemOf()
		if perr != nil {
			return perr
		}
		o := &output{kind: it.Type, idx: -1}
		switch it.Type {
		case "reasoning":
			o.idx = b.StartThinking()
		case "message":
			o.idx = b.StartText()
		case "function_call":
			o.idx = b.StartToolCall(it.CallID+"|"+it.ID, it.Name)
			if it.Namespace != "" {
				b.ToolCall(o.idx).Namespace = it.Namespace
			}
			if it.Arguments != "" {
				b.AppendToolCallArgs(o.idx, it.Arguments)
				o.streamed = len(it.Arguments)
			}
		default:
			return nil // web search calls etc.: not ours to show
		}
		if e.OutputIndex != nil {
			st.items[*e.OutputIndex] = o
			st.hit = nil
		}
		st.last = o
	case "response.reasoning_summary_part.added":
		if o := st.lookup(e); o != nil && o.kind == "reasoning" {
			// Parts are separated by a blank line, as in the final summary.
			if o.parts > 0 {
				b.AppendThinking(o.idx, "\n\n")
			}
			o.parts++
		}
	case "response.reasoning_summary_text.delta":
		if o := st.lookup(e); o != nil && o.kind == "reasoning" {
			if o.parts == 0 {
				o.parts = 1
			}
			b.AppendThinking(o.idx, e.Delta)
		}
	case "response.output_text.delta", "response.refusal.delta":
		if o := st.lookup(e); o != nil && o.kind == "message" {
			b.AppendText(o.idx, e.Delta)
		}
	case "response.function_call_arguments.delta":
		if o := st.lookup(e); o != nil && o.kind == "function_call" {
			b.AppendToolCallArgs(o.idx, e.Delta)
			o.streamed += len(e.Delta)
		}
	case "response.function_call_arguments.done":
		if o := st.lookup(e); o != nil && o.kind == "function_call" && e.Arguments != nil {
			st.catchUpArgs(o, *e.Arguments)
		}
	case "response.output_item.done":
		return st.itemDone(e)
	case "response.completed", "response.incomplete":
		st.complete(e.Response)
	case "response.failed":
		msg := "Unknown error (no error details in response)"
		if r := e.Response; r != nil {
			switch {
			case r.Error != nil:
				code := r.Error.Code
				if code == "" {
					code = "unknown"
				}
				msg = code + ": " + r.Error.Message
			case r.IncompleteDetails != nil && r.IncompleteDetails.Reason != "":
				msg = "incomplete: " + r.IncompleteDetails.Reason
			}
			st.setUsage(r)
		}
		code := ""
		if r := e.Response; r != nil && r.Error != nil {
			code = r.Error.Code
		}
		pe := llm.StreamError(code, msg)
		pe.Message = msg
		return pe
	case "error":
		code := strings.Trim(string(e.Code), `"`)
		if code == "null" {
			code = ""
		}
		return llm.StreamError(code, e.Message)
	}
	return nil
}

// catchUpArgs appends whatever part of the final arguments did not stream
// as deltas (some servers only send the done event).
func (st *streamState) catchUpArgs(o *output, args string) {
	if o.streamed < len(args) {
		st.b.AppendToolCallArgs(o.idx, args[o.streamed:])
		o.streamed = len(args)
	}
}

func (st *streamState) itemDone(e *event) *llm.ProviderError {
	b := st.b
	o := st.lookup(e)
	if o == nil {
		return nil
	}
	it, perr := e.itemOf()
	if perr != nil {
		return perr
	}
	switch o.kind {
	case "reasoning":
		// The whole item (summary and encrypted_content) is the replay
		// signature: it goes back verbatim as an input item.
		b.SetThinkingSignature(o.idx, string(compact(e.Item)))
		b.EndThinking(o.idx)
	case "message":
		b.SetTextSignature(o.idx, encodeTextSignature(it.ID, it.Phase))
		b.EndText(o.idx)
	case "function_call":
		if tc := b.ToolCall(o.idx); tc != nil && it.CallID != "" {
			tc.ID = it.CallID + "|" + it.ID
		}
		if it.Arguments != "" {
			st.catchUpArgs(o, it.Arguments)
		}
		b.EndToolCall(o.idx)
	}
	return nil
}

func compact(raw json.RawMessage) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return raw
	}
	return buf.Bytes()
}

func (st *streamState) setUsage(r *response) {
	if r.Usage == nil {
		return
	}
	cached := 0
	if d := r.Usage.InputTokensDetails; d != nil {
		cached = d.CachedTokens
	}
	u := llm.Usage{Input: max(0, r.Usage.InputTokens-cached), Output: r.Usage.OutputTokens, CacheRead: cached}
	if d := r.Usage.OutputTokensDetails; d != nil {
		u.Reasoning = d.ReasoningTokens
	}
	st.b.SetUsage(u)
}

func (st *streamState) complete(r *response) {
	st.finished = true
	b := st.b
	if r == nil {
		return
	}
	if r.ID != "" {
		b.SetResponseID(r.ID)
	}
	st.setUsage(r)
	reason := llm.StopStop
	switch r.Status {
	case "incomplete":
		reason = llm.StopLength
	case "failed", "cancelled":
		reason = llm.StopError
		b.Message().ErrorMessage = "response " + r.Status
	}
	if reason == llm.StopStop && len(b.Message().ToolCalls()) > 0 {
		reason = llm.StopToolUse
	}
	b.SetStopReason(reason, r.Status)
}
