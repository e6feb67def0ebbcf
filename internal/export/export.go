// Package export writes a session as a single self-contained HTML reader
// or as JSONL.
//
// The page carries everything inline (no network): the theme's colours as
// CSS variables, the entries pre-rendered to HTML fragments (markdown with
// goldmark, code with chroma, per-tool layouts), a small JSON index of the
// entry tree, and the session's JSONL (gzip, base64) for download. Its script
// builds the sidebar tree (virtualised), search and filters, and renders the
// conversation lazily from the fragments, so a 20,000-entry export opens as
// fast as a short one.
package export

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/tui/theme"
)

//go:embed page.html
var pageHTML string

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

// Options adjust an HTML export.
type Options struct {
	// Theme colours the page; LightTheme, when set too, replaces it when the
	// reader's system prefers light. A nil Theme uses the built-in dark
	// theme with the built-in light one for light systems.
	Theme, LightTheme *theme.Theme
}

// ThemeOptions resolves the `theme` setting for a page as the TUI resolves
// it for the terminal: a name (built-in or one of custom), or a
// "light/dark" pair, which the page follows through the reader's colour
// scheme. "", "system" and unknown names give the built-in pair.
func ThemeOptions(setting string, custom []*theme.Theme) Options {
	find := func(name string) *theme.Theme {
		name = strings.TrimSpace(name)
		for _, t := range custom {
			if t.Name == name {
				return t
			}
		}
		if name == "dark" || name == "light" {
			return theme.Builtin(name)
		}
		return nil
	}
	if l, d, ok := strings.Cut(setting, "/"); ok {
		lt, dt := find(l), find(d)
		if lt == nil || dt == nil {
			return Options{}
		}
		return Options{Theme: dt, LightTheme: lt}
	}
	return Options{Theme: find(setting)}
}

// File exports the session file in to out ("" = relay-session-<id>.html in
// the current directory). An out ending in .jsonl copies the records.
func File(in, out string) (string, error) {
	// Load reads without taking the writer lock, so exporting a session
	// another relay has open works.
	s, err := session.Load(in)
	if err != nil {
		return "", err
	}
	return Session(s, out)
}

// Session exports an open session with the default options.
func Session(s *session.Manager, out string) (string, error) {
	return SessionWith(s, out, Options{})
}

// SessionWith exports an open session to out (see File) and returns the
// absolute path written. The file is written through a temporary file in
// the same directory, so a failed export leaves nothing half-written.
func SessionWith(s *session.Manager, out string, o Options) (string, error) {
	if out == "" {
		out = "relay-session-" + s.SessionID() + ".html"
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("export %s: %w", abs, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	w := bufio.NewWriterSize(f, 1<<20)
	if strings.HasSuffix(strings.ToLower(out), ".jsonl") {
		err = writeJSONL(w, s)
	} else {
		err = WriteHTML(w, s, o)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, abs)
	}
	if err != nil {
		return "", fmt.Errorf("export %s: %w", abs, err)
	}
	return abs, nil
}

// JSONL returns the header and every entry, one per line, as stored.
func JSONL(s *session.Manager) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSONL(&b, s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSONL(w io.Writer, s *session.Manager) error {
	if h := s.Header(); h != nil {
		if _, err := w.Write(append(h.Raw()[:len(h.Raw()):len(h.Raw())], '\n')); err != nil {
			return err
		}
	}
	for _, e := range s.Entries() {
		raw, _ := e.MarshalJSON()
		if _, err := w.Write(raw); err != nil {
			return err
		}
		if _, err := w.Write([]byte{'\n'}); err != nil {
			return err
		}
	}
	return nil
}

// HTML renders the session page with the default options.
func HTML(s *session.Manager) ([]byte, error) {
	var b bytes.Buffer
	if err := WriteHTML(&b, s, Options{}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// stats are the header's figures over every entry of the session.
type stats struct {
	User, Assistant, ToolResults, Custom, Compactions, BranchSummaries, ToolCalls int
	Tokens                                                                        llm.Usage
	Cost                                                                          float64
	Models                                                                        []string
}

func (st *stats) add(e *session.Entry, m llm.Message, models map[string]bool) {
	switch e.Type {
	case session.TypeCompaction:
		st.Compactions++
	case session.TypeBranchSummary:
		st.BranchSummaries++
	case session.TypeCustomMessage:
		st.Custom++
	}
	switch v := m.(type) {
	case *llm.UserMessage:
		st.User++
	case *llm.AssistantMessage:
		st.Assistant++
		st.ToolCalls += len(v.ToolCalls())
		if v.Model != "" {
			name := v.Model
			if v.Provider != "" {
				name = v.Provider + "/" + v.Model
			}
			if !models[name] {
				models[name] = true
				st.Models = append(st.Models, name)
			}
		}
		st.Tokens.Input += v.Usage.Input
		st.Tokens.Output += v.Usage.Output
		st.Tokens.CacheRead += v.Usage.CacheRead
		st.Tokens.CacheWrite += v.Usage.CacheWrite
		c := v.Usage.Cost
		if c.Total != 0 {
			st.Cost += c.Total
		} else {
			st.Cost += c.Input + c.Output + c.CacheRead + c.CacheWrite
		}
	case *llm.ToolResultMessage:
		st.ToolResults++
	case *llm.CustomMessage:
		st.Custom++
	}
}

func fmtTokens(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func headerHTML(s *session.Manager, st stats) string {
	var b strings.Builder
	title := "Session: " + s.SessionID()
	if n := s.Name(); n != "" {
		title = n
	}
	b.WriteString(`<div class="header"><h1>` + escapeText(title) + `</h1>`)
	b.WriteString(`<div class="help-bar"><span class="help-hint">T toggle thinking · O toggle tools · / search</span><div class="help-actions">` +
		`<button type="button" class="header-btn" id="toggle-thinking" title="Toggle thinking (T)">Toggle thinking</button>` +
		`<button type="button" class="header-btn" id="toggle-tools" title="Toggle tool details (O)">Toggle tools</button>` +
		`<button type="button" class="header-btn" id="download-jsonl" title="Download the session as JSONL">↓ JSONL</button></div></div>`)
	date := ""
	if h := s.Header(); h != nil {
		date = fmtTime(h.Timestamp) + " UTC"
	}
	var msgs []string
	for _, p := range []struct {
		n    int
		name string
	}{{st.User, "user"}, {st.Assistant, "assistant"}, {st.ToolResults, "tool results"}, {st.Custom, "custom"}, {st.Compactions, "compactions"}, {st.BranchSummaries, "branch summaries"}} {
		if p.n > 0 {
			msgs = append(msgs, fmt.Sprintf("%d %s", p.n, p.name))
		}
	}
	var tok []string
	for _, p := range []struct {
		n      int
		prefix string
	}{{st.Tokens.Input, "↑"}, {st.Tokens.Output, "↓"}, {st.Tokens.CacheRead, "R"}, {st.Tokens.CacheWrite, "W"}} {
		if p.n > 0 {
			tok = append(tok, p.prefix+fmtTokens(p.n))
		}
	}
	orZero := func(parts []string, sep string) string {
		if len(parts) == 0 {
			return "0"
		}
		return strings.Join(parts, sep)
	}
	models := "unknown"
	if len(st.Models) > 0 {
		sorted := append([]string(nil), st.Models...)
		sort.Strings(sorted)
		models = strings.Join(sorted, ", ")
	}
	b.WriteString(`<div class="header-info">`)
	for _, kv := range [][2]string{
		{"Session", s.SessionID()}, {"Date", date}, {"Directory", s.Cwd()}, {"Models", models},
		{"Messages", orZero(msgs, ", ")}, {"Tool calls", fmt.Sprint(st.ToolCalls)},
		{"Tokens", orZero(tok, " ")}, {"Cost", fmt.Sprintf("$%.3f", st.Cost)},
	} {
		b.WriteString(`<div class="info-item"><span class="info-label">` + kv[0] + `:</span><span class="info-value" data-info="` + strings.ToLower(strings.ReplaceAll(kv[0], " ", "-")) + `">` + escapeText(kv[1]) + "</span></div>")
	}
	b.WriteString("</div></div>")
	return b.String()
}

// meta is the page's index of the entry tree.
type meta struct {
	ID      string  `json:"id"`
	Leaf    int     `json:"leaf"`
	Entries [][]any `json:"entries"` // [id, parent, flags, treeClass, treePrefix, treeText, label]
}

// WriteHTML writes the session page to w.
func WriteHTML(w io.Writer, s *session.Manager, o Options) error {
	entries := s.Entries()
	labels := map[string]string{}
	for _, n := range flattenTree(s.Tree()) {
		if n.Label != "" {
			labels[n.Entry.ID] = n.Label
		}
	}

	// The JSONL download is compressed while the fragments render.
	jsonlDone := make(chan []byte, 1)
	go func() {
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
		if err := writeJSONL(zw, s); err != nil || zw.Close() != nil {
			jsonlDone <- nil
			return
		}
		jsonlDone <- gz.Bytes()
	}()

	r := newRenderer()
	r.prepare(entries, labels)
	st := r.stats

	nonce := make([]byte, 16)
	rand.Read(nonce)
	n := hex.EncodeToString(nonce)
	title := s.Name()
	if title == "" {
		title = "Session " + s.SessionID()
	}
	head := strings.NewReplacer(
		"{{TITLE}}", escapeText(title),
		"{{NONCE}}", n,
		"{{CSS}}", themeCSS(o)+pageCSS+syntaxCSS(),
		"{{HEADER}}", headerHTML(s, st),
	).Replace(pageHTML)
	bw := &errWriter{w: w}
	bw.WriteString(head)
	bw.WriteString(`<script type="text/x-relay-fragments" id="relay-fragments">`)
	if err := r.writeFragments(bw); err != nil {
		return err
	}
	bw.WriteString("</script>\n")

	m := meta{ID: s.SessionID(), Leaf: -1, Entries: make([][]any, len(r.items))}
	if i, ok := r.index[s.LeafID()]; ok {
		m.Leaf = i
	}
	for i, it := range r.items {
		m.Entries[i] = []any{it.e.ID, it.parent, it.flags, it.treeClass, it.treePrefix, it.treeText, it.label}
	}
	mj, err := json.Marshal(m) // escapes <, > and &: safe inside a script element
	if err != nil {
		return fmt.Errorf("export index: %w", err)
	}
	bw.WriteString(`<script type="application/json" id="relay-meta">`)
	bw.Write(mj)
	bw.WriteString("</script>\n")

	gz := <-jsonlDone
	bw.WriteString(`<script type="application/octet-stream" id="relay-jsonl" data-name="` + escapeText(s.SessionID()) + `.jsonl">`)
	enc := base64.NewEncoder(base64.StdEncoding, bw)
	enc.Write(gz)
	enc.Close()
	bw.WriteString("</script>\n")
	bw.WriteString(`<script nonce="` + n + `">` + pageJS + "</script>\n</body></html>\n")
	return bw.err
}

func flattenTree(ns []*session.TreeNode) []*session.TreeNode {
	var out []*session.TreeNode
	stack := append([]*session.TreeNode(nil), ns...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, n)
		stack = append(stack, n.Children...)
	}
	return out
}

// errWriter keeps the first write error so the page can be written without
// checking every call.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) WriteString(s string) (int, error) { return e.Write([]byte(s)) }

// fragmentSep separates the fragments inside their script element; no
// fragment contains it (sanitizeFragment).
const fragmentSep = '\x01'

// writeFragments renders every entry's fragment in entry order, in
// parallel chunks, writing each chunk as soon as it and those before it
// are done (memory stays bounded by the chunks in flight).
func (r *renderer) writeFragments(w *errWriter) error {
	const chunk = 64
	workers := runtime.GOMAXPROCS(0)
	type job struct {
		start int
		out   chan []byte
	}
	jobs := make(chan job)
	order := make(chan chan []byte, 2*workers)
	go func() {
		for s := 0; s < len(r.items); s += chunk {
			ch := make(chan []byte, 1)
			order <- ch
			jobs <- job{s, ch}
		}
		close(jobs)
		close(order)
	}()
	for range workers {
		go func() {
			var frag bytes.Buffer
			for j := range jobs {
				var out bytes.Buffer
				for i := j.start; i < min(j.start+chunk, len(r.items)); i++ {
					if i > 0 {
						out.WriteByte(fragmentSep)
					}
					frag.Reset()
					r.fragment(&frag, i)
					out.Write(sanitizeFragment(frag.Bytes()))
				}
				j.out <- out.Bytes()
			}
		}()
	}
	for ch := range order {
		w.Write(<-ch)
	}
	return w.err
}

// sanitizeFragment makes a fragment safe to embed in a script element and
// split on fragmentSep: it never contains the separator, CR (which the HTML
// parser would rewrite), NUL, "<!--" or "<script"/"</script" in any case (the
// only sequences that change how a script element's text is parsed). All
// content text is escaped already, so these can only come from a renderer
// bug; they are neutralised rather than trusted.
func sanitizeFragment(b []byte) []byte {
	if !needsSanitizing(b) {
		return b
	}
	var out bytes.Buffer
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == fragmentSep || c == 0:
			out.WriteString("\uFFFD")
		case c == '\r':
			out.WriteString("&#13;")
		case c == '<' && dangerousTag(b[i+1:]):
			out.WriteString("&lt;")
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes()
}

// needsSanitizing looks for what sanitizeFragment rewrites, with the
// (vectorised) byte searches: the page is tens of MB.
func needsSanitizing(b []byte) bool {
	if bytes.IndexByte(b, fragmentSep) >= 0 || bytes.IndexByte(b, '\r') >= 0 || bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	for rest := b; ; {
		i := bytes.IndexByte(rest, '<')
		if i < 0 {
			return false
		}
		rest = rest[i+1:]
		if dangerousTag(rest) {
			return true
		}
	}
}

// dangerousTag reports whether the text after a '<' opens a comment or a
// script tag, which change how a script element's text parses.
func dangerousTag(rest []byte) bool {
	if len(rest) == 0 {
		return false
	}
	switch rest[0] {
	case '!':
		return bytes.HasPrefix(rest, []byte("!--"))
	case '/':
		return hasFoldPrefix(rest, "/script")
	case 's', 'S':
		return hasFoldPrefix(rest, "script")
	}
	return false
}

func hasFoldPrefix(b []byte, p string) bool {
	return len(b) >= len(p) && strings.EqualFold(string(b[:len(p)]), p)
}
