package transcript

import (
	"encoding/json"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
)

// Blocks an extension renderer draws (a custom message or entry with a
// registered renderer, a tool with renderCall / renderResult) get their
// lines from the extension host, which may take a while: drawing never
// waits for it. A block asks for lines by recording a RenderWant; the UI
// asks the renderer off its loop and hands the answer back with
// SetRendered. Meanwhile the block shows the lines of its previous answer,
// or relay's own rendering; regular mode holds the block (and those after
// it) back from the scrollback until the answer, or its failure, arrived.

// Slots of a block drawn by renderers.
const (
	slotMain   = 0 // the message, the entry, a tool's call header
	slotResult = 1 // a tool's result
)

// RenderWant is one renderer call a block is waiting for.
type RenderWant struct {
	Block int64 // the block's id
	Slot  int
	Seq   int // the request's number within the slot
	Req   hooks.RenderRequest
}

// extSlot is one renderer-drawn part of a block.
type extSlot struct {
	lines    []string
	ok       bool // the renderer drew lines (false: declined or failed)
	answered bool // lines and ok are the answer for key
	key      slotKey
	inflight bool
	seq      int
	asked    slotKey
}

// slotKey is what a slot's lines depend on.
type slotKey struct {
	width    int
	expanded bool
	data     int // the block's data version
}

// HasRenderer reports whether an extension renderer draws target name.
type HasRenderer func(target hooks.RenderTarget, name string) bool

// SetRenderers tells the transcript which renderers exist (nil: none) and
// how to wake the UI when a block wants lines.
func (t *Transcript) SetRenderers(has HasRenderer, wake func()) {
	t.ctx.has, t.ctx.wake = has, wake
	for _, it := range t.items {
		it.touch()
	}
}

// TakeRenderWants returns the renderer calls blocks asked for since the
// last call.
func (t *Transcript) TakeRenderWants() []RenderWant {
	w := t.ctx.wants
	t.ctx.wants = nil
	return w
}

// SetRendered is a renderer's answer to want: lines, or ok false when it
// declined or failed (the block then draws relay's own rendering).
func (t *Transcript) SetRendered(w RenderWant, lines []string, ok bool) {
	it := t.ctx.extItems[w.Block]
	if it == nil {
		return
	}
	s := it.ext[w.Slot]
	if s == nil || s.seq != w.Seq {
		return
	}
	s.inflight = false
	s.answered, s.key, s.ok = true, s.asked, ok
	if ok {
		s.lines = lines
	} else {
		s.lines = nil
	}
	// Redraw without touching the data version: the same answer stays
	// valid.
	it.version++
	t.ctx.gen++
}

// slot returns the block's slot for target/name, nil when no renderer
// draws it.
func (it *item) slot(c *renderCtx, i int, target hooks.RenderTarget, name string) *extSlot {
	if c.has == nil || !c.has(target, name) {
		it.ext[i] = nil
		return nil
	}
	if it.ext[i] == nil {
		it.ext[i] = &extSlot{}
		if it.id == 0 {
			c.lastID++
			it.id = c.lastID
		}
		if c.extItems == nil {
			c.extItems = map[int64]*item{}
		}
		c.extItems[it.id] = it
	}
	return it.ext[i]
}

// extLines returns a slot's lines for key and whether they are the
// renderer's (false: draw relay's own). It asks for an answer when it
// has none for key; pending reports that it is waiting for one.
func (it *item) extLines(c *renderCtx, i int, s *extSlot, key slotKey, req func() hooks.RenderRequest) (lines []string, ok, pending bool) {
	if s.answered && s.key == key {
		return s.lines, s.ok, false
	}
	// One call per slot at a time: a block that changes while its
	// renderer works (a streaming tool) asks again when the answer
	// arrives, for its state then.
	if !s.inflight {
		s.seq++
		s.inflight, s.asked = true, key
		r := req()
		r.Width, r.Expanded = key.width, key.expanded
		c.wants = append(c.wants, RenderWant{Block: it.id, Slot: i, Seq: s.seq, Req: r})
		if c.wake != nil {
			c.wake()
		}
	}
	// Waiting: the previous answer's lines, if any, else relay's own.
	return s.lines, s.ok && s.lines != nil, true
}

// extPending reports whether the block waits for a renderer's answer
// (regular mode holds it back from the scrollback meanwhile).
func (it *item) extPending() bool {
	for _, s := range it.ext {
		if s != nil && s.inflight {
			return true
		}
	}
	return false
}

// fit cuts renderer lines to width, one row each, styling reset after
// each.
func fit(lines []string, width int, pad string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = strings.NewReplacer("\r", "", "\n", " ", "\t", "    ").Replace(l)
		out = append(out, pad+ansi.Truncate(l, width, "")+"\x1b[0m")
	}
	return out
}

// drawCustom draws a custom message: its renderer's lines, or relay's box.
func (it *item) drawCustom(c *renderCtx, width, inner int) []string {
	if s := it.slot(c, slotMain, hooks.RenderMessage, it.customType); s != nil {
		key := slotKey{width: width, expanded: c.toolsExpanded, data: it.dver}
		lines, ok, pending := it.extLines(c, slotMain, s, key, func() hooks.RenderRequest {
			return hooks.RenderRequest{Target: hooks.RenderMessage, Name: it.customType, Data: it.extData}
		})
		if ok {
			return fit(lines, width, "")
		}
		if pending && !s.answered {
			// Its first answer is on its way: nothing rather than relay's
			// box for a moment (the renderer's timeout bounds the wait).
			return nil
		}
	}
	return boxed(c.th, "customMessageBg", "customMessageText", wrapPlain(it.text, inner-2), width)
}

// drawEntry draws a custom entry: only its renderer's lines (a custom
// entry has no rendering of its own).
func (it *item) drawEntry(c *renderCtx, width int) []string {
	s := it.slot(c, slotMain, hooks.RenderEntry, it.customType)
	if s == nil {
		return nil
	}
	key := slotKey{width: width, expanded: c.toolsExpanded, data: it.dver}
	lines, ok, _ := it.extLines(c, slotMain, s, key, func() hooks.RenderRequest {
		return hooks.RenderRequest{Target: hooks.RenderEntry, Name: it.customType, Data: it.extData}
	})
	if !ok {
		return nil
	}
	return fit(lines, width, "")
}

// toolHeader is the renderCall lines of a tool block (ok false: relay's
// own title).
func (it *item) toolHeader(c *renderCtx, w int) ([]string, bool) {
	s := it.slot(c, slotMain, hooks.RenderToolCall, it.toolName)
	if s == nil {
		return nil, false
	}
	key := slotKey{width: w, expanded: c.toolsExpanded, data: it.dver}
	lines, ok, _ := it.extLines(c, slotMain, s, key, func() hooks.RenderRequest {
		return hooks.RenderRequest{Target: hooks.RenderToolCall, Name: it.toolName, Data: it.toolData()}
	})
	if !ok {
		return nil, false
	}
	return fit(lines, w, ""), true
}

// toolBody is the renderResult lines of a tool block that has output
// (ok false: relay's own).
func (it *item) toolBody(c *renderCtx, w int) ([]string, bool) {
	if !it.done && it.output == "" && len(it.details) == 0 {
		it.ext[slotResult] = nil
		return nil, false
	}
	s := it.slot(c, slotResult, hooks.RenderToolResult, it.toolName)
	if s == nil {
		return nil, false
	}
	key := slotKey{width: w, expanded: c.toolsExpanded, data: it.dver}
	lines, ok, pending := it.extLines(c, slotResult, s, key, func() hooks.RenderRequest {
		return hooks.RenderRequest{Target: hooks.RenderToolResult, Name: it.toolName, Data: it.toolData()}
	})
	if !ok && pending && !s.answered {
		// The first answer is on its way: no body rather than relay's
		// for a moment.
		return nil, true
	}
	if !ok {
		return nil, false
	}
	return fit(lines, w, ""), true
}

// toolData is the block's state as tool renderers receive it.
func (it *item) toolData() json.RawMessage {
	args := it.args
	if len(args) == 0 {
		args, _ = json.Marshal(it.partialArgs)
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	d := hooks.RenderTool{ToolCallID: it.toolID, Args: args, ArgsComplete: len(it.args) > 0,
		ExecutionStarted: it.running || it.done, IsPartial: !it.done, IsError: it.isError}
	if it.done || it.output != "" || len(it.details) > 0 {
		type text struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		res := struct {
			Content []text          `json:"content"`
			Details json.RawMessage `json:"details,omitempty"`
		}{Content: []text{}, Details: it.details}
		if it.output != "" {
			res.Content = append(res.Content, text{"text", it.output})
		}
		d.Result, _ = json.Marshal(res)
	}
	b, _ := json.Marshal(d)
	return b
}

// AddEntry appends a custom entry (appendEntry); it is drawn only by its
// renderer.
func (t *Transcript) AddEntry(id, customType string, data json.RawMessage) {
	entry := map[string]any{"type": "custom", "id": id, "customType": customType}
	if len(data) > 0 {
		entry["data"] = data
	}
	raw, _ := json.Marshal(entry)
	t.add(&item{kind: KindEntry, customType: customType, extData: raw, done: true})
}

// EntryMessage carries a custom entry of the session among the messages
// the transcript is drawn from (a resumed session's branch); it is never
// sent anywhere.
type EntryMessage struct {
	ID         string
	CustomType string
	Data       json.RawMessage
}

// MessageRole marks it as no role the model knows.
func (*EntryMessage) MessageRole() string { return "relay:customEntry" }

// customItem is the block of a custom message.
func customItem(m *llm.CustomMessage) *item {
	raw, _ := llm.Marshal(m)
	return &item{kind: KindCustom, text: "[" + m.CustomType + "] " + contentText(m.Content), customType: m.CustomType,
		extData: raw, done: true}
}
