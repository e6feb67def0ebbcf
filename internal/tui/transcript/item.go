package transcript

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui/markdown"
	"github.com/relay-agent/relay/internal/tui/theme"
)

// Kind of a transcript item.
type Kind int

const (
	KindUser Kind = iota
	KindText
	KindThinking
	KindTool
	KindBash
	KindError
	KindNotice
	KindCustom
	KindSummary
	KindEntry // a custom entry an extension renderer draws
)

// item is one rendered block. Its lines are cached per width and version.
type item struct {
	kind    Kind
	version int // bumped on every change: the rendered lines are stale
	dver    int // bumped when the data changes (not on a renderer's answer)
	done    bool
	id      int64 // set for blocks drawn by extension renderers

	// custom message or entry: its type and JSON (what renderers get)
	customType string
	extData    json.RawMessage
	ext        [2]*extSlot // extension renderer slots (extrender.go)

	text string        // user, error, notice, custom, summary text; tool/bash label
	doc  *markdown.Doc // assistant text
	buf  strings.Builder

	// summary: its label ("[branch]") and collapsed one-line title
	label, head string
	notAnswer   bool // markdown that is not the model's (the changelog)

	// tool call
	toolID, toolName string
	args             json.RawMessage
	partialArgs      map[string]any
	output           string
	images           []*llm.ImageContent // drawn inline where the terminal can
	details          json.RawMessage
	isError, running bool
	// bash execution
	exitCode  *int
	cancelled bool
	excluded  bool // a !! command: its output is not sent to the model

	cacheW, cacheV int
	cacheFlags     uint8
	lines          []string
	// h is the line count at width hw; it survives cache eviction so the
	// scrollbar estimate stays exact for blocks rendered once.
	h, hw int
}

func (it *item) touch() { it.version++; it.dver++ }

type renderCtx struct {
	th            *theme.Theme
	toolsExpanded bool
	hideThinking  bool
	thinkingLabel string // collapsed thinking's label ("" = "Thinking…")
	outputPad     int
	collapsedMax  int
	// kitty draws images as unicode placeholders in redrawn lines (nil:
	// markers only there).
	kitty *kittyImages
	// gen counts re-renders, so derived totals (Scroll) know when to recompute.
	gen int
	// cached counts items holding rendered lines, to trigger eviction.
	cached int

	// Extension renderers (extrender.go): which exist, the calls blocks
	// wait for, how to wake the UI for them, the blocks by id.
	has      HasRenderer
	wake     func()
	wants    []RenderWant
	extItems map[int64]*item
	lastID   int64
}

// dropCache frees an item's rendered lines (and its markdown chunk cache).
func (it *item) dropCache(c *renderCtx) {
	if it.lines != nil {
		it.lines = nil
		c.cached--
	}
	if it.doc != nil && it.done {
		it.doc.DropCache()
	}
}

func (c *renderCtx) flags() uint8 {
	var f uint8
	if c.toolsExpanded {
		f |= 1
	}
	if c.hideThinking {
		f |= 2
	}
	if c.kitty != nil {
		f |= 4
	}
	return f
}

// render returns the item's lines at width, from cache when unchanged.
func (it *item) render(c *renderCtx, width int) []string {
	if it.lines != nil && it.cacheW == width && it.cacheV == it.version && it.cacheFlags == c.flags() {
		return it.lines
	}
	c.gen++
	if it.lines == nil {
		c.cached++
	}
	it.lines = it.draw(c, width)
	if it.lines == nil {
		it.lines = []string{}
	}
	if c.kitty != nil {
		for _, img := range it.images {
			if p, ok := c.kitty.place(img); ok {
				it.lines = append(it.lines, p.lines(width)...)
			}
		}
	}
	it.h, it.hw = len(it.lines), width
	it.cacheW, it.cacheV, it.cacheFlags = width, it.version, c.flags()
	return it.lines
}

func (it *item) draw(c *renderCtx, width int) []string {
	th := c.th
	pad := strings.Repeat(" ", c.outputPad)
	inner := max(8, width-2*c.outputPad)
	switch it.kind {
	case KindUser:
		return boxed(th, "userMessageBg", "userMessageText", wrapPlain(it.text, inner-2), width)
	case KindText:
		lines := indent(pad, it.doc.Lines(inner))
		if it.done {
			// The item caches the final lines; the chunk cache would be a
			// second copy.
			it.doc.DropCache()
		}
		return lines
	case KindThinking:
		if c.hideThinking {
			label := c.thinkingLabel
			if label == "" {
				label = "Thinking…"
			}
			return []string{pad + th.Fg("thinkingText", theme.Italic(label))}
		}
		var out []string
		for _, l := range wrapPlain(it.buf.String(), inner) {
			out = append(out, pad+th.Fg("thinkingText", theme.Italic(l)))
		}
		return out
	case KindTool:
		return it.drawTool(c, width, inner)
	case KindBash:
		return it.drawBash(c, width, inner)
	case KindError:
		var out []string
		for _, l := range wrapPlain("Error: "+it.text, inner) {
			out = append(out, pad+th.Fg("error", l))
		}
		return out
	case KindNotice:
		var out []string
		for _, l := range wrapHanging(it.text, inner) {
			out = append(out, pad+th.Fg("muted", l))
		}
		return out
	case KindCustom:
		return it.drawCustom(c, width, inner)
	case KindEntry:
		return it.drawEntry(c, width)
	case KindSummary:
		// Collapsed like tool output: a summary is long and was written
		// for the model; ctrl+o shows it.
		lines := []string{th.Fg("customMessageLabel", theme.Bold(it.label)), ""}
		if !c.toolsExpanded {
			lines = append(lines, it.head+th.Fg("dim", " (ctrl+o to expand)"))
		} else {
			lines = append(lines, theme.Bold(it.head), "")
			lines = append(lines, wrapHanging(it.text, inner-2)...)
		}
		return boxed(th, "customMessageBg", "customMessageText", lines, width)
	}
	return nil
}

func indent(pad string, lines []string) []string {
	if pad == "" {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = pad + l
	}
	return out
}

// boxed draws text lines on a full-width background with one blank row
// above and below and one column of padding.
func boxed(th *theme.Theme, bgRole, fgRole string, lines []string, width int) []string {
	fill := func(s string) string {
		w := ansi.StringWidth(s)
		return th.Bg(bgRole, th.Fg(fgRole, " "+s+strings.Repeat(" ", max(0, width-w-1))))
	}
	out := []string{fill("")}
	for _, l := range lines {
		out = append(out, fill(l))
	}
	return append(out, fill(""))
}

// wrapPlain wraps untrusted plain text: control sequences are removed and
// tabs expanded so the width math holds.
func wrapPlain(s string, width int) []string {
	s = sanitize(s)
	if s == "" {
		return nil
	}
	return strings.Split(ansi.Wrap(s, max(4, width), ""), "\n")
}

// wrapHanging wraps plain text whose lines may be aligned tables ("  key
// description", as /hotkeys prints): a wrapped line continues under its
// last column instead of at column 1, or under its own indentation.
func wrapHanging(s string, width int) []string {
	s = sanitize(s)
	if s == "" {
		return nil
	}
	width = max(4, width)
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if ansi.StringWidth(line) <= width {
			out = append(out, line)
			continue
		}
		hang := hangColumn(line)
		if hang == 0 || hang > width/2 {
			hang = len(line) - len(strings.TrimLeft(line, " "))
			if hang > width/2 {
				hang = 0
			}
		}
		head := ansi.Truncate(line, hang, "")
		body := strings.Split(ansi.Wrap(line[len(head):], width-hang, ""), "\n")
		pad := strings.Repeat(" ", hang)
		for i, b := range body {
			if i == 0 {
				out = append(out, head+b)
			} else {
				out = append(out, pad+strings.TrimLeft(b, " "))
			}
		}
	}
	return out
}

// hangColumn is where a line's last column starts: after the last run of
// two or more spaces that follows text (0 when there is none).
func hangColumn(line string) int {
	col := 0
	start := len(line) - len(strings.TrimLeft(line, " "))
	for i := start; i+2 < len(line); i++ {
		if line[i] == ' ' && line[i+1] == ' ' {
			j := i
			for j < len(line) && line[j] == ' ' {
				j++
			}
			if j < len(line) {
				col = ansi.StringWidth(line[:j])
			}
			i = j
		}
	}
	return col
}

var summaryTag = regexp.MustCompile(`(?s)<([a-z][a-z-]*)>\n?(.*?)\n?</([a-z][a-z-]*)>`)

// readableSummary turns the file lists a summary carries for the model
// (<read-files>…</read-files>) into titled, indented lists.
func readableSummary(s string) string {
	return summaryTag.ReplaceAllStringFunc(s, func(m string) string {
		g := summaryTag.FindStringSubmatch(m)
		if g[1] != g[3] {
			return m
		}
		title := strings.ReplaceAll(g[1], "-", " ")
		title = strings.ToUpper(title[:1]) + title[1:] + ":"
		var b strings.Builder
		b.WriteString(title)
		for _, l := range strings.Split(strings.TrimSpace(g[2]), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				b.WriteString("\n  " + l)
			}
		}
		return b.String()
	})
}

func sanitize(s string) string {
	s = ansi.Strip(s)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\t", "    ")
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' {
			return -1
		}
		return r
	}, s)
}

// ToolSummary is the one-line description of a call from its arguments
// ("read main.go", "$ ls"), as a tool block's title shows it.
func ToolSummary(name string, args map[string]any) string { return toolSummary(name, args) }

// toolSummary is the one-line description of a call from its arguments.
func toolSummary(name string, args map[string]any) string {
	str := func(k string) string {
		if v, ok := args[k].(string); ok {
			return v
		}
		return ""
	}
	switch name {
	case "bash":
		return "$ " + str("command")
	case "read", "write", "edit", "ls":
		s := str("path")
		if name == "read" {
			if off, ok := args["offset"].(float64); ok {
				s += fmt.Sprintf(":%d", int(off))
			}
		}
		return name + " " + s
	case "grep", "find":
		s := name + " " + str("pattern")
		if p := str("path"); p != "" {
			s += " in " + p
		}
		return s
	}
	if len(args) == 0 {
		return name
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		v, _ := json.Marshal(args[k])
		parts = append(parts, k+"="+string(v))
	}
	return name + " " + strings.Join(parts, " ")
}

func (it *item) argMap() map[string]any {
	if len(it.args) > 0 {
		var m map[string]any
		if json.Unmarshal(it.args, &m) == nil {
			return m
		}
	}
	return it.partialArgs
}

func (it *item) drawTool(c *renderCtx, width, inner int) []string {
	th := c.th
	bg := "toolPendingBg"
	switch {
	case it.done && it.isError:
		bg = "toolErrorBg"
	case it.done:
		bg = "toolSuccessBg"
	}
	args := it.argMap()
	body, custom := it.toolHeader(c, inner-2)
	if !custom {
		for _, l := range wrapPlain(toolSummary(it.toolName, args), inner-2) {
			body = append(body, th.Fg("toolTitle", theme.Bold(l)))
		}
	}
	if lines, ok := it.toolBody(c, inner-2); ok {
		// renderResult draws the whole result, expanded or not as it
		// was told.
		if len(lines) > 0 {
			body = append(body, "")
			body = append(body, lines...)
		}
		return boxed(th, bg, "text", body, width)
	}
	// Write shows the content it writes; edit shows its diff.
	var content []string
	diff := ""
	if len(it.details) > 0 {
		var d struct {
			Diff string `json:"diff"`
		}
		if json.Unmarshal(it.details, &d) == nil {
			diff = d.Diff
		}
	}
	switch {
	case diff != "" && !it.isError:
		for _, l := range strings.Split(strings.TrimRight(sanitize(diff), "\n"), "\n") {
			role := "toolDiffContext"
			if strings.HasPrefix(l, "+") {
				role = "toolDiffAdded"
			} else if strings.HasPrefix(l, "-") {
				role = "toolDiffRemoved"
			}
			for _, w := range wrapPlain(l, inner-2) {
				content = append(content, th.Fg(role, w))
			}
		}
	default:
		out := it.output
		// Write shows what it wrote, not its one-line "Successfully
		// wrote" result (an error still shows the error).
		if it.toolName == "write" && (out == "" || !it.isError) {
			if s, ok := args["content"].(string); ok {
				out = s
			}
		}
		out = strings.TrimRight(out, "\n")
		hidden := 0
		if !c.toolsExpanded {
			// Only the shown lines are wrapped: a huge output costs a
			// line count, not a full re-wrap, on every update.
			out, hidden = clip(out, c.collapsedMax, it.toolName == "bash")
		}
		role := "toolOutput"
		if it.isError {
			role = "error"
		}
		if hidden > 0 && it.toolName == "bash" {
			content = append(content, th.Fg("muted", fmt.Sprintf("… %d earlier lines (ctrl+o to expand)", hidden)))
		}
		for _, w := range wrapPlain(out, inner-2) {
			content = append(content, th.Fg(role, w))
		}
		if hidden > 0 && it.toolName != "bash" {
			content = append(content, th.Fg("muted", fmt.Sprintf("… %d more lines (ctrl+o to expand)", hidden)))
		}
	}
	if max := c.collapsedMax; !c.toolsExpanded && len(content) > max+1 {
		hidden := len(content) - max
		content = append(content[:max:max], th.Fg("muted", fmt.Sprintf("… %d more lines (ctrl+o to expand)", hidden)))
	}
	if len(content) > 0 {
		body = append(body, "")
		body = append(body, content...)
	}
	return boxed(th, bg, "text", body, width)
}

func (it *item) drawBash(c *renderCtx, width, inner int) []string {
	th := c.th
	body := []string{th.Fg("bashMode", theme.Bold("$ "+sanitize(it.text)))}
	var content []string
	for _, w := range wrapPlain(strings.TrimRight(it.output, "\n"), inner-2) {
		content = append(content, th.Fg("toolOutput", w))
	}
	if max := c.collapsedMax; !c.toolsExpanded && len(content) > max {
		hidden := len(content) - max
		content = append(content[:max:max], th.Fg("muted", fmt.Sprintf("… %d more lines (ctrl+o to expand)", hidden)))
	}
	if len(content) > 0 {
		body = append(body, "")
		body = append(body, content...)
	}
	if it.excluded {
		body = append(body, th.Fg("muted", "(!! output not sent to the model)"))
	}
	switch {
	case it.cancelled:
		body = append(body, th.Fg("warning", "(cancelled)"))
	case it.exitCode != nil && *it.exitCode != 0:
		body = append(body, th.Fg("error", fmt.Sprintf("exit code %d", *it.exitCode)))
	}
	bg := "toolPendingBg"
	if it.done {
		bg = "toolSuccessBg"
		if it.cancelled || it.exitCode != nil && *it.exitCode != 0 {
			bg = "toolErrorBg"
		}
	}
	return boxed(th, bg, "text", body, width)
}

// imagesOf returns the image blocks.
func imagesOf(bs llm.Blocks) []*llm.ImageContent {
	var out []*llm.ImageContent
	for _, b := range bs {
		if img, ok := b.(*llm.ImageContent); ok {
			out = append(out, img)
		}
	}
	return out
}

// blocksText is the text of content blocks, images shown as a marker.
func blocksText(bs llm.Blocks) string {
	var sb strings.Builder
	for _, b := range bs {
		switch b := b.(type) {
		case *llm.TextContent:
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(b.Text)
		case *llm.ImageContent:
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString("[image " + b.MimeType + "]")
		}
	}
	return sb.String()
}

// clip keeps n lines of s (the last ones when tail) and reports how many
// lines it dropped.
func clip(s string, n int, tail bool) (string, int) {
	total := strings.Count(s, "\n") + 1
	if total <= n {
		return s, 0
	}
	if tail {
		i := len(s)
		for k := 0; k < n; k++ {
			i = strings.LastIndexByte(s[:i], '\n')
		}
		return s[i+1:], total - n
	}
	i := 0
	for k := 0; k < n; k++ {
		i += strings.IndexByte(s[i:], '\n') + 1
	}
	return s[:i-1], total - n
}

// source is the item's text before rendering, for search.
func (it *item) source() string {
	switch it.kind {
	case KindText:
		return it.doc.Text()
	case KindThinking:
		return it.buf.String()
	case KindTool:
		return it.toolName + " " + string(it.args) + " " + it.output + " " + string(it.details)
	case KindBash:
		return "$ " + it.text + " " + it.output
	case KindError:
		return "Error: " + it.text
	}
	return it.text
}
