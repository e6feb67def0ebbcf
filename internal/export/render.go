package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yuin/goldmark"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// Entry flags sent to the page (meta "f").
const (
	flagSettings   = 1 << iota // hidden by the default and no-tools filters
	flagToolOnly               // assistant message with tool calls and no text
	flagToolResult             // hidden by the no-tools filter
	flagUser                   // kept by the user filter
	flagError                  // drawn as an error in the tree
	flagSlotted                // a tool result drawn inside its call (no block of its own)
)

// item is what the page knows of an entry besides its HTML fragment.
type item struct {
	e      *session.Entry
	parent int
	label  string
	// tree line: a coloured prefix (class, text) and plain text.
	treeClass, treePrefix, treeText string
	flags                           int
	callID                          string // a tool result's call
}

// renderer holds the per-export state the fragments need.
type renderer struct {
	md     goldmark.Markdown
	hl     *highlighter
	items  []item
	index  map[string]int
	calls  map[string]*llm.ToolCall // tool call id -> call
	result map[string]int           // tool call id -> first result entry
	stats  stats
}

func newRenderer() *renderer {
	hl := newHighlighter()
	return &renderer{md: newMarkdown(hl), hl: hl, index: map[string]int{}, calls: map[string]*llm.ToolCall{}, result: map[string]int{}}
}

// prepare indexes the entries and works out the tree lines, flags and the
// header's figures. Messages are decoded without caching (here and again in
// fragment) so a large session's messages do not all stay in memory.
func (r *renderer) prepare(entries []*session.Entry, labels map[string]string) {
	r.items = make([]item, len(entries))
	for i, e := range entries {
		r.index[e.ID] = i
	}
	models := map[string]bool{}
	for i, e := range entries {
		it := &r.items[i]
		it.e = e
		it.parent = -1
		// A parent is written before its children; one that is not (a
		// hand-edited or corrupt file, possibly a cycle) makes the entry a
		// root, so the page's tree walks always end.
		if p, ok := r.index[e.ParentID]; ok && p < i {
			it.parent = p
		}
		it.label = labels[e.ID]
		var m llm.Message
		var err error
		if e.Type == session.TypeMessage {
			m, err = e.DecodeMessage()
		}
		r.treeLine(it, m, err)
		r.stats.add(e, m, models)
		switch v := m.(type) {
		case *llm.AssistantMessage:
			for _, c := range v.ToolCalls() {
				if _, dup := r.calls[c.ID]; !dup {
					r.calls[c.ID] = c
				}
			}
		case *llm.ToolResultMessage:
			if _, dup := r.result[v.ToolCallID]; !dup {
				r.result[v.ToolCallID] = i
			}
		}
	}
	// Tool results name their call, which may come later in the file.
	for i := range r.items {
		it := &r.items[i]
		if it.callID == "" {
			continue
		}
		if c, ok := r.calls[it.callID]; ok {
			it.flags |= flagSlotted
			it.treeText = oneLine(callSummary(c.Name, c.Arguments))
		}
	}
}

const treeTextMax = 100

func oneLine(s string) string {
	// Only the start can show: cut long texts (on a rune boundary) before
	// collapsing their white space.
	if len(s) > 8*treeTextMax {
		cut := 8 * treeTextMax
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > treeTextMax {
		rs := []rune(s)
		s = string(rs[:treeTextMax-1]) + "…"
	}
	return s
}

func (r *renderer) treeLine(it *item, m llm.Message, err error) {
	e := it.e
	set := func(class, prefix, text string) { it.treeClass, it.treePrefix, it.treeText = class, prefix, text }
	switch e.Type {
	case session.TypeMessage:
		if err != nil {
			set("tree-error", "[unreadable message]", "")
			it.flags |= flagError
			return
		}
		switch v := m.(type) {
		case *llm.UserMessage:
			it.flags |= flagUser
			set("tree-role-user", "user:", oneLine(v.Content.PlainText()))
		case *llm.AssistantMessage:
			text := oneLine(v.Content.PlainText())
			failed := v.StopReason == llm.StopError || v.StopReason == llm.StopAborted
			switch {
			case text != "":
				set("tree-role-assistant", "assistant:", text)
			case v.StopReason == llm.StopAborted:
				set("tree-role-assistant", "assistant:", "(aborted)")
			case v.ErrorMessage != "":
				set("tree-role-assistant", "assistant:", oneLine(v.ErrorMessage))
			default:
				set("tree-role-assistant", "assistant:", "(no text)")
			}
			if failed {
				it.flags |= flagError
			} else if text == "" && len(v.ToolCalls()) > 0 {
				it.flags |= flagToolOnly
			}
		case *llm.ToolResultMessage:
			it.flags |= flagToolResult
			if v.IsError {
				it.flags |= flagError
			}
			it.callID = v.ToolCallID
			set("tree-role-tool", "", "["+v.ToolName+"]")
		case *llm.BashExecutionMessage:
			set("tree-role-tool", "[bash]:", oneLine(v.Command))
		case *llm.CustomMessage:
			set("tree-custom", "["+v.CustomType+"]:", oneLine(v.Content.PlainText()))
		case *llm.SystemMessage:
			set("tree-muted", "[system prompt]", "")
		default:
			set("tree-muted", "["+m.MessageRole()+"]", "")
		}
	case session.TypeCompaction:
		tokens := 0
		if c := e.Compaction(); c != nil {
			tokens = c.TokensBefore
		}
		set("tree-compaction", fmt.Sprintf("[compaction: %dk tokens]", (tokens+500)/1000), "")
	case session.TypeBranchSummary:
		s := ""
		if b := e.BranchSummary(); b != nil {
			s = b.Summary
		}
		set("tree-branch-summary", "[branch summary]:", oneLine(s))
	case session.TypeCustomMessage:
		if c := e.CustomMessage(); c != nil {
			set("tree-custom", "["+c.CustomType+"]:", oneLine(c.Content.PlainText()))
		}
	case session.TypeModelChange:
		it.flags |= flagSettings
		if m := e.ModelChange(); m != nil {
			set("tree-muted", "[model: "+m.ModelID+"]", "")
		}
	case session.TypeThinkingLevelChange:
		it.flags |= flagSettings
		if t := e.ThinkingLevelChange(); t != nil {
			set("tree-muted", "[thinking: "+t.ThinkingLevel+"]", "")
		}
	case session.TypeContextEdit:
		set("tree-muted", "[context edit]", "")
		if c := e.ContextEdit(); c != nil {
			it.treeText = c.TargetID
		}
	case session.TypeLabel, session.TypeCustom, session.TypeSessionInfo:
		it.flags |= flagSettings
		set("tree-muted", "["+e.Type+"]", "")
	default:
		it.flags |= flagSettings
		set("tree-muted", "["+e.Type+"]", "")
	}
}

// fragment renders entry i's block for the content view (or, for a tool
// result drawn inside its call, the result body).
func (r *renderer) fragment(buf *bytes.Buffer, i int) {
	it := &r.items[i]
	e := it.e
	switch e.Type {
	case session.TypeMessage:
		m, err := e.DecodeMessage()
		if err != nil {
			r.open(buf, it, "note error-note")
			buf.WriteString("unreadable message: " + escapeText(err.Error()))
			buf.WriteString("</div>")
			return
		}
		r.message(buf, it, m)
	case session.TypeCompaction:
		c := e.Compaction()
		if c == nil {
			return
		}
		r.open(buf, it, "compaction expandable")
		fmt.Fprintf(buf, `<div class="compaction-label">[compaction]</div><div class="compaction-collapsed">Compacted from %s tokens (click to expand)</div><div class="compaction-content markdown">`, Thousands(c.TokensBefore))
		r.markdown(buf, c.Summary)
		buf.WriteString("</div></div>")
	case session.TypeBranchSummary:
		b := e.BranchSummary()
		if b == nil {
			return
		}
		r.open(buf, it, "branch-summary")
		buf.WriteString(`<div class="branch-summary-header">Branch summary</div><div class="markdown">`)
		r.markdown(buf, b.Summary)
		buf.WriteString("</div></div>")
	case session.TypeCustomMessage:
		c := e.CustomMessage()
		if c == nil || !c.Display {
			return
		}
		r.custom(buf, it, c.CustomType, c.Content)
	case session.TypeModelChange:
		if m := e.ModelChange(); m != nil {
			r.open(buf, it, "note model-change")
			buf.WriteString(`Switched to model: <span class="model-name">` + escapeText(m.Provider+"/"+m.ModelID) + "</span></div>")
		}
	case session.TypeThinkingLevelChange:
		if t := e.ThinkingLevelChange(); t != nil {
			r.open(buf, it, "note")
			buf.WriteString("Thinking level: " + escapeText(t.ThinkingLevel) + "</div>")
		}
	case session.TypeSessionInfo:
		if si := e.SessionInfo(); si != nil && si.Name != nil {
			r.open(buf, it, "note")
			buf.WriteString("Session named: " + escapeText(*si.Name) + "</div>")
		}
	case session.TypeContextEdit:
		c := e.ContextEdit()
		if c == nil {
			return
		}
		r.open(buf, it, "note context-edit")
		target := `<a class="entry-ref" href="#` + escapeText(c.TargetID) + `">` + escapeText(c.TargetID) + "</a>"
		if c.Replacement == nil {
			buf.WriteString("Context edit: entry " + target + " is left out of the model's context from here on.</div>")
			return
		}
		buf.WriteString("Context edit: entry " + target + " is replaced in the model's context by:")
		buf.WriteString(`<div class="markdown">`)
		r.markdown(buf, c.Replacement.PlainText())
		buf.WriteString("</div></div>")
	case session.TypeLabel, session.TypeCustom, session.TypeUsage:
		// Shown where they apply (labels on their target) or not at all.
	default:
		r.open(buf, it, "note")
		buf.WriteString("[" + escapeText(e.Type) + "] entry</div>")
	}
}

// open writes an entry block's opening tag and its meta line (time, label,
// link button).
func (r *renderer) open(buf *bytes.Buffer, it *item, class string) {
	buf.WriteString(`<div class="entry ` + class + `" data-id="` + escapeText(it.e.ID) + `">`)
	buf.WriteString(`<div class="entry-meta">`)
	if it.label != "" {
		buf.WriteString(`<span class="label-badge">` + escapeText(it.label) + "</span>")
	}
	if ts := fmtTime(it.e.Timestamp); ts != "" {
		buf.WriteString(`<time>` + escapeText(ts) + "</time>")
	}
	buf.WriteString(`<button class="copy-link" type="button" title="Copy a link to this entry" data-link="` + escapeText(it.e.ID) + `">#</button></div>`)
}

func fmtTime(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// Thousands formats n with comma separators (1234567 -> 1,234,567), as
// the page header and /session show counts.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func (r *renderer) markdown(buf *bytes.Buffer, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	if err := r.md.Convert([]byte(text), buf); err != nil {
		buf.WriteString(`<pre class="plain">` + escapeText(text) + "</pre>")
	}
}

func (r *renderer) images(buf *bytes.Buffer, bs llm.Blocks, class string) {
	for _, b := range bs {
		if img, ok := b.(*llm.ImageContent); ok {
			if src, ok := imageSrc(img.MimeType, img.Data); ok {
				buf.WriteString(`<img class="` + class + `" alt="image" src="` + src + `">`)
			} else {
				buf.WriteString(`<div class="note">[image of type ` + escapeText(img.MimeType) + " not shown]</div>")
			}
		}
	}
}

// imageSrc is a data URL for an image block, or false when the type is not
// a raster image or the data is not plain base64 (so nothing but an image
// can come out of it, and it cannot break out of the attribute).
func imageSrc(mime, data string) (string, bool) {
	switch strings.ToLower(mime) {
	case "image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp":
	default:
		return "", false
	}
	if data == "" {
		return "", false
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return "", false
		}
	}
	return "data:" + strings.ToLower(mime) + ";base64," + data, true
}

func (r *renderer) custom(buf *bytes.Buffer, it *item, typ string, c llm.Content) {
	r.open(buf, it, "hook-message")
	buf.WriteString(`<div class="hook-type">[` + escapeText(typ) + `]</div>`)
	r.images(buf, c.AsBlocks(), "message-image")
	buf.WriteString(`<div class="markdown">`)
	r.markdown(buf, c.PlainText())
	buf.WriteString("</div></div>")
}

func (r *renderer) message(buf *bytes.Buffer, it *item, m llm.Message) {
	switch v := m.(type) {
	case *llm.UserMessage:
		r.open(buf, it, "user-message")
		bs := v.Content.AsBlocks()
		r.images(buf, bs, "message-image")
		buf.WriteString(`<div class="markdown">`)
		r.markdown(buf, v.Content.PlainText())
		buf.WriteString("</div></div>")
	case *llm.AssistantMessage:
		r.assistant(buf, it, v)
	case *llm.ToolResultMessage:
		r.toolResult(buf, it, v)
	case *llm.BashExecutionMessage:
		failed := v.Cancelled || (v.ExitCode != nil && *v.ExitCode != 0)
		cls := "tool-execution bash-execution success"
		if failed {
			cls = "tool-execution bash-execution error"
		}
		r.open(buf, it, cls)
		buf.WriteString(`<div class="tool-command">$ ` + escapeText(v.Command) + "</div>")
		if v.Output != "" {
			r.output(buf, v.Output, 10, "", "")
		}
		switch {
		case v.Cancelled:
			buf.WriteString(`<div class="status warning">(cancelled)</div>`)
		case v.ExitCode != nil && *v.ExitCode != 0:
			fmt.Fprintf(buf, `<div class="status error-text">(exit %d)</div>`, *v.ExitCode)
		}
		if v.ExcludeFromContext {
			buf.WriteString(`<div class="status muted">(not sent to the model)</div>`)
		}
		buf.WriteString("</div>")
	case *llm.CustomMessage:
		if v.Display {
			r.custom(buf, it, v.CustomType, v.Content)
		}
	case *llm.SystemMessage:
		r.system(buf, it, v)
	case *llm.BranchSummaryMessage:
		r.open(buf, it, "branch-summary")
		buf.WriteString(`<div class="branch-summary-header">Branch summary</div><div class="markdown">`)
		r.markdown(buf, v.Summary)
		buf.WriteString("</div></div>")
	case *llm.CompactionSummaryMessage:
		r.open(buf, it, "compaction expandable")
		fmt.Fprintf(buf, `<div class="compaction-label">[compaction]</div><div class="compaction-collapsed">Compacted from %s tokens (click to expand)</div><div class="compaction-content markdown">`, Thousands(v.TokensBefore))
		r.markdown(buf, v.Summary)
		buf.WriteString("</div></div>")
	default:
		r.open(buf, it, "note")
		buf.WriteString("[" + escapeText(m.MessageRole()) + "] message</div>")
	}
}

func (r *renderer) system(buf *bytes.Buffer, it *item, v *llm.SystemMessage) {
	r.open(buf, it, "system-prompt expandable")
	var names []string
	for _, s := range v.Sections {
		names = append(names, s.Name)
	}
	buf.WriteString(`<div class="system-prompt-header">System prompt`)
	if len(names) > 0 {
		buf.WriteString(` <span class="muted">(` + escapeText(strings.Join(names, ", ")) + ")</span>")
	}
	buf.WriteString(`</div><div class="expand-hint">click to expand</div><div class="system-prompt-full">`)
	if c := v.Content.PlainText(); c != "" {
		buf.WriteString(`<pre class="plain">` + escapeText(c) + "</pre>")
	}
	for _, s := range v.Sections {
		buf.WriteString(`<div class="section-name">` + escapeText(s.Name) + "</div>")
		if s.Text == nil {
			buf.WriteString(`<div class="muted">(removed)</div>`)
		} else {
			buf.WriteString(`<pre class="plain">` + escapeText(*s.Text) + "</pre>")
		}
	}
	buf.WriteString("</div>")
	if len(v.ToolsAdded) > 0 || len(v.ToolsRemoved) > 0 {
		buf.WriteString(`<div class="tools-list">`)
		for _, t := range v.ToolsAdded {
			buf.WriteString(`<div class="tool-item"><span class="tool-item-name">+ ` + escapeText(t.Name) + `</span> <span class="tool-item-desc">` + escapeText(oneLine(t.Description)) + "</span></div>")
		}
		for _, t := range v.ToolsRemoved {
			buf.WriteString(`<div class="tool-item"><span class="tool-item-name">− ` + escapeText(t.Name) + "</span></div>")
		}
		buf.WriteString("</div>")
	}
	buf.WriteString("</div>")
}

func (r *renderer) assistant(buf *bytes.Buffer, it *item, v *llm.AssistantMessage) {
	r.open(buf, it, "assistant-message")
	for _, b := range v.Content {
		switch bl := b.(type) {
		case *llm.TextContent:
			if strings.TrimSpace(bl.Text) != "" {
				buf.WriteString(`<div class="assistant-text markdown">`)
				r.markdown(buf, bl.Text)
				buf.WriteString("</div>")
			}
		case *llm.ThinkingContent:
			text := bl.Thinking
			if bl.Redacted {
				text = "(redacted thinking)"
			}
			if strings.TrimSpace(text) != "" {
				buf.WriteString(`<div class="thinking-block"><div class="thinking-collapsed">Thinking ...</div><div class="thinking-text">` + escapeText(text) + "</div></div>")
			}
		case *llm.ImageContent:
			r.images(buf, llm.Blocks{bl}, "message-image")
		case *llm.ToolCall:
			r.toolCall(buf, bl)
		}
	}
	switch v.StopReason {
	case llm.StopAborted:
		buf.WriteString(`<div class="error-text">Aborted</div>`)
	case llm.StopError:
		msg := v.ErrorMessage
		if msg == "" {
			msg = "Unknown error"
		}
		buf.WriteString(`<div class="error-text">Error: ` + escapeText(msg) + "</div>")
	}
	if m := v.Provider + "/" + v.Model; v.Model != "" {
		buf.WriteString(`<div class="model-footer">` + escapeText(m) + "</div>")
	}
	buf.WriteString("</div>")
}

// args decodes tool call arguments into a map (nil when they are not an
// object).
func args(raw json.RawMessage) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

func str(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			return s
		}
	}
	return ""
}

func num(m map[string]any, k string) (int, bool) {
	f, ok := m[k].(float64)
	return int(f), ok
}
