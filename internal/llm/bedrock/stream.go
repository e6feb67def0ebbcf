package bedrock

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/relay-agent/relay/internal/jsonx"
	"github.com/relay-agent/relay/internal/llm"
)

// redactedPlaceholder is the visible text of encrypted reasoning (the
// Anthropic client's placeholder).
const redactedPlaceholder = "[Reasoning redacted]"

// maxBlocks bounds the content-block indexes a stream may use.
const maxBlocks = 4096

type blockKind uint8

const (
	kindNone blockKind = iota
	kindText
	kindThinking
	kindTool
	kindRedacted // encrypted reasoning, buffered until the block stops
	kindClosed   // stopped: later deltas for it are ignored
)

type blockRef struct {
	kind     blockKind
	idx      int    // builder index (not for kindRedacted)
	redacted []byte // decoded encrypted reasoning
}

// event is the JSON payload of any Bedrock stream event (only the members
// of its own type are set).
type event struct {
	Role              string `json:"role"`
	ContentBlockIndex *int   `json:"contentBlockIndex"`
	Start             *struct {
		ToolUse *struct {
			ToolUseID string `json:"toolUseId"`
			Name      string `json:"name"`
		} `json:"toolUse"`
	} `json:"start"`
	Delta *struct {
		Text    *string `json:"text"`
		ToolUse *struct {
			Input string `json:"input"`
		} `json:"toolUse"`
		ReasoningContent *struct {
			Text            *string `json:"text"`
			Signature       string  `json:"signature"`
			RedactedContent []byte  `json:"redactedContent"` // base64 in JSON
		} `json:"reasoningContent"`
	} `json:"delta"`
	StopReason string `json:"stopReason"`
	Usage      *struct {
		InputTokens           int `json:"inputTokens"`
		OutputTokens          int `json:"outputTokens"`
		CacheReadInputTokens  int `json:"cacheReadInputTokens"`
		CacheWriteInputTokens int `json:"cacheWriteInputTokens"`
		CacheDetails          []struct {
			TTL         string `json:"ttl"`
			InputTokens int    `json:"inputTokens"`
		} `json:"cacheDetails"`
	} `json:"usage"`
	Message string `json:"message"` // exceptions
}

type streamState struct {
	b       *llm.MessageBuilder
	t       *target
	blocks  []blockRef
	stopped bool
	sc      jsonx.Scanner
}

func readStream(ctx context.Context, body io.Reader, b *llm.MessageBuilder, t *target) *llm.AssistantMessage {
	st := &streamState{b: b, t: t}
	dec := newDecoder(body)
	var f frame
	for {
		err := dec.next(&f)
		if err == io.EOF {
			break
		}
		if err != nil {
			return st.fail(ctx, err)
		}
		if pe := st.frame(&f); pe != nil {
			return b.Fail(pe)
		}
	}
	if pe := llm.ErrorFromContext(ctx); pe != nil {
		return b.Fail(pe)
	}
	st.flushRedacted()
	if !st.stopped {
		return b.Fail(&llm.ProviderError{Kind: llm.ErrNetwork, Message: "Bedrock stream ended without a stop reason (" + t.modelRef + ")"})
	}
	return b.Finish()
}

func (st *streamState) fail(ctx context.Context, err error) *llm.AssistantMessage {
	var fe *formatError
	switch {
	case llm.ErrorFromContext(ctx) != nil:
		return st.b.FailWith(ctx, err)
	case errors.As(err, &fe):
		return st.b.Fail(&llm.ProviderError{Kind: llm.ErrMalformed, Message: fe.Error()})
	}
	var pe *llm.ProviderError
	if errors.As(err, &pe) {
		return st.b.Fail(pe) // the stream guard stopped it
	}
	return st.b.Fail(llm.NetworkError(err, true))
}

// frame applies one frame; a non-nil error ends the stream.
func (st *streamState) frame(f *frame) *llm.ProviderError {
	switch f.messageType {
	case "event":
	case "exception":
		var e event
		_ = json.Unmarshal(f.payload, &e)
		return streamException(f.eventType, e.Message, st.t)
	case "error":
		pe := llm.StreamError(f.errorCode, f.errorMessage)
		pe.Message += " (" + st.t.modelRef + ")"
		return pe
	default:
		return &llm.ProviderError{Kind: llm.ErrMalformed, Message: fmt.Sprintf("event stream: unknown message type %q", f.messageType)}
	}
	if f.eventType == "contentBlockDelta" && (st.textDelta(f.payload) || st.fastDelta(f.payload)) {
		return nil
	}
	var e event
	if err := json.Unmarshal(f.payload, &e); err != nil {
		return llm.MalformedError("Bedrock "+f.eventType+" event", err, string(f.payload))
	}
	switch f.eventType {
	case "messageStart":
		if e.Role != "" && e.Role != "assistant" {
			return &llm.ProviderError{Kind: llm.ErrMalformed, Message: "Bedrock stream started a " + e.Role + " message, not an assistant message"}
		}
		st.b.Start()
	case "contentBlockStart":
		if e.Start != nil && e.Start.ToolUse != nil {
			ref := st.ref(e.ContentBlockIndex)
			if ref == nil {
				return badIndex(e.ContentBlockIndex)
			}
			*ref = blockRef{kind: kindTool, idx: st.b.StartToolCall(e.Start.ToolUse.ToolUseID, e.Start.ToolUse.Name)}
		}
	case "contentBlockDelta":
		if e.Delta == nil {
			return nil
		}
		ref := st.ref(e.ContentBlockIndex)
		if ref == nil {
			return badIndex(e.ContentBlockIndex)
		}
		d := e.Delta
		switch {
		case d.Text != nil:
			st.text(ref, *d.Text)
		case d.ToolUse != nil:
			if ref.kind == kindTool {
				st.b.AppendToolCallArgs(ref.idx, d.ToolUse.Input)
			}
		case d.ReasoningContent != nil:
			rc := d.ReasoningContent
			if len(rc.RedactedContent) > 0 && (ref.kind == kindNone || ref.kind == kindRedacted) {
				ref.kind = kindRedacted
				ref.redacted = append(ref.redacted, rc.RedactedContent...)
				return nil
			}
			if rc.Text != nil {
				st.thinking(ref, *rc.Text)
			}
			if rc.Signature != "" {
				st.thinking(ref, "")
				st.b.AppendThinkingSignature(ref.idx, rc.Signature)
			}
		}
	case "contentBlockStop":
		if ref := st.ref(e.ContentBlockIndex); ref != nil {
			st.end(ref)
		}
	case "messageStop":
		st.stopped = true
		st.stop(e.StopReason)
	case "metadata":
		if u := e.Usage; u != nil {
			usage := llm.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadInputTokens, CacheWrite: u.CacheWriteInputTokens}
			for _, d := range u.CacheDetails {
				if d.TTL == "1h" {
					usage.CacheWrite1h += d.InputTokens
				}
			}
			st.b.SetUsage(usage)
		}
	}
	return nil
}

func badIndex(i *int) *llm.ProviderError {
	v := -1
	if i != nil {
		v = *i
	}
	return &llm.ProviderError{Kind: llm.ErrMalformed, Message: fmt.Sprintf("Bedrock stream: content block index %d out of range", v)}
}

// ref returns the state of content block i, growing the table; nil for a
// missing or absurd index.
func (st *streamState) ref(i *int) *blockRef {
	if i == nil || *i < 0 || *i >= maxBlocks {
		return nil
	}
	for len(st.blocks) <= *i {
		st.blocks = append(st.blocks, blockRef{})
	}
	return &st.blocks[*i]
}

func (st *streamState) text(ref *blockRef, s string) {
	if ref.kind == kindNone {
		*ref = blockRef{kind: kindText, idx: st.b.StartText()} // text blocks have no start event
	}
	if ref.kind == kindText {
		st.b.AppendText(ref.idx, s)
	}
}

func (st *streamState) thinking(ref *blockRef, s string) {
	if ref.kind == kindNone {
		*ref = blockRef{kind: kindThinking, idx: st.b.StartThinking()}
	}
	if ref.kind == kindThinking && s != "" {
		st.b.AppendThinking(ref.idx, s)
	}
}

func (st *streamState) end(ref *blockRef) {
	switch ref.kind {
	case kindText:
		st.b.EndText(ref.idx)
	case kindThinking:
		st.b.EndThinking(ref.idx)
	case kindTool:
		st.b.EndToolCall(ref.idx)
	case kindRedacted:
		st.b.AddRedactedThinking(redactedPlaceholder, base64.StdEncoding.EncodeToString(ref.redacted))
		ref.redacted = nil
	}
	ref.kind = kindClosed
}

// flushRedacted keeps encrypted reasoning whose block never stopped.
func (st *streamState) flushRedacted() {
	for i := range st.blocks {
		if st.blocks[i].kind == kindRedacted {
			st.end(&st.blocks[i])
		}
	}
}

func (st *streamState) stop(reason string) {
	switch reason {
	case "end_turn", "stop_sequence":
		st.b.SetStopReason(llm.StopStop, reason)
	case "max_tokens", "model_context_window_exceeded":
		st.b.SetStopReason(llm.StopLength, reason)
	case "tool_use":
		st.b.SetStopReason(llm.StopToolUse, reason)
	default:
		st.b.SetStopReason(llm.StopError, reason)
		st.b.Message().ErrorMessage = "Provider stopped with: " + reason + " (" + st.t.modelRef + ")"
	}
}

// fastDelta applies the common delta frame,
// {"contentBlockIndex":N,"delta":{"text":"..."},"p":"..."}, or the same
// with a tool-input or reasoning-text delta, without encoding/json. It
// reports false (nothing applied) for any other shape.
func (st *streamState) fastDelta(payload []byte) bool {
	p := &st.sc
	p.ResetBytes(payload)
	idx := -1
	var field, val string
	ok := p.Object(func(key string) bool {
		switch key {
		case "contentBlockIndex":
			n, ok := p.Int()
			idx = n
			return ok
		case "delta":
			n := 0
			return p.Object(func(k string) bool {
				n++
				switch k {
				case "text":
					field = "text"
					v, ok := p.StringView()
					val = v
					return ok && n == 1
				case "toolUse", "reasoningContent":
					m := 0
					return n == 1 && p.Object(func(k2 string) bool {
						m++
						if m > 1 || !(k == "toolUse" && k2 == "input" || k == "reasoningContent" && k2 == "text") {
							return false
						}
						field = k
						v, ok := p.StringView()
						val = v
						return ok
					})
				}
				return false
			})
		}
		return p.Skip()
	})
	if !ok || field == "" || idx < 0 || idx >= maxBlocks || !p.End() {
		return false
	}
	ref := st.ref(&idx)
	switch field {
	case "text":
		st.text(ref, val)
	case "toolUse":
		if ref.kind == kindTool {
			st.b.AppendToolCallArgs(ref.idx, val)
		}
	case "reasoningContent":
		st.thinking(ref, val)
	}
	return true
}

// textDelta applies the frame of nearly every answer byte,
// {"contentBlockIndex":N,"delta":{"text":"..."},"p":"..."} in exactly this
// layout, reading it front to back with no per-member dispatch; anything
// else reports false.
func (st *streamState) textDelta(payload []byte) bool {
	const head, mid, tail = `{"contentBlockIndex":`, `,"delta":{"text":`, `,"p":"`
	if !bytes.HasPrefix(payload, []byte(head)) {
		return false
	}
	i, idx := len(head), 0
	for ; i < len(payload) && payload[i] >= '0' && payload[i] <= '9' && idx < maxBlocks; i++ {
		idx = idx*10 + int(payload[i]-'0')
	}
	if i == len(head) || idx >= maxBlocks || !bytes.HasPrefix(payload[i:], []byte(mid)) {
		return false
	}
	p := &st.sc
	p.ResetBytes(payload)
	p.SetPos(i + len(mid))
	text, ok := p.StringView()
	if !ok {
		return false
	}
	rest := payload[p.Pos():]
	switch {
	case len(rest) == 2 && rest[0] == '}' && rest[1] == '}':
	case len(rest) > len(tail)+2 && rest[0] == '}' && bytes.HasPrefix(rest[1:], []byte(tail)) &&
		rest[len(rest)-2] == '"' && rest[len(rest)-1] == '}' && plainPad(rest[1+len(tail):len(rest)-2]):
	default:
		return false
	}
	st.text(st.ref(&idx), text)
	return true
}

// plainPad reports whether the padding holds no quote or backslash.
func plainPad(b []byte) bool {
	return bytes.IndexByte(b, '"') < 0 && bytes.IndexByte(b, '\\') < 0
}
