package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/textdiff"
)

// callSummary is a one-line description of a tool call for the tree, as
// the TUI titles it: "$ cmd", "read path:1-40", "grep /pat/ in dir".
func callSummary(name string, raw json.RawMessage) string {
	a := args(raw)
	switch name {
	case "bash":
		return "$ " + str(a, "command")
	case "read":
		s := "read " + str(a, "path", "file_path")
		if r := lineRange(a); r != "" {
			s += ":" + r
		}
		return s
	case "write", "edit", "ls":
		p := str(a, "path", "file_path")
		if name == "ls" && p == "" {
			p = "."
		}
		return name + " " + p
	case "grep":
		s := "grep /" + str(a, "pattern") + "/"
		if p := str(a, "path"); p != "" {
			s += " in " + p
		}
		return s
	case "find":
		s := "find " + str(a, "pattern")
		if p := str(a, "path"); p != "" {
			s += " in " + p
		}
		return s
	}
	for _, k := range sortedKeys(a) {
		if s, ok := a[k].(string); ok {
			return "[" + name + ": " + s + "]"
		}
	}
	return "[" + name + "]"
}

func lineRange(a map[string]any) string {
	off, hasOff := num(a, "offset")
	lim, hasLim := num(a, "limit")
	if !hasOff && !hasLim {
		return ""
	}
	if !hasOff || off < 1 {
		off = 1
	}
	if hasLim && lim > 0 {
		return fmt.Sprintf("%d-%d", off, off+lim-1)
	}
	return strconv.Itoa(off)
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// toolCall writes a call's block: its header drawn from the arguments
// (never the raw JSON), the content a write or a pending edit carries, and
// a slot the page fills with the result's body.
func (r *renderer) toolCall(buf *bytes.Buffer, c *llm.ToolCall) {
	a := args(c.Arguments)
	buf.WriteString(`<div class="tool-execution" data-tool="` + escapeText(c.Name) + `">`)
	header := func(name, path, extra string) {
		buf.WriteString(`<div class="tool-header"><span class="tool-name">` + escapeText(name) + `</span>`)
		if path != "" {
			buf.WriteString(` <span class="tool-path">` + escapeText(path) + "</span>")
		}
		buf.WriteString(extra + "</div>")
	}
	res, hasResult := r.result[c.ID]
	switch c.Name {
	case "bash":
		extra := ""
		if t, ok := num(a, "timeout"); ok && t > 0 {
			extra = fmt.Sprintf(` <span class="muted">(timeout %ds)</span>`, t)
		}
		buf.WriteString(`<div class="tool-command">$ ` + escapeText(str(a, "command")) + extra + "</div>")
	case "read":
		extra := ""
		if lr := lineRange(a); lr != "" {
			extra = `<span class="line-numbers">:` + lr + "</span>"
		}
		header("read", str(a, "path", "file_path"), extra)
	case "write":
		path, content := str(a, "path", "file_path"), str(a, "content")
		extra := ""
		if n := strings.Count(content, "\n") + 1; n > 10 {
			extra = fmt.Sprintf(` <span class="line-count">(%d lines)</span>`, n)
		}
		header("write", path, extra)
		if content != "" {
			r.output(buf, content, 10, langOf(path), "")
		}
	case "edit":
		path := str(a, "path", "file_path")
		header("edit", path, "")
		if !hasResult {
			r.argsDiff(buf, a)
		}
	case "ls":
		p := str(a, "path")
		if p == "" {
			p = "."
		}
		extra := ""
		if l, ok := num(a, "limit"); ok {
			extra = fmt.Sprintf(` <span class="line-count">(limit %d)</span>`, l)
		}
		header("ls", p, extra)
	case "grep":
		extra := ""
		if p := str(a, "path"); p != "" {
			extra += ` <span class="muted">in</span> <span class="tool-path">` + escapeText(p) + "</span>"
		}
		if g := str(a, "glob"); g != "" {
			extra += ` <span class="muted">(` + escapeText(g) + ")</span>"
		}
		buf.WriteString(`<div class="tool-header"><span class="tool-name">grep</span> <span class="tool-pattern">/` + escapeText(str(a, "pattern")) + "/</span>" + extra + "</div>")
	case "find":
		extra := ""
		if p := str(a, "path"); p != "" {
			extra = ` <span class="muted">in</span> <span class="tool-path">` + escapeText(p) + "</span>"
		}
		buf.WriteString(`<div class="tool-header"><span class="tool-name">find</span> <span class="tool-pattern">` + escapeText(str(a, "pattern")) + "</span>" + extra + "</div>")
	default:
		header(c.Name, "", "")
		r.argList(buf, a, c.Arguments)
	}
	if hasResult {
		fmt.Fprintf(buf, `<div class="tool-slot" data-r="%d"></div>`, res)
	} else {
		buf.WriteString(`<div class="status muted">(no result)</div>`)
	}
	buf.WriteString("</div>")
}

// argList shows an extension tool's arguments as name/value rows.
func (r *renderer) argList(buf *bytes.Buffer, a map[string]any, raw json.RawMessage) {
	if a == nil {
		if s := strings.TrimSpace(string(raw)); s != "" && s != "null" && s != "{}" {
			buf.WriteString(`<pre class="plain tool-args">` + escapeText(s) + "</pre>")
		}
		return
	}
	if len(a) == 0 {
		return
	}
	buf.WriteString(`<div class="tool-args">`)
	for _, k := range sortedKeys(a) {
		v := ""
		switch x := a[k].(type) {
		case string:
			v = x
		default:
			b, _ := json.Marshal(x)
			v = string(b)
		}
		buf.WriteString(`<div class="tool-arg"><span class="tool-arg-name">` + escapeText(k) + `</span> <span class="tool-arg-value">` + escapeText(v) + "</span></div>")
	}
	buf.WriteString("</div>")
}

func resultText(bs llm.Blocks) string {
	var parts []string
	for _, b := range bs {
		if t, ok := b.(*llm.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// toolResult writes a result: inside its call's slot when the call is in the
// session, else as a block of its own with a header.
func (r *renderer) toolResult(buf *bytes.Buffer, it *item, v *llm.ToolResultMessage) {
	c, slotted := r.calls[v.ToolCallID]
	cls := "tool-result"
	if v.IsError {
		cls += " error"
	}
	if slotted {
		buf.WriteString(`<div class="` + cls + `" data-id="` + escapeText(it.e.ID) + `">`)
		r.resultBody(buf, c.Name, args(c.Arguments), v)
		buf.WriteString("</div>")
		return
	}
	status := " success"
	if v.IsError {
		status = " error"
	}
	r.open(buf, it, "tool-execution orphan"+status)
	buf.WriteString(`<div class="tool-header"><span class="tool-name">` + escapeText(v.ToolName) + `</span> <span class="muted">(result of a call not in this session)</span></div>`)
	buf.WriteString(`<div class="` + cls + `">`)
	r.resultBody(buf, v.ToolName, nil, v)
	buf.WriteString("</div></div>")
}

func (r *renderer) resultBody(buf *bytes.Buffer, name string, a map[string]any, v *llm.ToolResultMessage) {
	text := resultText(v.Content)
	r.images(buf, v.Content, "tool-image")
	if v.IsError {
		if t := strings.TrimSpace(text); t != "" {
			r.output(buf, t, 10, "", "error-output")
		}
		if name == "edit" && a != nil {
			r.argsDiff(buf, a)
		}
		return
	}
	switch name {
	case "bash":
		if t := strings.TrimSpace(text); t != "" {
			r.output(buf, t, 5, "", "")
		}
	case "read":
		if text != "" {
			r.output(buf, text, 10, langOf(str(a, "path", "file_path")), "")
		}
	case "edit":
		var d struct {
			Diff string `json:"diff"`
		}
		if len(v.Details) > 0 && json.Unmarshal(v.Details, &d) == nil && d.Diff != "" {
			r.diff(buf, d.Diff)
			return
		}
		if a != nil {
			r.argsDiff(buf, a)
		}
		if t := strings.TrimSpace(text); t != "" {
			r.output(buf, t, 5, "", "")
		}
	case "ls", "find", "grep":
		if t := strings.TrimSpace(text); t != "" {
			r.list(buf, t, 20)
		}
	case "write":
		if t := strings.TrimSpace(text); t != "" {
			buf.WriteString(`<div class="tool-note">` + escapeText(t) + "</div>")
		}
	default:
		if t := strings.TrimSpace(text); t != "" {
			r.output(buf, t, 10, "", "")
		}
	}
}

// clampOpen starts an output that shows its first n lines until expanded
// (click, or the page's tools toggle).
func clampOpen(buf *bytes.Buffer, lines, n int, class string) bool {
	clamp := lines > n
	buf.WriteString(`<div class="tool-output`)
	if class != "" {
		buf.WriteString(" " + class)
	}
	if clamp {
		fmt.Fprintf(buf, ` expandable clamp-%d`, n)
	}
	buf.WriteString(`">`)
	return clamp
}

func clampClose(buf *bytes.Buffer, lines, n int, clamp bool) {
	if clamp {
		fmt.Fprintf(buf, `<div class="expand-hint">… (%d more lines, click to expand)</div>`, lines-n)
	}
	buf.WriteString("</div>")
}

// output writes text (highlighted when lang is known) showing n lines
// until expanded.
func (r *renderer) output(buf *bytes.Buffer, text string, n int, lang, class string) {
	text = strings.TrimRight(text, "\n")
	lines := strings.Count(text, "\n") + 1
	clamp := clampOpen(buf, lines, n, class)
	r.hl.block(buf, text, lang, "")
	clampClose(buf, lines, n, clamp)
}

// list writes one row per output line (grep, find, ls).
func (r *renderer) list(buf *bytes.Buffer, text string, n int) {
	rows := strings.Split(text, "\n")
	clamp := clampOpen(buf, len(rows), n, "tool-list")
	buf.WriteString("<ul>")
	for _, row := range rows {
		buf.WriteString("<li>" + escapeText(row) + "</li>")
	}
	buf.WriteString("</ul>")
	clampClose(buf, len(rows), n, clamp)
}

// argsDiff draws the edits of an edit call's arguments as diffs (line
// numbers relative to each replaced text), for calls without a result diff.
func (r *renderer) argsDiff(buf *bytes.Buffer, a map[string]any) {
	edits, _ := a["edits"].([]any)
	if old, ok := a["oldText"].(string); ok {
		edits = append(edits, map[string]any{"oldText": old, "newText": a["newText"]})
	}
	for _, e := range edits {
		m, _ := e.(map[string]any)
		oldT, _ := m["oldText"].(string)
		newT, _ := m["newText"].(string)
		if d, _ := textdiff.Display(oldT, newT, 2); d != "" {
			r.diff(buf, d)
		}
	}
}

// diff draws a numbered diff ("+N text", "-N text", " N text", " ...") as
// rows with a line-number column, added and removed lines coloured.
func (r *renderer) diff(buf *bytes.Buffer, d string) {
	buf.WriteString(`<div class="tool-diff">`)
	for _, line := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		cls, sign := "diff-context", " "
		if line != "" {
			switch line[0] {
			case '+':
				cls, sign = "diff-added", "+"
			case '-':
				cls, sign = "diff-removed", "-"
			}
			line = line[1:]
		}
		num, rest := "", line
		t := strings.TrimLeft(line, " ")
		if j := strings.IndexByte(t, ' '); j > 0 {
			if _, err := strconv.Atoi(t[:j]); err == nil {
				num, rest = t[:j], t[j+1:]
			}
		} else if _, err := strconv.Atoi(t); err == nil && t != "" {
			num, rest = t, ""
		}
		if strings.TrimSpace(line) == "..." {
			cls, num, rest = "diff-skip", "", "…"
		}
		buf.WriteString(`<div class="diff-line ` + cls + `"><span class="ln">` + num + `</span><span class="sign">` + sign + `</span><span class="code">` + escapeText(strings.ReplaceAll(rest, "\t", "    ")) + "</span></div>")
	}
	buf.WriteString("</div>")
}
