// Package codemode is the codemode tool: the model writes JavaScript that
// runs as an async function body in an embedded QuickJS VM
// (modernc.org/quickjs, pure Go) and calls relay's other tools through
// tools.<name>(args). Only the script's output reaches the model.
//
// Nested calls are real tool calls: they go through the tool registry and
// the hook seam (tool_call, where the harness gate sits, and tool_result)
// with ids <parent>/<n>, exactly as direct calls do.
package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/tool"
	"github.com/relay-agent/relay/internal/toolsearch"
)

// Name is the tool's name.
const Name = "codemode"

// StoreEntryType is the custom entry type holding one script's store()
// writes: {"set": {...}, "delete": [...]}.
const StoreEntryType = "codemode-store"

// Defaults of the settings and options.
const (
	DefaultInlineBudget    = 3000 // estimated tokens (chars / 4)
	DefaultMaxOutputTokens = 10_000
	charsPerToken          = 4
)

// Config is what the tool needs from the runtime; every func may be nil.
type Config struct {
	Tools *tool.Registry
	Hooks *hooks.Set
	// Active returns the tools declared to the model: direct tools are
	// callable from scripts only when active. Nil: every direct tool.
	Active func() []string
	// Mode is codemode.mode ("on" or "only"), InlineBudget
	// codemode.inlineBudget.
	Mode         func() string
	InlineBudget func() int
	// Models is the catalog the models global reads (nil: none).
	Models ModelCatalog
	// TempDir receives the full output of truncated results ("" = os.TempDir()).
	TempDir string
	// Now is the clock of nested result timestamps (nil = time.Now).
	Now func() time.Time
}

// Tool is codemode.
type Tool struct {
	cfg    Config
	search toolsearch.Cache
	descMu sync.Mutex
	desc   string
	descOf string // the listing the cached description was built from
}

// New returns the tool.
func New(cfg Config) *Tool {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Tool{cfg: cfg}
}

var params = json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","description":"Raw JavaScript source."}},"required":["code"]}`)

const intro = "Run JavaScript that calls other tools. The input is raw JavaScript (not JSON, no code fence), run as an async function body in a QuickJS sandbox: top-level `await` and `return` work. No Node, file system, network, or timers.\n" +
	"- `await tools.<name>({ ...args })` resolves to a string (`bash`: `{ output, truncated, full_output_path?, exit_code, wall_time_seconds }`; MCP tools: their whole `CallToolResult` `{ content, structuredContent?, isError? }`) and rejects with an Error on failure. Use `Promise.allSettled()` to keep the results that succeed.\n" +
	"- Optional first line: `// @options: {\"max_output_tokens\": 10000, \"timeout_ms\": 60000}`"

const globalsDoc = "Globals:\n" +
	"- `text(value)`, `image(dataUrlOrImageBlock)`, `console.log(...)`, and top-level `return` add output; `exit()` ends the script.\n" +
	"- `store(key, value)` and `load(key)` keep JSON values across codemode calls.\n" +
	"- `ALL_TOOLS`, `searchTools(query, { limit?, namespace? })`, `describeTool(name)`, `describeNamespace(name)`: find unlisted tools, such as MCP tools.\n" +
	"- `models.getModelsOfType(type, provider?)`, `getAvailableOfType(type, provider?)`, `getModelOfType(type, provider, id)` list the model catalog (type \"chat\", \"image\" or \"classifier\")."

// Spec implements tool.Tool. The description lists the callable tools
// that are not declared directly (all of them with codemode.mode "only"),
// within the inline budget; deferred tools are never listed, so it stays
// the same while MCP servers connect.
func (t *Tool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: Name, Description: t.description(), Parameters: params}
}

func (t *Tool) mode() string {
	if t.cfg.Mode != nil && t.cfg.Mode() == "only" {
		return "only"
	}
	return "on"
}

func (t *Tool) budget() int {
	if t.cfg.InlineBudget != nil {
		return t.cfg.InlineBudget()
	}
	return DefaultInlineBudget
}

// callable returns the tools scripts may call, in registry order: active
// direct tools, and every codemode or deferred tool, never codemode itself.
func (t *Tool) callable() []tool.Tool {
	var active map[string]bool
	if t.cfg.Active != nil {
		active = map[string]bool{}
		for _, n := range t.cfg.Active() {
			active[n] = true
		}
	}
	var out []tool.Tool
	for _, n := range t.cfg.Tools.Names() {
		x, ok := t.cfg.Tools.Get(n)
		if !ok || n == Name {
			continue
		}
		switch tool.ExposureOf(x) {
		case tool.ExposeDirect:
			if active == nil || active[n] {
				out = append(out, x)
			}
		case tool.ExposeCodemode, tool.ExposeDeferred:
			out = append(out, x)
		}
	}
	return out
}

func (t *Tool) description() string {
	only := t.mode() == "only"
	var listed []tool.Tool
	var key strings.Builder
	fmt.Fprintf(&key, "%v|%d|", only, t.budget())
	for _, x := range t.callable() {
		e := tool.ExposureOf(x)
		if e == tool.ExposeDeferred || (e == tool.ExposeDirect && !only) {
			continue
		}
		listed = append(listed, x)
		key.WriteString(x.Spec().Name)
		key.WriteByte(0)
	}
	t.descMu.Lock()
	defer t.descMu.Unlock()
	if t.desc != "" && t.descOf == key.String() {
		return t.desc
	}
	t.desc, t.descOf = renderDescription(listed, t.budget()), key.String()
	return t.desc
}

// renderDescription lists tools grouped by namespace (tools without one
// first); in each round every group places its cheapest remaining tool
// while the budget lasts, so every namespace shows before any is complete.
func renderDescription(listed []tool.Tool, budget int) string {
	parts := []string{intro, globalsDoc}
	if len(listed) == 0 {
		return strings.Join(parts, "\n\n")
	}
	type entry struct {
		name, section string
		cost          int
	}
	var order []string
	groups := map[string][]entry{}
	for _, x := range listed {
		ns := tool.NamespaceOf(x)
		if _, ok := groups[ns]; !ok {
			order = append(order, ns)
		}
		sec := Section(x)
		groups[ns] = append(groups[ns], entry{x.Spec().Name, sec, (len(sec) + charsPerToken - 1) / charsPerToken})
	}
	sortNamespaces(order)
	shown := map[string]bool{}
	remaining := budget
	queues := map[string][]entry{}
	for ns, es := range groups {
		q := append([]entry(nil), es...)
		sortEntries(q, func(a, b entry) bool { return a.cost < b.cost })
		queues[ns] = q
	}
	activeGroups := append([]string(nil), order...)
	for len(activeGroups) > 0 {
		var next []string
		for _, ns := range activeGroups {
			q := queues[ns]
			if len(q) == 0 || q[0].cost > remaining {
				continue
			}
			remaining -= q[0].cost
			shown[q[0].name] = true
			queues[ns] = q[1:]
			if len(q) > 1 {
				next = append(next, ns)
			}
		}
		activeGroups = next
	}
	sections := []string{"Nested tools:"}
	for _, ns := range order {
		var visible []entry
		for _, e := range groups[ns] {
			if shown[e.name] {
				visible = append(visible, e)
			}
		}
		if ns != "" {
			note := ""
			switch {
			case len(visible) == 0:
				note = " (tools not listed)"
			case len(visible) < len(groups[ns]):
				note = " (some tools not listed)"
			}
			sections = append(sections, "## "+ns+note)
		}
		for _, e := range visible {
			sections = append(sections, e.section)
		}
	}
	parts = append(parts, strings.Join(sections, "\n\n"))
	return strings.Join(parts, "\n\n")
}

// Section is a tool's heading, description and call declaration.
func Section(x tool.Tool) string {
	s := x.Spec()
	id := Identifier(s.Name)
	head := "### `" + id + "`"
	if id != s.Name {
		head += " (`" + s.Name + "`)"
	}
	return head + "\n" + Declaration(x)
}

// Annotate returns t with a sentence saying how scripts call it appended
// to its description (codemode.mode "on": declared tools stay declared).
func Annotate(t tool.Tool) tool.Tool { return annotated{t} }

type annotated struct{ tool.Tool }

func (a annotated) Spec() llm.ToolSpec {
	s := a.Tool.Spec()
	out := "a string"
	if s.Name == "bash" {
		out = "`{ output, truncated, full_output_path?, exit_code, wall_time_seconds }`"
	}
	s.Description = strings.TrimSpace(s.Description) + "\n\nCodemode: `tools." + Identifier(s.Name) + "(args)` resolves to " + out + "."
	return s
}

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9_$]`)

// Identifier is a tool name as a JavaScript identifier: other characters
// become _, and a leading digit gets a _ in front.
func Identifier(name string) string {
	id := nonIdent.ReplaceAllString(name, "_")
	if id == "" || unicode.IsDigit(rune(id[0])) {
		id = "_" + id
	}
	return id
}

// Execute implements tool.Tool.
func (t *Tool) Execute(ctx context.Context, args json.RawMessage, onUpdate func(tool.Result)) tool.Result {
	start := time.Now()
	src, err := ParseInput(args)
	if err != nil {
		return tool.Errorf("codemode: %v", err)
	}
	code, opts, err := SplitOptions(src)
	if err != nil {
		return tool.Errorf("codemode: %v", err)
	}
	parent := tool.CallID(ctx)
	if parent == "" {
		parent = "codemode"
	}
	callable := t.callable()
	byName := map[string]tool.Tool{}
	host := &Host{Store: loadStore(session.FromContext(ctx))}
	all := make([]map[string]string, 0, len(callable))
	for _, x := range callable {
		s := x.Spec()
		byName[s.Name] = x
		host.Tools = append(host.Tools, ToolName{ID: Identifier(s.Name), Name: s.Name})
		all = append(all, map[string]string{"name": Identifier(s.Name), "description": Declaration(x)})
	}
	host.AllTools, _ = json.Marshal(all)
	rec := &recorder{parent: parent, onUpdate: onUpdate,
		fallback: &seamRunner{hooks: t.cfg.Hooks, now: t.cfg.Now, parent: parent}}
	host.Call = func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		x, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("Unknown tool %q. Find tools with searchTools(query) or ALL_TOOLS.", name)
		}
		return t.callNested(ctx, rec, x, name, args)
	}
	host.Models = func(ctx context.Context, op string, args json.RawMessage) (json.RawMessage, error) {
		return t.models(ctx, rec, op, args)
	}
	host.Search = func(q string, limit int, ns string) (json.RawMessage, error) {
		docs := make([]toolsearch.Doc, len(callable))
		for i, x := range callable {
			docs[i] = toolsearch.DocOf(x)
		}
		var keep func(toolsearch.Doc) bool
		if ns != "" {
			keep = func(d toolsearch.Doc) bool { return d.Namespace != "" && namespaceMatches(d.Namespace, ns) }
		}
		hits := t.search.Get(docs).Search(q, limit, keep)
		out := make([]map[string]string, len(hits))
		for i, h := range hits {
			out[i] = map[string]string{"name": Identifier(h.Doc.Name), "description": Declaration(byName[h.Doc.Name])}
		}
		return json.Marshal(out)
	}
	host.Describe = func(name string) json.RawMessage {
		for _, x := range callable {
			if s := x.Spec(); s.Name == name || Identifier(s.Name) == name {
				b, _ := json.Marshal(Declaration(x))
				return b
			}
		}
		return nil
	}
	host.DescribeNamespace = func(name string) json.RawMessage {
		var ns string
		var names []string
		for _, x := range callable {
			n := tool.NamespaceOf(x)
			if n == "" || !namespaceMatches(n, name) {
				continue
			}
			if ns == "" {
				ns = n
			}
			names = append(names, Identifier(x.Spec().Name))
		}
		if ns == "" {
			return nil
		}
		b, _ := json.Marshal(map[string]any{"name": ns, "tools": names})
		return b
	}
	timeout := DefaultTimeout
	if opts.TimeoutMs > 0 {
		timeout = time.Duration(opts.TimeoutMs) * time.Millisecond
	}
	out := Run(ctx, code, timeout, host)
	if out.OK && (len(out.StoreSet) > 0 || len(out.StoreDelete) > 0) {
		saveStore(session.FromContext(ctx), out.StoreSet, out.StoreDelete)
	}
	return t.result(out, rec, opts, time.Since(start))
}

// namespaceMatches: the namespace's name, its identifier, or the part
// after its last "__" in either form.
func namespaceMatches(ns, q string) bool {
	suffix := func(s string) string {
		if i := strings.LastIndex(s, "__"); i >= 0 {
			return s[i+2:]
		}
		return ""
	}
	return ns == q || Identifier(ns) == Identifier(q) || (suffix(ns) != "" && (suffix(ns) == q || suffix(Identifier(ns)) == Identifier(q)))
}

// result renders the outcome: the header, then the output (and the
// returned value or the error), head and tail kept past the token budget
// with the full text in a temp file, then images.
func (t *Tool) result(out Outcome, rec *recorder, opts Options, wall time.Duration) tool.Result {
	var texts []string
	var images []Item
	for _, it := range out.Output {
		if it.Image != nil {
			images = append(images, it)
		} else {
			texts = append(texts, it.Text)
		}
	}
	if out.OK {
		if out.Value != nil {
			texts = append(texts, *out.Value)
		}
	} else {
		texts = append(texts, "Script error:\n"+out.Error+"\n\n"+rec.summary())
	}
	maxTokens := opts.MaxOutputTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxOutputTokens
	}
	text := strings.Join(texts, "\n")
	var fullPath string
	if budget := maxTokens * charsPerToken; len(text) > budget {
		text, fullPath = t.truncate(text, budget)
	}
	status := "Script completed"
	if !out.OK {
		status = "Script failed"
	}
	header := fmt.Sprintf("%s\nWall time %.1f seconds\nOutput:\n", status, wall.Seconds())
	content := llm.Blocks{&llm.TextContent{Text: header}}
	if text != "" {
		content = append(content, &llm.TextContent{Text: text})
	}
	for _, im := range images {
		content = append(content, t.imageBlocks(im)...)
	}
	details := rec.details()
	if fullPath != "" {
		details.FullOutputPath = fullPath
	}
	return tool.Result{Content: content, Details: details, IsError: !out.OK}
}

func (t *Tool) truncate(text string, budget int) (string, string) {
	head := budget / 2
	tail := budget - head
	// Cut on rune boundaries.
	for head > 0 && !utf8Start(text[head]) {
		head--
	}
	tailStart := len(text) - tail
	for tailStart < len(text) && !utf8Start(text[tailStart]) {
		tailStart++
	}
	removed := tailStart - head
	lines := strings.Count(text, "\n") + 1
	out := fmt.Sprintf("Warning: truncated output (original token count: %d)\nTotal output lines: %d\n\n%s…%d tokens truncated…%s",
		(len(text)+charsPerToken-1)/charsPerToken, lines, text[:head], (removed+charsPerToken-1)/charsPerToken, text[tailStart:])
	path, err := t.writeTemp("relay-codemode-*.txt", []byte(text))
	if err != nil {
		return out + "\n\n[Could not save the full output: " + err.Error() + "]", ""
	}
	return out + "\n\n[Full output: " + path + " (read with offset/limit)]", path
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func (t *Tool) writeTemp(pattern string, data []byte) (string, error) {
	f, err := os.CreateTemp(t.cfg.TempDir, pattern)
	if err != nil {
		return "", fmt.Errorf("write temp file: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", fmt.Errorf("write %s: %w", f.Name(), err)
	}
	return f.Name(), f.Close()
}

var imageExt = map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}

// imageBlocks saves an image to a temp file and names the path before it:
// a later turn has no other way to reach its bytes.
func (t *Tool) imageBlocks(im Item) llm.Blocks {
	kind := fmt.Sprintf("%s, %d bytes", im.MimeType, len(im.Image))
	label := ""
	if path, err := t.writeTemp("relay-codemode-*"+imageExt[im.MimeType], im.Image); err != nil {
		label = "[Image (" + kind + ") could not be saved: " + err.Error() + "]"
	} else {
		label = "[Image saved to " + path + " (" + kind + ")]"
	}
	return llm.Blocks{&llm.TextContent{Text: label}, &llm.ImageContent{Data: base64Std(im.Image), MimeType: im.MimeType}}
}

// Declaration is a tool's description as a JSDoc comment and its call
// signature as TypeScript: what the call resolves to is the tool's
// result schema when it has one (MCP tools: CallToolResult), bash's
// structured value, else a string.
func Declaration(x tool.Tool) string {
	s := x.Spec()
	var sb strings.Builder
	if d := strings.TrimSpace(s.Description); d != "" {
		sb.WriteString("/**\n")
		for _, l := range strings.Split(d, "\n") {
			sb.WriteString(" * " + strings.ReplaceAll(l, "*/", "*\\/") + "\n")
		}
		sb.WriteString(" */\n")
	}
	out := "string"
	switch rs, ok := x.(tool.ResultSchemer); {
	case ok && len(rs.ResultSchema()) > 0:
		out = schemaType(rs.ResultSchema())
	case s.Name == "bash":
		out = "{ output: string; truncated: boolean; full_output_path?: string; exit_code: number | null; wall_time_seconds: number }"
	}
	fmt.Fprintf(&sb, "%s(args: %s): Promise<%s>;", Identifier(s.Name), schemaType(s.Parameters), out)
	return sb.String()
}

// recorder keeps the nested calls of one script for the details and the
// failure summary, and numbers their ids.
type recorder struct {
	parent   string
	onUpdate func(tool.Result)
	fallback tool.Nested
	mu       sync.Mutex
	calls    []NestedCall
}

// NestedCall is one nested call in the codemode result's details.
type NestedCall struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Args       string `json:"args"`
	Status     string `json:"status"` // running, ok, error, blocked, cancelled
	DurationMs int64  `json:"durationMs,omitempty"`
	Error      string `json:"error,omitempty"`
}

// Details is the codemode result's details.
type Details struct {
	Calls          []NestedCall `json:"calls"`
	FullOutputPath string       `json:"fullOutputPath,omitempty"`
}

// start records a call; its id (<parent>/<n>, numbered by the runner)
// arrives with setID once the call starts.
func (r *recorder) start(name string, args json.RawMessage) int {
	r.mu.Lock()
	r.calls = append(r.calls, NestedCall{ID: r.parent + "/?", Name: name, Args: clip(string(args), 200), Status: "running"})
	i := len(r.calls) - 1
	r.mu.Unlock()
	return i
}

func (r *recorder) setID(i int, id string) {
	r.mu.Lock()
	r.calls[i].ID = id
	r.mu.Unlock()
	r.publish()
}

func (r *recorder) finish(i int, status, errText string, d time.Duration) {
	r.mu.Lock()
	r.calls[i].Status, r.calls[i].DurationMs = status, d.Milliseconds()
	if errText != "" {
		r.calls[i].Error = clip(errText, 500)
	}
	r.mu.Unlock()
	r.publish()
}

func (r *recorder) publish() {
	if r.onUpdate != nil {
		r.onUpdate(tool.Result{Content: llm.Blocks{}, Details: r.details()})
	}
}

func (r *recorder) details() Details {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := Details{Calls: append([]NestedCall{}, r.calls...)}
	for i := range d.Calls {
		if d.Calls[i].Status == "running" {
			d.Calls[i].Status = "cancelled"
		}
	}
	return d
}

func (r *recorder) summary() string {
	d := r.details()
	if len(d.Calls) == 0 {
		return "No tool calls were made."
	}
	parts := make([]string, len(d.Calls))
	for i, c := range d.Calls {
		parts[i] = c.Name + " (" + c.Status + ")"
	}
	return "Tool calls made before the failure (they are not undone): " + strings.Join(parts, ", ")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 3 && !utf8Start(s[n-3]) {
		n--
	}
	return s[:n-3] + "..."
}
