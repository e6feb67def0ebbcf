// Package transcript holds the conversation as rendered blocks: user
// prompts, streamed markdown answers, thinking, tool calls with their
// results and diffs, shell runs, errors and notices. Each block caches its
// lines per width, and the viewport renders only the rows it shows, so a
// 10,000-message session scrolls and types without lag.
package transcript

import (
	"fmt"
	"strings"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui/markdown"
	"github.com/relay-agent/relay/internal/tui/theme"
)

// Options are the display settings the transcript honours.
type Options struct {
	HideThinking bool // hideThinkingBlock
	OutputPad    int  // outputPad: columns left and right of answers
	// CollapsedLines is how many output lines a collapsed tool shows.
	CollapsedLines int
}

// Transcript is the list of blocks plus the fullscreen viewport.
type Transcript struct {
	md    *markdown.Renderer
	ctx   renderCtx
	items []*item
	img   ImageOptions
	// pendingImg holds deletions left by a switched-off placeholder mode.
	pendingImg string

	// streaming assistant message: content index -> item
	current map[int]*item
	tools   map[string]*item

	committed int // regular mode: items already printed to scrollback

	compacting *item // the "Compacting context…" line while it runs

	vp viewport
}

// New returns an empty transcript.
func New(md *markdown.Renderer, o Options) *Transcript {
	if o.CollapsedLines <= 0 {
		o.CollapsedLines = 10
	}
	t := &Transcript{md: md, tools: map[string]*item{}}
	t.ctx = renderCtx{th: md.Theme(), hideThinking: o.HideThinking, outputPad: o.OutputPad, collapsedMax: o.CollapsedLines}
	t.vp.follow = true
	return t
}

// SetRenderer swaps renderer and theme (after /reload or a theme change);
// every block re-renders on next view.
func (t *Transcript) SetRenderer(md *markdown.Renderer) {
	t.md = md
	t.ctx.th = md.Theme()
	for _, it := range t.items {
		if it.doc != nil {
			text := it.doc.Text()
			it.doc = md.NewDoc()
			it.doc.Append(text)
			if it.done {
				it.doc.Finish()
			}
		}
		it.touch()
	}
}

// SetOutputPad changes outputPad; every block re-renders on next view.
func (t *Transcript) SetOutputPad(n int) {
	t.ctx.outputPad = n
	for _, it := range t.items {
		it.touch()
	}
}

// SetImages sets how images are drawn: in the lines regular mode prints
// (TakeCommitted) with the protocol's own sequences; in redrawn lines (the
// fullscreen view, live blocks) only with kitty and Placeholders, else as
// the marker.
func (t *Transcript) SetImages(o ImageOptions) {
	t.img = o
	want := o.Protocol == ProtocolKitty && o.Placeholders
	if t.ctx.kitty != nil && (!want || t.ctx.kitty.widthCells != o.WidthCells) {
		t.ctx.kitty.clear()
		t.pendingImg += t.ctx.kitty.take()
		t.ctx.kitty = nil
	}
	if want && t.ctx.kitty == nil {
		t.ctx.kitty = newKittyImages(o.WidthCells)
	}
	for _, it := range t.items {
		it.touch()
	}
}

// TakeImageCommands returns the graphics commands (kitty image
// transmissions and deletions) to write to the terminal before the next
// frame, outside the renderer.
func (t *Transcript) TakeImageCommands() string {
	s := t.pendingImg
	t.pendingImg = ""
	if t.ctx.kitty != nil {
		s += t.ctx.kitty.take()
	}
	return s
}

// placeImages sends a new item's images ahead of its first frame.
func (t *Transcript) placeImages(it *item) {
	if t.ctx.kitty == nil {
		return
	}
	for _, img := range it.images {
		t.ctx.kitty.place(img)
	}
}

// Theme is the active theme.
func (t *Transcript) Theme() *theme.Theme { return t.ctx.th }

// Len is the number of blocks.
func (t *Transcript) Len() int { return len(t.items) }

// ToolsExpanded reports whether tool output is expanded.
func (t *Transcript) ToolsExpanded() bool { return t.ctx.toolsExpanded }

// SetToolsExpanded expands or collapses every tool output (app.tools.expand).
func (t *Transcript) SetToolsExpanded(v bool) { t.ctx.toolsExpanded = v }

// ThinkingHidden reports whether thinking blocks are collapsed.
func (t *Transcript) ThinkingHidden() bool { return t.ctx.hideThinking }

// SetThinkingHidden collapses or expands thinking (app.thinking.toggle).
func (t *Transcript) SetThinkingHidden(v bool) { t.ctx.hideThinking = v }

// SetThinkingLabel sets the label of collapsed thinking blocks ("" = the
// default); an extension's ctx.ui.setHiddenThinkingLabel.
func (t *Transcript) SetThinkingLabel(label string) {
	if label == t.ctx.thinkingLabel {
		return
	}
	t.ctx.thinkingLabel = label
	for _, it := range t.items {
		if it.kind == KindThinking {
			it.version++
		}
	}
}

// Clear drops every block (new session, resume, tree navigation).
func (t *Transcript) Clear() {
	if t.ctx.kitty != nil {
		t.ctx.kitty.clear()
	}
	t.items, t.current, t.committed = nil, nil, 0
	t.ctx.cached = 0
	t.ctx.extItems, t.ctx.wants = nil, nil
	t.tools = map[string]*item{}
	t.vp = viewport{follow: true}
}

func (t *Transcript) add(it *item) *item {
	t.items = append(t.items, it)
	return it
}

// remove drops it unless regular mode already printed it to scrollback.
func (t *Transcript) remove(it *item) {
	if it == nil {
		return
	}
	for i := t.committed; i < len(t.items); i++ {
		if t.items[i] == it {
			it.dropCache(&t.ctx)
			t.items = append(t.items[:i], t.items[i+1:]...)
			if t.vp.anchor > i {
				t.vp.anchor-- // the rows shown stay the same
			} else if t.vp.anchor == i {
				t.vp.off = 0
			}
			t.ctx.gen++
			return
		}
	}
}

// compactedText reports a compaction's figures. The estimate after is
// given only when it is smaller: summarizing a short conversation can
// yield more text than it replaced, and a figure "after" above the one
// "before" reads as an error.
func compactedText(r *agent.CompactionResult) string {
	s := fmt.Sprintf("Compacted context: %d tokens summarized", r.TokensBefore)
	if a := r.EstimatedTokensAfter; a != nil && *a < r.TokensBefore {
		s += fmt.Sprintf(", about %d after", *a)
	}
	return s
}

// AddNotice appends an informational line (status of commands, retries).
func (t *Transcript) AddNotice(text string) {
	t.add(&item{kind: KindNotice, text: text, done: true})
}

// AddMarkdown appends markdown that is not an answer (the changelog):
// drawn as one, never copied as the last answer.
func (t *Transcript) AddMarkdown(text string) {
	it := &item{kind: KindText, doc: t.md.NewDoc(), done: true, notAnswer: true}
	it.doc.Append(text)
	it.doc.Finish()
	t.add(it)
}

// AddError appends an error line.
func (t *Transcript) AddError(text string) {
	t.add(&item{kind: KindError, text: text, done: true})
}

// AddMessages appends finished messages (a resumed session's branch).
func (t *Transcript) AddMessages(ms []llm.Message) {
	for _, m := range ms {
		t.AddMessage(m)
	}
}

// AddMessage appends one finished message.
func (t *Transcript) AddMessage(m llm.Message) {
	switch m := m.(type) {
	case *llm.UserMessage:
		t.placeImages(t.add(&item{kind: KindUser, text: contentText(m.Content), images: imagesOf(m.Content.Blocks), done: true}))
	case *llm.AssistantMessage:
		for _, b := range m.Content {
			switch b := b.(type) {
			case *llm.TextContent:
				if strings.TrimSpace(b.Text) == "" {
					continue
				}
				it := &item{kind: KindText, doc: t.md.NewDoc(), done: true}
				it.doc.Append(b.Text)
				it.doc.Finish()
				t.add(it)
			case *llm.ThinkingContent:
				if b.Redacted || strings.TrimSpace(b.Thinking) == "" {
					continue
				}
				it := &item{kind: KindThinking, done: true}
				it.buf.WriteString(b.Thinking)
				t.add(it)
			case *llm.ToolCall:
				it := &item{kind: KindTool, toolID: b.ID, toolName: b.Name, args: b.Arguments}
				t.tools[b.ID] = it
				t.add(it)
			}
		}
		t.endAssistant(m)
	case *llm.ToolResultMessage:
		it := t.tools[m.ToolCallID]
		if it == nil {
			it = t.add(&item{kind: KindTool, toolID: m.ToolCallID, toolName: m.ToolName})
		}
		it.output, it.details, it.isError, it.done, it.running = blocksText(m.Content), m.Details, m.IsError, true, false
		it.images = imagesOf(m.Content)
		t.placeImages(it)
		it.touch()
	case *llm.BashExecutionMessage:
		t.add(&item{kind: KindBash, text: m.Command, output: m.Output, exitCode: m.ExitCode, cancelled: m.Cancelled,
			excluded: m.ExcludeFromContext, done: true})
	case *llm.CustomMessage:
		if m.Display {
			t.add(customItem(m))
		}
	case *EntryMessage:
		if t.ctx.has != nil && t.ctx.has(hooks.RenderEntry, m.CustomType) {
			t.AddEntry(m.ID, m.CustomType, m.Data)
		}
	case *llm.BranchSummaryMessage:
		t.add(&item{kind: KindSummary, label: "[branch]", head: "Branch summary", text: readableSummary(m.Summary), done: true})
	case *llm.CompactionSummaryMessage:
		t.add(&item{kind: KindSummary, label: "[compaction]", head: fmt.Sprintf("Compacted from %d tokens", m.TokensBefore),
			text: readableSummary(m.Summary), done: true})
	}
}

func (t *Transcript) endAssistant(m *llm.AssistantMessage) {
	switch m.StopReason {
	case llm.StopError:
		msg := m.ErrorMessage
		if msg == "" {
			msg = "the provider returned an error"
		}
		t.AddError(msg)
	case llm.StopAborted:
		t.add(&item{kind: KindNotice, text: "Aborted", done: true})
	}
}

func contentText(c llm.Content) string {
	if c.IsString {
		return c.Text
	}
	return blocksText(c.Blocks)
}

// Apply folds one agent event into the transcript.
func (t *Transcript) Apply(ev agent.Event) {
	if ev.ParentToolCallID != "" {
		// A nested call (a codemode script's): its parent's block shows it,
		// as a resumed session does, where only the parent is recorded.
		return
	}
	switch ev.Type {
	case agent.MessageStart:
		switch m := ev.Message.(type) {
		case *llm.AssistantMessage:
			t.current = map[int]*item{}
		default:
			t.AddMessage(m)
		}
	case agent.MessageUpdate:
		if ev.AssistantEvent != nil {
			t.applyDelta(ev.AssistantEvent)
		}
	case agent.MessageEnd:
		if m, ok := ev.Message.(*llm.AssistantMessage); ok {
			t.finishAssistant(m)
		}
	case agent.ToolExecutionStart:
		it := t.toolItem(ev.ToolCallID, ev.ToolName)
		if len(ev.Args) > 0 {
			it.args = ev.Args
		}
		it.running = true
		it.touch()
	case agent.ToolExecutionUpdate:
		it := t.toolItem(ev.ToolCallID, ev.ToolName)
		if ev.Output != nil {
			it.output = blocksText(ev.Output.Content)
			it.details = ev.Output.Details
		}
		it.touch()
	case agent.ToolExecutionEnd:
		it := t.toolItem(ev.ToolCallID, ev.ToolName)
		if ev.Output != nil {
			it.output = blocksText(ev.Output.Content)
			it.details = ev.Output.Details
			it.images = imagesOf(ev.Output.Content)
			t.placeImages(it)
		}
		it.isError, it.done, it.running = ev.IsError, true, false
		it.touch()
	case agent.AutoRetryStart:
		t.AddNotice(fmt.Sprintf("Retrying (%d/%d) in %ds: %s", ev.Attempt, ev.MaxAttempts, (ev.DelayMs+999)/1000, ev.ErrorMessage))
	case agent.AutoRetryEnd:
		switch {
		case ev.Success:
		case ev.Cancelled:
			// The user pressed escape: not a failure to shout about.
			t.AddNotice("Retry cancelled")
		default:
			t.AddError(fmt.Sprintf("Retry failed after %d attempts: %s", ev.Attempt, ev.FinalError))
		}
	case agent.CompactionStart:
		t.compacting = t.add(&item{kind: KindNotice, text: fmt.Sprintf("Compacting context (%s)…", ev.Reason), done: true})
	case agent.CompactionEnd:
		// The progress line goes; the outcome takes its place.
		t.remove(t.compacting)
		t.compacting = nil
		switch {
		case ev.Aborted:
			t.AddNotice("Compaction aborted")
		case ev.Result == nil && compaction.NothingToDo(ev.ErrorMessage):
			t.AddNotice(ev.ErrorMessage)
		case ev.Result == nil:
			t.AddError("Compaction failed: " + ev.ErrorMessage)
		default:
			t.AddNotice(compactedText(ev.Result))
		}
	case agent.SummarizationRetryScheduled:
		t.AddNotice(fmt.Sprintf("Summary retry (%d/%d) in %ds: %s", ev.Attempt, ev.MaxAttempts, (ev.DelayMs+999)/1000, ev.ErrorMessage))
	case agent.SessionWriteFailed:
		t.AddError("Session not saved, the run stopped: " + ev.Error + ". Nothing is lost yet: the next message retries the write.")
	case agent.ExtensionError:
		t.AddError(fmt.Sprintf("extension %s (%s): %s", ev.ExtensionPath, ev.Event, ev.Error))
	}
}

func (t *Transcript) toolItem(id, name string) *item {
	if it, ok := t.tools[id]; ok {
		return it
	}
	it := t.add(&item{kind: KindTool, toolID: id, toolName: name})
	t.tools[id] = it
	return it
}

// newToolCall returns the block of a tool call the model is making now.
// Call ids are only unique within one turn (some OpenAI-compatible servers
// number them call_0, call_1, … every turn), so a finished block with the
// same id belongs to an earlier call and must not be reused.
func (t *Transcript) newToolCall(id, name string) *item {
	if it, ok := t.tools[id]; ok && !it.done && it.toolName == name {
		return it
	}
	it := t.add(&item{kind: KindTool, toolID: id, toolName: name})
	t.tools[id] = it
	return it
}

func (t *Transcript) applyDelta(e *llm.AssistantEvent) {
	if t.current == nil {
		t.current = map[int]*item{}
	}
	it := t.current[e.ContentIndex]
	switch e.Type {
	case llm.EventTextStart:
		t.current[e.ContentIndex] = t.add(&item{kind: KindText, doc: t.md.NewDoc()})
	case llm.EventTextDelta:
		if it == nil {
			it = t.add(&item{kind: KindText, doc: t.md.NewDoc()})
			t.current[e.ContentIndex] = it
		}
		it.doc.Append(e.Delta)
		it.touch()
	case llm.EventTextEnd:
		if it != nil {
			it.doc.SetText(e.Content)
			it.doc.Finish()
			it.done = true
			it.touch()
		}
	case llm.EventThinkingStart:
		t.current[e.ContentIndex] = t.add(&item{kind: KindThinking})
	case llm.EventThinkingDelta:
		if it == nil {
			it = t.add(&item{kind: KindThinking})
			t.current[e.ContentIndex] = it
		}
		it.buf.WriteString(e.Delta)
		it.touch()
	case llm.EventThinkingEnd:
		if it != nil {
			it.buf.Reset()
			it.buf.WriteString(e.Content)
			it.done = true
			it.touch()
		}
	case llm.EventToolCallStart:
		ti := t.newToolCall(e.ID, e.ToolName)
		t.current[e.ContentIndex] = ti
	case llm.EventToolCallDelta:
		if it != nil && e.PartialArgs != nil {
			it.partialArgs = e.PartialArgs
			it.touch()
		}
	case llm.EventToolCallEnd:
		if e.ToolCall != nil {
			ti := it
			if ti == nil || ti.kind != KindTool {
				ti = t.newToolCall(e.ToolCall.ID, e.ToolCall.Name)
				t.current[e.ContentIndex] = ti
			}
			ti.args = e.ToolCall.Arguments
			ti.touch()
		}
	}
}

// finishAssistant reconciles the streamed blocks with the final message.
func (t *Transcript) finishAssistant(m *llm.AssistantMessage) {
	for idx, b := range m.Content {
		it := t.current[idx]
		switch b := b.(type) {
		case *llm.TextContent:
			if it == nil && strings.TrimSpace(b.Text) != "" {
				it = t.add(&item{kind: KindText, doc: t.md.NewDoc()})
			}
			if it != nil && it.doc != nil {
				it.doc.SetText(b.Text)
				it.doc.Finish()
			}
		case *llm.ThinkingContent:
			if it != nil {
				it.buf.Reset()
				it.buf.WriteString(b.Thinking)
			}
		case *llm.ToolCall:
			ti := it
			if ti == nil || ti.kind != KindTool {
				ti = t.newToolCall(b.ID, b.Name)
			}
			ti.args = b.Arguments
			ti.touch()
		}
		if it != nil && it.kind != KindTool {
			it.done = true
			it.touch()
		}
	}
	for _, it := range t.current {
		if it.kind != KindTool && !it.done {
			it.done = true
			it.touch()
		}
	}
	t.current = nil
	t.endAssistant(m)
}

// LastAssistantText is the text of the last answer (/copy, app.message.copy).
func (t *Transcript) LastAssistantText() string {
	for i := len(t.items) - 1; i >= 0; i-- {
		if it := t.items[i]; it.kind == KindText && !it.notAnswer {
			return it.doc.Text()
		}
	}
	return ""
}

// TakeCommitted returns the lines of finished blocks not yet printed, for
// the regular (inline) mode, which prints them once to the terminal's own
// scrollback and never redraws them. Blocks are committed in order: an
// unfinished block holds back the ones after it.
func (t *Transcript) TakeCommitted(width int) []string {
	var out []string
	for t.committed < len(t.items) && t.items[t.committed].done {
		it := t.items[t.committed]
		lines := it.render(&t.ctx, width)
		if it.extPending() {
			// An extension renderer's answer is on its way (bounded by
			// the UI's render timeout): print it, not relay's fallback.
			break
		}
		if len(lines) > 0 || it.kind != KindEntry {
			out = append(out, "")
			out = append(out, lines...)
		}
		if t.ctx.kitty == nil { // with placeholders render drew them
			for _, img := range it.images {
				out = append(out, imageLines(img, t.img, width)...)
			}
		}
		it.dropCache(&t.ctx) // printed once: never drawn again
		t.committed++
	}
	return out
}

// Live returns the lines of blocks not yet committed (regular mode).
func (t *Transcript) Live(width int) []string {
	var out []string
	for _, it := range t.items[t.committed:] {
		lines := it.render(&t.ctx, width)
		if len(lines) > 0 || it.kind != KindEntry {
			out = append(out, "")
			out = append(out, lines...)
		}
	}
	return out
}
