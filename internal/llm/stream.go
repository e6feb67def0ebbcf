package llm

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"
)

// MessageBuilder assembles one streamed AssistantMessage for a wire client
// and emits the AssistantEvents of json.md in order. Clients translate
// their provider's stream into calls on it; they never build events
// themselves, so every API streams the same way.
//
// Every event's Partial points at the one message being built (no copies).
// Text, thinking and argument deltas are appended to strings.Builders whose
// String() shares the growing buffer, so a delta costs time in its own
// length and the whole answer costs memory linear in its size. Strings
// handed out earlier stay valid: their bytes are never rewritten.
//
// Blocks are addressed by the content index returned when they start.
// Starting a block while another is open does not end the other: APIs
// that interleave blocks (parallel tool calls) are fine.
//
// A MessageBuilder is used from one goroutine.
type MessageBuilder struct {
	msg     *AssistantMessage
	model   *Model
	emit    func(AssistantEvent)
	started bool
	ended   bool
	blocks  []*blockState
	guard   *streamGuard // nil unless Begin found one
}

type blockState struct {
	open bool
	text *strings.Builder // text or thinking
	sig  *strings.Builder // thinking signature, when streamed in pieces
	args *PartialJSON     // tool call
}

// NewMessageBuilder starts a message for model (api, provider and model id
// are copied from it). emit may be nil.
func NewMessageBuilder(model *Model, emit func(AssistantEvent)) *MessageBuilder {
	if emit == nil {
		emit = func(AssistantEvent) {}
	}
	m := &AssistantMessage{
		Content:    Blocks{},
		StopReason: StopPending, // until the provider says or the stream ends
		Timestamp:  time.Now().UnixMilli(),
	}
	if model != nil {
		m.API, m.Provider, m.Model = model.API, model.Provider, model.ID
	}
	return &MessageBuilder{msg: m, model: model, emit: emit}
}

// Message returns the message being built (the value Partial points at).
func (b *MessageBuilder) Message() *AssistantMessage { return b.msg }

// HasContent reports whether any content block exists.
func (b *MessageBuilder) HasContent() bool { return len(b.msg.Content) > 0 }

// Begin starts streaming an answer read from body (the body Send
// returned): the content that reaches the builder from now on is what the
// body's guard counts as progress (see streamGuard), so an answer that
// stalls or grows without end is stopped. Then it emits the start event.
// Wire clients call it instead of Start once the response is in.
func (b *MessageBuilder) Begin(body io.Reader) {
	if gb, ok := body.(interface{ guard() *streamGuard }); ok {
		b.guard = gb.guard()
	}
	b.Start()
}

// progress tells the guard, if any, that n content bytes arrived (0 for a
// block start).
func (b *MessageBuilder) progress(n int) {
	if b.guard != nil {
		b.guard.advance(n)
	}
}

// Start emits the start event once; later calls do nothing. The block and
// finish methods call it implicitly.
func (b *MessageBuilder) Start() {
	if b.started {
		return
	}
	b.started = true
	b.emit(AssistantEvent{Type: EventStart, Partial: b.msg})
}

func (b *MessageBuilder) add(blk Block, st *blockState) int {
	b.Start()
	b.progress(0)
	b.msg.Content = append(b.msg.Content, blk)
	b.blocks = append(b.blocks, st)
	return len(b.msg.Content) - 1
}

// state returns the open block at idx of type T, or ok=false (a client bug
// or a provider sending deltas for an unknown block: ignored).
func blockAt[T Block](b *MessageBuilder, idx int) (T, *blockState, bool) {
	var zero T
	if idx < 0 || idx >= len(b.blocks) || !b.blocks[idx].open {
		return zero, nil, false
	}
	blk, ok := b.msg.Content[idx].(T)
	return blk, b.blocks[idx], ok
}

// reserve makes room for n more bytes, doubling the buffer when it grows
// (append's 1.25x growth for large buffers would copy a long answer about
// five times over).
func reserve(sb *strings.Builder, n int) {
	if sb.Cap()-sb.Len() < n {
		sb.Grow(max(n, sb.Len()))
	}
}

// StartText opens a text block and returns its content index.
func (b *MessageBuilder) StartText() int {
	idx := b.add(&TextContent{}, &blockState{open: true, text: &strings.Builder{}})
	b.emit(AssistantEvent{Type: EventTextStart, ContentIndex: idx, Partial: b.msg})
	return idx
}

// AppendText adds delta to text block idx.
func (b *MessageBuilder) AppendText(idx int, delta string) {
	if st, from := b.deltaBlock(idx, false, len(delta)); st != nil {
		st.text.WriteString(delta)
		b.emitDelta(idx, st, from)
	}
}

// deltaBlock returns the state of block idx, with room for n more bytes,
// and its current length, when it is an open thinking block (thinking) or
// text block (!thinking) and n > 0; otherwise nil (a client bug or a
// provider sending deltas for an unknown block: ignored).
func (b *MessageBuilder) deltaBlock(idx int, thinking bool, n int) (*blockState, int) {
	var st *blockState
	var ok bool
	if thinking {
		_, st, ok = blockAt[*ThinkingContent](b, idx)
	} else {
		_, st, ok = blockAt[*TextContent](b, idx)
	}
	if !ok || n == 0 {
		return nil, 0
	}
	b.progress(n)
	from := st.text.Len()
	reserve(st.text, n)
	return st, from
}

// emitDelta publishes the text of block idx after a delta was written to
// it from byte from; the event's Delta shares the block's copy.
func (b *MessageBuilder) emitDelta(idx int, st *blockState, from int) {
	s := st.text.String()
	switch blk := b.msg.Content[idx].(type) {
	case *TextContent:
		blk.Text = s
		b.emit(AssistantEvent{Type: EventTextDelta, ContentIndex: idx, Delta: s[from:], Partial: b.msg})
	case *ThinkingContent:
		blk.Thinking = s
		b.emit(AssistantEvent{Type: EventThinkingDelta, ContentIndex: idx, Delta: s[from:], Partial: b.msg})
	}
}

// SetTextSignature stores opaque provider metadata on text block idx.
func (b *MessageBuilder) SetTextSignature(idx int, sig string) {
	if idx >= 0 && idx < len(b.msg.Content) {
		if blk, ok := b.msg.Content[idx].(*TextContent); ok {
			blk.TextSignature = sig
		}
	}
}

// EndText closes text block idx.
func (b *MessageBuilder) EndText(idx int) {
	blk, st, ok := blockAt[*TextContent](b, idx)
	if !ok {
		return
	}
	st.open = false
	b.emit(AssistantEvent{Type: EventTextEnd, ContentIndex: idx, Content: blk.Text, Partial: b.msg})
}

// StartThinking opens a thinking block and returns its content index.
func (b *MessageBuilder) StartThinking() int {
	idx := b.add(&ThinkingContent{}, &blockState{open: true, text: &strings.Builder{}})
	b.emit(AssistantEvent{Type: EventThinkingStart, ContentIndex: idx, Partial: b.msg})
	return idx
}

// AppendThinking adds delta to thinking block idx.
func (b *MessageBuilder) AppendThinking(idx int, delta string) {
	if st, from := b.deltaBlock(idx, true, len(delta)); st != nil {
		st.text.WriteString(delta)
		b.emitDelta(idx, st, from)
	}
}

// AppendThinkingSignature adds a piece of the replay signature of thinking
// block idx (providers may stream it in parts). No event is emitted.
func (b *MessageBuilder) AppendThinkingSignature(idx int, sig string) {
	blk, st, ok := blockAt[*ThinkingContent](b, idx)
	if !ok {
		return
	}
	if st.sig == nil {
		st.sig = &strings.Builder{}
		st.sig.WriteString(blk.ThinkingSignature)
	}
	b.progress(len(sig))
	st.sig.WriteString(sig)
	blk.ThinkingSignature = st.sig.String()
}

// SetThinkingSignature replaces the replay signature of thinking block idx.
func (b *MessageBuilder) SetThinkingSignature(idx int, sig string) {
	if idx >= 0 && idx < len(b.msg.Content) {
		if blk, ok := b.msg.Content[idx].(*ThinkingContent); ok {
			blk.ThinkingSignature = sig
			b.blocks[idx].sig = nil
		}
	}
}

// EndThinking closes thinking block idx.
func (b *MessageBuilder) EndThinking(idx int) {
	blk, st, ok := blockAt[*ThinkingContent](b, idx)
	if !ok {
		return
	}
	st.open = false
	b.emit(AssistantEvent{Type: EventThinkingEnd, ContentIndex: idx, Content: blk.Thinking, Partial: b.msg})
}

// AddRedactedThinking adds a complete redacted thinking block: the visible
// text is a placeholder and the opaque payload is kept as the signature for
// replay. It emits thinking_start and thinking_end.
func (b *MessageBuilder) AddRedactedThinking(placeholder, payload string) int {
	idx := b.add(&ThinkingContent{Thinking: placeholder, ThinkingSignature: payload, Redacted: true}, &blockState{open: true})
	b.emit(AssistantEvent{Type: EventThinkingStart, ContentIndex: idx, Partial: b.msg})
	b.blocks[idx].open = false
	b.emit(AssistantEvent{Type: EventThinkingEnd, ContentIndex: idx, Content: placeholder, Partial: b.msg})
	return idx
}

// StartToolCall opens a tool-call block and returns its content index.
// While it streams, the block's Arguments stay nil; the live view is the
// PartialArgs of toolcall_delta events.
func (b *MessageBuilder) StartToolCall(id, name string) int {
	idx := b.add(&ToolCall{ID: id, Name: name}, &blockState{open: true, args: &PartialJSON{}})
	b.emit(AssistantEvent{Type: EventToolCallStart, ContentIndex: idx, ID: id, ToolName: name, Partial: b.msg})
	return idx
}

// ToolCall returns tool-call block idx (open or not) so a client can fill
// provider fields (ThoughtSignature, Namespace, a late ID or name).
func (b *MessageBuilder) ToolCall(idx int) *ToolCall {
	if idx >= 0 && idx < len(b.msg.Content) {
		tc, _ := b.msg.Content[idx].(*ToolCall)
		return tc
	}
	return nil
}

// AppendToolCallArgs adds a piece of the JSON arguments of tool call idx and
// parses it incrementally; the event's PartialArgs is the best-effort
// object so far (the same map on every delta of this call, updated in place).
func (b *MessageBuilder) AppendToolCallArgs(idx int, delta string) {
	_, st, ok := blockAt[*ToolCall](b, idx)
	if !ok || delta == "" {
		return
	}
	b.progress(len(delta))
	d := st.args.WriteString(delta)
	b.emit(AssistantEvent{Type: EventToolCallDelta, ContentIndex: idx, Delta: d, Partial: b.msg, PartialArgs: st.args.Value()})
}

// EndToolCall closes tool call idx; its Arguments become the compact JSON of
// what streamed ("{}" when nothing did, the best-effort object when the JSON
// was cut).
func (b *MessageBuilder) EndToolCall(idx int) {
	tc, st, ok := blockAt[*ToolCall](b, idx)
	if !ok {
		return
	}
	st.open = false
	tc.Arguments = st.args.Final()
	st.args = nil
	b.emit(AssistantEvent{Type: EventToolCallEnd, ContentIndex: idx, ToolCall: tc, Partial: b.msg})
}

// EndOpen closes every open block, in index order.
func (b *MessageBuilder) EndOpen() {
	for i, st := range b.blocks {
		if !st.open {
			continue
		}
		switch b.msg.Content[i].(type) {
		case *TextContent:
			b.EndText(i)
		case *ThinkingContent:
			b.EndThinking(i)
		case *ToolCall:
			b.EndToolCall(i)
		}
	}
}

// SetUsage replaces the cumulative usage: TotalTokens becomes the sum of
// input, output, cache read and cache write, and the cost is computed from
// the model's rates. Partial sees it at once (message_update carries it).
func (b *MessageBuilder) SetUsage(u Usage) {
	u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	if b.model != nil {
		b.model.CalculateCost(&u)
	}
	b.msg.Usage = u
}

// SetStopReason sets the mapped stop reason and the provider's raw value.
func (b *MessageBuilder) SetStopReason(r StopReason, raw string) {
	b.msg.StopReason = r
	b.msg.RawStopReason = raw
}

// SetResponseID records the provider's response id.
func (b *MessageBuilder) SetResponseID(id string) { b.msg.ResponseID = id }

// SetResponseModel records the model id the provider says answered, when it
// differs from the requested one.
func (b *MessageBuilder) SetResponseModel(model string) {
	if model != "" && model != b.msg.Model {
		b.msg.ResponseModel = model
	}
}

// Finish closes open blocks and emits done with the final message. The
// stop reason is "stop" unless the client set another; error or aborted
// set by the client is turned into Fail.
func (b *MessageBuilder) Finish() *AssistantMessage {
	if b.ended {
		return b.msg
	}
	if b.msg.StopReason == StopError || b.msg.StopReason == StopAborted {
		msg := b.msg.ErrorMessage
		if msg == "" {
			msg = "provider stopped with " + string(b.msg.StopReason)
		}
		kind := ErrOther
		if b.msg.StopReason == StopAborted {
			kind = ErrAborted
		}
		return b.Fail(&ProviderError{Kind: kind, Message: msg})
	}
	if b.msg.StopReason == StopPending {
		b.msg.StopReason = StopStop
	}
	b.Start()
	b.EndOpen()
	b.ended = true
	b.emit(AssistantEvent{Type: EventDone, Reason: b.msg.StopReason, Message: b.msg, Partial: b.msg})
	return b.msg
}

// Fail ends the message with stop reason error (aborted for ErrAborted),
// keeping the partial content: open text and thinking keep what streamed,
// open tool calls get their best-effort arguments. No *_end events are
// emitted for blocks cut short; the error event carries the final message.
func (b *MessageBuilder) Fail(err *ProviderError) *AssistantMessage {
	if b.ended {
		return b.msg
	}
	b.Start()
	for i, st := range b.blocks {
		if st.open {
			st.open = false
			if tc, ok := b.msg.Content[i].(*ToolCall); ok && st.args != nil {
				tc.Arguments = st.args.Final()
				st.args = nil
			}
		}
	}
	b.msg.StopReason = StopError
	if err.Kind == ErrAborted {
		b.msg.StopReason = StopAborted
	}
	b.msg.ErrorMessage = err.Message
	b.msg.Err = err
	b.ended = true
	b.emit(AssistantEvent{Type: EventError, Reason: b.msg.StopReason, Message: b.msg, Partial: b.msg})
	return b.msg
}

// FailWith classifies err (see ErrorFromContext and AsProviderError) and
// fails the message: a cancelled ctx gives "aborted", whatever the read
// error looked like.
func (b *MessageBuilder) FailWith(ctx context.Context, err error) *AssistantMessage {
	if pe := ErrorFromContext(ctx); pe != nil {
		return b.Fail(pe)
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		return b.Fail(pe)
	}
	return b.Fail(NetworkError(err, b.started))
}
