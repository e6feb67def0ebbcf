package export

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/tui/theme"
)

// pageParts splits an exported page into its fragments, its index and its
// decoded JSONL.
func pageParts(t *testing.T, page string) (frags []string, m meta, jsonl string) {
	t.Helper()
	between := func(open string) string {
		i := strings.Index(page, open)
		if i < 0 {
			t.Fatalf("page lacks %q", open)
		}
		rest := page[i+len(open):]
		return rest[:strings.Index(rest, "</script>")]
	}
	frags = strings.Split(between(`<script type="text/x-relay-fragments" id="relay-fragments">`), "\x01")
	if err := json.Unmarshal([]byte(between(`<script type="application/json" id="relay-meta">`)), &m); err != nil {
		t.Fatal(err)
	}
	raw := between(`id="relay-jsonl"`)
	raw = raw[strings.Index(raw, ">")+1:]
	gz, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(zr)
	return frags, m, string(b)
}

func TestExportHTMLAndJSONL(t *testing.T) {
	dir := t.TempDir()
	s, err := session.Create("/proj", dir, session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u1, _ := s.AppendMessage(&llm.UserMessage{Content: llm.StringContent("fix <b>bug</b>"), Timestamp: 1})
	s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{&llm.ThinkingContent{Thinking: "hmm"}, &llm.ToolCall{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)}},
		API: "anthropic-messages", Provider: "anthropic", Model: "m", StopReason: llm.StopToolUse, Timestamp: 2})
	s.AppendMessage(&llm.ToolResultMessage{ToolCallID: "c1", ToolName: "read", Content: llm.Blocks{&llm.TextContent{Text: "package a"}}, Timestamp: 3})
	s.SetLeaf(u1)
	s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "other branch"}}, StopReason: llm.StopStop, Timestamp: 4})
	s.AppendLabel(u1, "start")

	p, err := Session(s, filepath.Join(dir, "s.html"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	page := string(b)
	frags, m, jsonl := pageParts(t, page)
	if len(frags) != len(s.Entries()) || len(m.Entries) != len(s.Entries()) {
		t.Fatalf("%d fragments, %d index rows for %d entries", len(frags), len(m.Entries), len(s.Entries()))
	}
	all := strings.Join(frags, "\n")
	for _, want := range []string{"fix &lt;b&gt;bug&lt;/b&gt;", `<span class="tool-name">read</span> <span class="tool-path">a.go</span>`,
		`<span class="k">package</span>`, "other branch", `class="label-badge">start`, `class="thinking-text">hmm`} {
		if !strings.Contains(all, want) {
			t.Errorf("fragments lack %q", want)
		}
	}
	if strings.Contains(page, `"path":"a.go"`) || strings.Contains(page, `{&#34;path`) {
		t.Error("the page shows raw tool arguments")
	}
	if m.Leaf < 0 || m.Entries[m.Leaf][0] != s.LeafID() {
		t.Errorf("leaf %d, want %s", m.Leaf, s.LeafID())
	}
	want, _ := JSONL(s)
	if jsonl != string(want) {
		t.Error("embedded JSONL differs from the session's records")
	}

	p, err = Session(s, filepath.Join(dir, "s.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(p)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 1+len(s.Entries()) || !strings.HasPrefix(lines[0], `{"type":"session"`) {
		t.Errorf("jsonl export has %d lines", len(lines))
	}
}

func TestExportFailsCleanly(t *testing.T) {
	s := session.InMemory("/p")
	if _, err := Session(s, filepath.Join(t.TempDir(), "missing", "x.html")); err == nil || !strings.Contains(err.Error(), "x.html") {
		t.Errorf("error %v should name the file", err)
	}
}

func TestThemeExportColours(t *testing.T) {
	custom := `{"name":"t","appearance":"dark","colors":%s,"export":{"pageBg":"#102030","cardBg":"#203040","infoBg":"#304050"}}`
	dark := theme.Builtin("dark")
	colors := map[string]string{}
	for _, r := range themeRoles {
		colors[r] = dark.Color(r).Hex()
	}
	for _, r := range []string{"thinkingOff", "thinkingMinimal", "thinkingLow", "thinkingMedium", "thinkingHigh", "thinkingXhigh"} {
		colors[r] = "#808080"
	}
	cj, _ := json.Marshal(colors)
	th, err := theme.Parse([]byte(strings.Replace(custom, "%s", string(cj), 1)))
	if err != nil {
		t.Fatal(err)
	}
	css := themeCSS(Options{Theme: th})
	for _, want := range []string{"--exportPageBg:#102030;", "--exportCardBg:#203040;", "--exportInfoBg:#304050;", "--toolDiffAdded:" + dark.Color("toolDiffAdded").Hex()} {
		if !strings.Contains(css, want) {
			t.Errorf("css lacks %q", want)
		}
	}
	// Without an export block the colours derive from userMessageBg.
	delete(colors, "nothing")
	th2, err := theme.Parse([]byte(`{"name":"t2","appearance":"dark","colors":` + string(cj) + `}`))
	if err != nil {
		t.Fatal(err)
	}
	css2 := themeCSS(Options{Theme: th2})
	if strings.Contains(css2, "--exportPageBg:"+th2.Color("userMessageBg").Hex()) {
		t.Error("pageBg should be derived (darker), not userMessageBg itself")
	}
	def := themeCSS(Options{})
	if !strings.Contains(def, "prefers-color-scheme: light") || !strings.Contains(def, theme.Builtin("light").ExportColor("pageBg").Hex()) {
		t.Error("default page should carry the light theme for light systems")
	}
	if strings.Contains(css, "prefers-color-scheme") {
		t.Error("a single theme should colour the page whatever the reader's scheme")
	}

	// The theme setting resolves as the TUI's does.
	for _, tt := range []struct {
		setting     string
		dark, light string
	}{
		{"", "", ""}, {"system", "", ""}, {"nope", "", ""}, {"dark", "dark", ""}, {"t", "t", ""},
		{"light/t", "t", "light"}, {"light/nope", "", ""},
	} {
		o := ThemeOptions(tt.setting, []*theme.Theme{th})
		name := func(x *theme.Theme) string {
			if x == nil {
				return ""
			}
			return x.Name
		}
		if name(o.Theme) != tt.dark || name(o.LightTheme) != tt.light {
			t.Errorf("ThemeOptions(%q) = %s/%s, want %s/%s", tt.setting, name(o.Theme), name(o.LightTheme), tt.dark, tt.light)
		}
	}
}

func TestSanitizeFragment(t *testing.T) {
	for in, want := range map[string]string{
		"<p>ok</p>":                  "<p>ok</p>",
		"a\x01b\x00c":                "a\uFFFDb\uFFFDc",
		"x\r\ny":                     "x&#13;\ny",
		"</SCRIPT><script><!-- <sx>": "&lt;/SCRIPT>&lt;script>&lt;!-- <sx>",
	} {
		if got := string(sanitizeFragment([]byte(in))); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDiffRendering(t *testing.T) {
	r := newRenderer()
	var b bytes.Buffer
	r.diff(&b, "  3 \tkeep\n- 4 \treturn 1\n+ 4 \treturn 10\n    ...")
	got := b.String()
	for _, want := range []string{
		`<div class="diff-line diff-context"><span class="ln">3</span><span class="sign"> </span><span class="code">    keep</span></div>`,
		`<div class="diff-line diff-removed"><span class="ln">4</span><span class="sign">-</span><span class="code">    return 1</span></div>`,
		`<div class="diff-line diff-added"><span class="ln">4</span><span class="sign">+</span><span class="code">    return 10</span></div>`,
		`diff-skip`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %s\n%s", want, got)
		}
	}
}

// TestMarkdownIsInert renders hostile markdown and checks nothing in the
// output can run, load or navigate to script.
func TestMarkdownIsInert(t *testing.T) {
	r := newRenderer()
	for _, md := range xssPayloads {
		var b bytes.Buffer
		r.markdown(&b, md)
		if problem := liveMarkup(b.String()); problem != "" {
			t.Errorf("markdown %q: %s\n%s", md, problem, b.String())
		}
	}
	var b bytes.Buffer
	r.markdown(&b, "[ok](https://example.com/a?b=1) and ![pic](data:image/png;base64,iVBORw0KGgo=)")
	if !strings.Contains(b.String(), `<a href="https://example.com/a?b=1"`) || !strings.Contains(b.String(), `<img class="md-image" src="data:image/png;base64,iVBORw0KGgo="`) {
		t.Errorf("safe link and inline image should render: %s", b.String())
	}
}

// A corrupt file whose parent links loop (or point forward) still exports:
// those entries become roots, so the page's tree walks end.
func TestParentCycleBecomesRoots(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "cycle.jsonl")
	lines := []string{
		`{"type":"session","version":3,"id":"c","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}`,
		`{"type":"message","id":"a","parentId":"b","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"first","timestamp":1}}`,
		`{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":"second","timestamp":2}}`,
		`{"type":"message","id":"c","parentId":"c","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"self","timestamp":3}}`,
	}
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := File(in, filepath.Join(dir, "cycle.html"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	_, m, _ := pageParts(t, string(b))
	for i, e := range m.Entries {
		if p := int(e[1].(float64)); p >= i {
			t.Errorf("entry %d has parent %d: parents must come first", i, p)
		}
	}
}
