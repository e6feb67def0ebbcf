package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// chromiumPath finds a headless-capable Chromium, or "".
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// tab is a headless Chromium page under test. Dialogs (alert and friends)
// are counted and dismissed; CSP violations are recorded by a listener
// installed before any page script runs.
type tab struct {
	t       *testing.T
	ctx     context.Context
	dialogs atomic.Int32
}

func newTab(t *testing.T, width, height int) *tab {
	t.Helper()
	bin := chromiumPath()
	if bin == "" {
		t.Skip("chromium not installed")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(width, height))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	tb := &tab{t: t}
	var ctx context.Context
	ctx, cancelC := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			tb.dialogs.Add(1)
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}))
	ctx, cancelT := context.WithTimeout(ctx, 4*time.Minute)
	tb.ctx = ctx
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `window.__violations=[];document.addEventListener('securitypolicyviolation',function(e){window.__violations.push(e.violatedDirective+' '+e.blockedURI)});`,
	}); err != nil {
		t.Fatal(err)
	}
	return tb
}

func (tb *tab) run(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		tb.t.Fatal(err)
	}
}

// open loads a page (file path plus optional #fragment) and waits until its
// script has drawn the first screen.
func (tb *tab) open(path, fragment string) {
	tb.t.Helper()
	// about:blank first: a new fragment alone would not reload the page.
	tb.run(chromedp.Navigate("about:blank"), chromedp.Navigate("file://"+filepath.ToSlash(path)+fragment))
	// The poll can land in the context of the page being replaced; retry
	// until it runs in the loaded page.
	for try := 0; ; try++ {
		err := chromedp.Do(tb.ctx, chromedp.Poll[chromedp.Void](`document.documentElement.dataset.ready === '1'`, chromedp.WithPollingTimeout(90*time.Second)))
		if err == nil {
			return
		}
		if try == 5 || !strings.Contains(err.Error(), "context") {
			tb.t.Fatal(err)
		}
	}
}

func evalT[T any](tb *tab, js string, opts ...chromedp.EvaluateOption) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](js, opts...))
	if err != nil {
		tb.t.Fatalf("%s: %v", js, err)
	}
	return v
}

func (tb *tab) str(js string) string { tb.t.Helper(); return evalT[string](tb, js) }

func (tb *tab) num(js string) int { tb.t.Helper(); return evalT[int](tb, js) }

// do runs statements in the page.
func (tb *tab) do(js string) { tb.t.Helper(); evalT[int](tb, "(function(){"+js+";return 0})()") }

func (tb *tab) waitFor(js string) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		state, _ := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`document.getElementById('tree-status').textContent + ' | search=' + document.getElementById('tree-search').value`))
		tb.t.Fatalf("waiting for %s: %v (page: %s)", js, err, state)
	}
}

func click(sel string) chromedp.Action[chromedp.Void] { return chromedp.Click(chromedp.CSS(sel)) }

// clickNow clicks the element the page shows at this moment. The
// virtualised tree re-renders its rows while a search settles, so a node id
// chromedp looked up for Click can be gone by the time it clicks ("Could
// not find node with given id"); and a row may be drawn a frame after the
// status line changes, so it waits for one to exist.
func (tb *tab) clickNow(sel string) {
	tb.t.Helper()
	q := strconv.Quote(sel)
	tb.waitFor(`document.querySelector(` + q + `) !== null`)
	tb.do(`const e = document.querySelector(` + q + `); if (!e) throw new Error("no element " + ` + q + `); e.click()`)
}

func typeInto(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.SendKeys(chromedp.CSS(sel), text)
}

// testImage is a small PNG with a colour gradient, as base64.
func testImage(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 96, 64))
	for y := 0; y < 64; y++ {
		for x := 0; x < 96; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 255 / 95), uint8(y * 255 / 63), 160, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

type sessionBuilder struct {
	t *testing.T
	s *session.Manager
}

func (b sessionBuilder) must(id string, err error) string {
	b.t.Helper()
	if err != nil {
		b.t.Fatal(err)
	}
	return id
}

func (b sessionBuilder) user(text string) string {
	return b.must(b.s.AppendMessage(&llm.UserMessage{Content: llm.StringContent(text), Timestamp: 1}))
}

func (b sessionBuilder) assistant(blocks ...llm.Block) string {
	return b.must(b.s.AppendMessage(&llm.AssistantMessage{Content: blocks, API: "anthropic-messages", Provider: "anthropic",
		Model: "claude-sonnet", StopReason: llm.StopToolUse, Timestamp: 2, Usage: llm.Usage{Input: 1000, Output: 50, Cost: llm.Cost{Total: 0.002}}}))
}

func (b sessionBuilder) call(id, name, args, result string, isErr bool, details string) {
	b.assistant(&llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)})
	r := &llm.ToolResultMessage{ToolCallID: id, ToolName: name, IsError: isErr, Content: llm.Blocks{&llm.TextContent{Text: result}}, Timestamp: 3}
	if details != "" {
		r.Details = json.RawMessage(details)
	}
	b.must(b.s.AppendMessage(r))
}

// richSession is a tool-using session: two branches, thinking, every
// built-in tool (one failing), an extension tool, an image, a system
// prompt, a compaction, a branch summary, a context edit, a user shell
// command and a label.
func richSession(t *testing.T, dir string) (*session.Manager, map[string]string) {
	t.Helper()
	s, err := session.Create("/work/project", dir, session.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := sessionBuilder{t, s}
	ids := map[string]string{}
	text := "You are relay, a coding agent."
	b.must(s.AppendModelChange("anthropic", "claude-sonnet"))
	b.must(s.AppendMessage(&llm.SystemMessage{Content: llm.StringContent(""), Sections: llm.Sections{{Name: "preamble", Text: &text}},
		ToolsAdded: []llm.ToolSpec{{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object"}`)}}, Timestamp: 1}))
	ids["first"] = b.must(s.AppendMessage(&llm.UserMessage{Content: llm.BlockContent(
		&llm.TextContent{Text: "Why does the **build** fail? Screenshot attached."},
		&llm.ImageContent{Data: testImage(t), MimeType: "image/png"}), Timestamp: 2}))
	b.assistant(&llm.ThinkingContent{Thinking: "The screenshot shows a compile error in main.go; read it first."},
		&llm.TextContent{Text: "Let me read `main.go`."},
		&llm.ToolCall{ID: "call_1", Name: "read", Arguments: json.RawMessage(`{"path":"main.go","offset":1,"limit":40}`)})
	b.must(s.AppendMessage(&llm.ToolResultMessage{ToolCallID: "call_1", ToolName: "read",
		Content: llm.Blocks{&llm.TextContent{Text: "package main\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"}}, Timestamp: 4}))
	b.call("call_2", "bash", `{"command":"go build ./..."}`, "./main.go:4:2: undefined: fmt\nexit status 1", true, "")
	b.call("call_3", "edit", `{"path":"main.go","edits":[{"oldText":"package main\n","newText":"package main\n\nimport \"fmt\"\n"}]}`,
		"Successfully replaced 1 block(s) in main.go.", false,
		`{"diff":"  1 package main\n+ 2 \n+ 3 import \"fmt\"\n  4 \n- 5 func old() {}","firstChangedLine":2}`)
	b.call("call_4", "grep", `{"pattern":"fmt\\.","path":"."}`, "main.go:6: fmt.Println(\"hi\")\nutil.go:3: fmt.Sprintf(\"%d\", n)", false, "")
	b.call("call_5", "find", `{"pattern":"*.go"}`, "main.go\nutil.go\ncmd/tool/main.go", false, "")
	b.call("call_6", "ls", `{"path":"cmd"}`, "tool/\nREADME.md", false, "")
	b.call("call_7", "write", `{"path":"notes.txt","content":"build fixed by importing fmt\n"}`, "Successfully wrote 29 bytes to notes.txt", false, "")
	b.call("call_8", "weather", `{"city":"Lisbon","days":3}`, "sunny, 24°C", false, "")
	b.must(s.AppendMessage(&llm.BashExecutionMessage{Command: "git status --short", Output: " M main.go\n?? notes.txt", ExitCode: new(int), Timestamp: 5}))
	last := b.assistant(&llm.TextContent{Text: "Fixed: the file used `fmt` without importing it.\n\n| file | change |\n|---|---|\n| main.go | import added |"})
	b.must(s.AppendContextEdit(last, nil))
	b.must(s.AppendCompaction("## Goal\nFix the build.\n\n## Done\n- imported fmt", last, 48000, nil, nil, false, nil))
	ids["main"] = b.must(s.AppendCustomMessage("reminder", llm.StringContent("Remember to run the **tests**."), true, nil))
	// A second branch from the first prompt.
	if err := s.SetLeaf(ids["first"]); err != nil {
		t.Fatal(err)
	}
	b.must(s.BranchWithSummary(ids["first"], "Tried rebuilding with cgo; no change.", nil, false, nil))
	ids["alt"] = b.must(s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "An alternative answer on another branch."}},
		API: "anthropic-messages", Provider: "openai", Model: "gpt-5", StopReason: llm.StopStop, Timestamp: 8}))
	b.user("try again")
	b.must(s.AppendMessage(&llm.AssistantMessage{Content: llm.Blocks{}, API: "anthropic-messages", Provider: "anthropic",
		Model: "claude-sonnet", StopReason: llm.StopError, ErrorMessage: "529 overloaded_error: Overloaded", Timestamp: 10}))
	b.must(s.AppendLabel(ids["first"], "start"))
	// Back on the main branch, as a session usually ends.
	if err := s.SetLeaf(ids["main"]); err != nil {
		t.Fatal(err)
	}
	return s, ids
}

// TestPageInChromium loads an export of a tool-using session in headless
// Chromium and checks the reader: header, tree, per-tool rendering, search,
// filters, toggles, deep links and the JSONL download.
func TestPageInChromium(t *testing.T) {
	dir := t.TempDir()
	s, ids := richSession(t, dir)
	defer s.Close()
	out, err := Session(s, filepath.Join(dir, "export.html"))
	if err != nil {
		t.Fatal(err)
	}
	tb := newTab(t, 1200, 1600)
	tb.open(out, "")

	if got := tb.str(`document.querySelector('#tree-search').placeholder`); got != "Search..." {
		t.Errorf("search box placeholder %q", got)
	}
	for sel, want := range map[string]string{
		`[data-info=models]`:     "anthropic/claude-sonnet, openai/gpt-5",
		`[data-info=tool-calls]`: "8",
		`[data-info=session]`:    s.SessionID(),
	} {
		if got := tb.str(`document.querySelector('` + sel + `').textContent`); got != want {
			t.Errorf("header %s = %q, want %q", sel, got, want)
		}
	}
	if n := tb.num(`document.querySelectorAll('.tree-node').length`); n < 10 {
		t.Errorf("tree shows %d rows", n)
	}
	if got := tb.str(`(document.querySelector('.tree-node.active')||{}).textContent||''`); !strings.Contains(got, "[reminder]: Remember to run the **tests**.") {
		t.Errorf("active tree row %q, want the session's leaf", got)
	}
	if got := tb.str(`[...document.querySelectorAll('.tree-label')].map(e=>e.textContent).join()`); got != "[start]" {
		t.Errorf("tree labels %q", got)
	}
	// Per-tool rendering.
	msgs := tb.str(`document.getElementById('messages').innerText`)
	for _, bad := range []string{`{"`, `"path":`, `"command"`} {
		if strings.Contains(msgs, bad) {
			t.Errorf("conversation shows raw JSON arguments (%s)", bad)
		}
	}
	for _, want := range []string{"$ go build ./...", "undefined: fmt", "read main.go:1-40", "edit main.go", "write notes.txt",
		"grep /fmt\\./ in .", "find *.go", "ls cmd", "weather", "Lisbon", "$ git status --short", "Compacted from 48,000 tokens",
		"[reminder]", "left out of the model's context", "System prompt"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("conversation lacks %q", want)
		}
	}
	if n := tb.num(`document.querySelectorAll('.diff-line.diff-added').length`); n != 2 {
		t.Errorf("%d added diff lines, want 2", n)
	}
	if got := tb.str(`document.querySelector('.diff-line.diff-removed .ln').textContent + '|' + document.querySelector('.diff-line.diff-removed .code').textContent`); got != "5|func old() {}" {
		t.Errorf("removed diff line %q", got)
	}
	if c1, c2 := tb.str(`getComputedStyle(document.querySelector('.diff-added')).color`), tb.str(`getComputedStyle(document.querySelector('.diff-removed')).color`); c1 == c2 {
		t.Errorf("added and removed lines share the colour %s", c1)
	}
	if n := tb.num(`document.querySelectorAll('.tool-list li').length`); n != 7 {
		t.Errorf("%d list rows for grep, find and ls, want 7", n)
	}
	if got := tb.str(`getComputedStyle(document.querySelector('.chroma .k')).color`); got == tb.str(`getComputedStyle(document.querySelector('.chroma')).color`) {
		t.Error("read output is not syntax-highlighted")
	}
	if n := tb.num(`document.querySelectorAll('.tool-execution:has(>.tool-slot>.tool-result.error)').length`); n != 1 {
		t.Errorf("%d failed tool blocks, want 1", n)
	}
	if n := tb.num(`[...document.querySelectorAll('#messages img')].filter(i=>i.naturalWidth===96).length`); n != 1 {
		t.Errorf("%d inline images decoded, want 1", n)
	}

	// Filters change the count.
	counts := map[string]string{}
	for _, f := range []string{"all", "no-tools", "user-only", "labeled-only", "default"} {
		tb.run(click(`.filter-btn[data-filter="` + f + `"]`))
		counts[f] = tb.str(`document.getElementById('tree-status').textContent`)
	}
	total := len(s.Entries())
	var shown = map[string]int{}
	for f, c := range counts {
		var n, m int
		if _, err := fmt.Sscanf(c, "%d / %d entries", &n, &m); err != nil || m != total {
			t.Fatalf("filter %s: status %q", f, c)
		}
		shown[f] = n
	}
	if !(shown["all"] > shown["default"] && shown["default"] > shown["no-tools"] && shown["no-tools"] > shown["user-only"] && shown["labeled-only"] == 2) {
		t.Errorf("filter counts %v", counts)
	}
	// Search narrows the tree.
	tb.run(typeInto("#tree-search", "overloaded"))
	tb.waitFor(`document.getElementById('tree-status').textContent.startsWith('2 /')`) // the match and the current leaf
	if got := tb.str(`[...document.querySelectorAll('.tree-node')].map(e=>e.textContent).join('|')`); !strings.Contains(got, "529 overloaded_error") {
		t.Errorf("search rows %q", got)
	}
	tb.clickNow(`.tree-node:not(.active)`)
	tb.waitFor(`document.getElementById('messages').innerText.includes('An alternative answer')`)
	tb.run(chromedp.KeyEvent("\x1b"))
	tb.waitFor(`document.getElementById('tree-search').value === '' && !document.getElementById('tree-status').textContent.startsWith('2 /')`)

	// Keyboard toggles.
	if v := tb.num(`document.querySelector('.thinking-text') ? document.querySelector('.thinking-text').offsetHeight : -1`); v != 0 {
		tb.open(out, "")
	}
	tb.run(click("#content"), chromedp.KeyEvent("t"))
	if h := tb.num(`document.querySelector('.thinking-text').offsetHeight`); h == 0 {
		t.Error("T does not show thinking")
	}
	tb.run(chromedp.KeyEvent("o"))
	if !strings.Contains(tb.str(`document.body.className`), "tools-expanded") {
		t.Error("O does not expand tool output")
	}

	// Deep link to an entry on the other branch.
	tb.open(out, "#"+ids["alt"])
	if got := tb.str(`document.querySelector('.tree-node.active').textContent`); !strings.Contains(got, "An alternative answer") {
		t.Errorf("deep link: active row %q", got)
	}
	if n := tb.num(`document.querySelectorAll('#messages [data-id="` + ids["alt"] + `"]').length`); n != 1 {
		t.Errorf("deep link target not rendered: %s", tb.str(`[...document.querySelectorAll('#messages [data-id]')].map(e=>e.dataset.id).join(',') + ' hash=' + location.hash`))
	}
	alt := tb.str(`document.getElementById('messages').innerText`)
	for _, want := range []string{"Branch summary", "Tried rebuilding with cgo", "An alternative answer"} {
		if !strings.Contains(alt, want) {
			t.Errorf("other branch lacks %q", want)
		}
	}
	// Through a share viewer: the page reads the viewer's hash when framed
	// by srcdoc; relay-url-hash is what a viewer injects.
	tb.do(`location.hash = '#0123abcd/` + ids["first"] + `'`)
	tb.waitFor(`document.querySelector('.tree-node.active') && document.querySelector('.tree-node.active').textContent.includes('Screenshot attached')`)

	// JSONL download.
	dl := t.TempDir()
	if _, err := chromedp.CallBrowser(tb.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dl}); err != nil {
		t.Fatal(err)
	}
	tb.run(click("#download-jsonl"))
	want, _ := JSONL(s)
	file := filepath.Join(dl, s.SessionID()+".jsonl")
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := os.ReadFile(file)
		if err == nil && bytes.Equal(got, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("download: %v (%d bytes, want %d)", err, len(got), len(want))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if tb.dialogs.Load() != 0 || tb.str(`window.__violations.join()`) != "" {
		t.Errorf("dialogs %d, CSP violations %q", tb.dialogs.Load(), tb.str(`window.__violations.join()`))
	}
}

// TestScreenshotsLightAndDark screenshots the export in both colour
// schemes: the page must not look blank, must be colourful, and the two
// schemes must differ. RELAY_EXPORT_SCREENSHOT=<prefix> keeps the images as
// <prefix>-light.png and <prefix>-dark.png.
func TestScreenshotsLightAndDark(t *testing.T) {
	dir := t.TempDir()
	s, _ := richSession(t, dir)
	defer s.Close()
	out, err := Session(s, filepath.Join(dir, "export.html"))
	if err != nil {
		t.Fatal(err)
	}
	tb := newTab(t, 1200, 2000)
	bgs := map[string]string{}
	for _, scheme := range []string{"light", "dark"} {
		if _, err := chromedp.Call(tb.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
			t.Fatal(err)
		}
		tb.open(out, "")
		tb.run(chromedp.KeyEvent("t"))
		shot, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if keep := os.Getenv("RELAY_EXPORT_SCREENSHOT"); keep != "" {
			os.WriteFile(keep+"-"+scheme+".png", shot, 0o644)
		}
		checkScreenshot(t, shot)
		bgs[scheme] = tb.str(`getComputedStyle(document.body).backgroundColor`)
	}
	if bgs["light"] == bgs["dark"] {
		t.Errorf("light and dark pages share the background %s", bgs["light"])
	}
}

func checkScreenshot(t *testing.T, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dx() < 1000 || b.Dy() < 1000 {
		t.Fatalf("screenshot is %dx%d", b.Dx(), b.Dy())
	}
	counts := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			counts[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}]++
		}
	}
	var bg color.RGBA
	for c, n := range counts {
		if n > counts[bg] {
			bg = c
		}
	}
	share := 1 - float64(counts[bg])/float64(b.Dx()*b.Dy())
	coarse := map[[3]uint8]int{}
	for c, n := range counts {
		coarse[[3]uint8{c.R >> 4, c.G >> 4, c.B >> 4}] += n
	}
	distinct := 0
	for _, n := range coarse {
		if n >= 50 {
			distinct++
		}
	}
	t.Logf("screenshot %dx%d: background %v, %.1f%% non-background, %d distinct colours", b.Dx(), b.Dy(), bg, share*100, distinct)
	if share < 0.15 {
		t.Errorf("only %.1f%% of the screenshot differs from the background: the page looks blank", share*100)
	}
	if distinct < 8 {
		t.Errorf("only %d distinct colours: entries, code and the image should show more", distinct)
	}
}

// writeBigSession writes a session of about mb MB and n entries as the
// session benchmark generates it: tool-loop turns with markdown text and
// bash outputs, an occasional 60 KB output.
func writeBigSession(t *testing.T, path string, mb, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"type":"session","version":3,"id":"big","timestamp":"2025-03-01T09:00:00.000Z","cwd":"/work/big"}`+"\n")
	words := "the quick brown fox **jumps** over a lazy dog while relay reads `files` and edits code carefully "
	text := func(size, seed int) string {
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(words[(seed*7)%len(words):])
			b.WriteString(words)
		}
		return b.String()[:size]
	}
	per := mb<<20/n - 330
	parent := "null"
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("%08x", i)
		var body string
		switch i % 3 {
		case 0:
			body = fmt.Sprintf(`"message":{"role":"user","content":%q,"timestamp":%d}`, text(per/3, i), i)
		case 1:
			body = fmt.Sprintf(`"message":{"role":"assistant","content":[{"type":"text","text":%q},{"type":"toolCall","id":"call_%d","name":"bash","arguments":{"command":"grep -rn foo ."}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1200,"output":300,"cacheRead":50000,"cacheWrite":0,"totalTokens":51500,"cost":{"input":0.0036,"output":0.0045,"cacheRead":0.015,"cacheWrite":0,"total":0.0231}},"stopReason":"toolUse","timestamp":%d}`, text(per, i), i, i)
		default:
			size := per * 5 / 3
			if i%97 == 0 {
				size = 60 << 10
			}
			body = fmt.Sprintf(`"message":{"role":"toolResult","toolCallId":"call_%d","toolName":"bash","content":[{"type":"text","text":%q}],"isError":false,"timestamp":%d}`, i-1, text(size, i)+"\nmarker-"+id, i)
		}
		fmt.Fprintf(w, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2025-03-01T09:00:00.000Z",%s}`+"\n", id, parent, body)
		parent = `"` + id + `"`
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestLargeExportInChromium exports a 50 MB / 20,000-entry session and
// checks the page opens, scrolls in more entries, and searches and filters
// all of them. (Timings are in bench/export.sh, not asserted here.)
func TestLargeExportInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB export: skipped in -short")
	}
	if chromiumPath() == "" {
		t.Skip("chromium not installed")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "big.jsonl")
	writeBigSession(t, in, 50, 20000)
	out, err := File(in, filepath.Join(dir, "big.html"))
	if err != nil {
		t.Fatal(err)
	}
	tb := newTab(t, 1200, 1000)
	tb.open(out, "")
	if got := tb.str(`document.getElementById('tree-status').textContent`); got != "20000 / 20000 entries" {
		t.Errorf("status %q", got)
	}
	before := tb.num(`document.querySelectorAll('#messages .entry').length`)
	if before > 200 {
		t.Errorf("%d entries rendered up front: rendering should be lazy", before)
	}
	tb.do(`document.getElementById('content').scrollTop = 1e9`)
	tb.waitFor(`document.querySelectorAll('#messages .entry').length > ` + fmt.Sprint(before))
	tb.run(typeInto("#tree-search", "marker-00004e1d")) // a tool result near the end
	tb.waitFor(`document.getElementById('tree-status').textContent.startsWith('2 /')`)
	tb.clickNow(`.tree-node:not(.active)`)
	tb.waitFor(`document.querySelector('#messages [data-id="00004e1d"]') !== null`)
	tb.run(chromedp.KeyEvent("\x1b"), click(`.filter-btn[data-filter="user-only"]`))
	if got := tb.str(`document.getElementById('tree-status').textContent`); got != "6667 / 20000 entries" {
		t.Errorf("user filter status %q", got)
	}
}

// An empty session and one with broken parent links still open.
func TestOddSessionsOpenInChromium(t *testing.T) {
	if chromiumPath() == "" {
		t.Skip("chromium not installed")
	}
	dir := t.TempDir()
	empty, err := Session(session.InMemory("/p"), filepath.Join(dir, "empty.html"))
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "odd.jsonl")
	os.WriteFile(in, []byte(strings.Join([]string{
		`{"type":"session","version":3,"id":"odd","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}`,
		`{"type":"message","id":"a","parentId":"b","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"first","timestamp":1}}`,
		`{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"nope","toolName":"read","content":[{"type":"text","text":"orphan"}],"isError":false,"timestamp":2}}`,
		`{"type":"mystery","id":"c","parentId":"zz","timestamp":"2025-01-01T00:00:03.000Z"}`,
	}, "\n")+"\n"), 0o644)
	odd, err := File(in, filepath.Join(dir, "odd.html"))
	if err != nil {
		t.Fatal(err)
	}
	tb := newTab(t, 1200, 900)
	tb.open(empty, "")
	if got := tb.str(`document.getElementById('tree-status').textContent`); got != "0 / 0 entries" {
		t.Errorf("empty session status %q", got)
	}
	tb.open(odd, "#b")
	if got := tb.str(`document.getElementById('messages').innerText`); !strings.Contains(got, "orphan") || !strings.Contains(got, "result of a call not in this session") {
		t.Errorf("orphan tool result not shown: %q", got)
	}
	tb.run(click(`.filter-btn[data-filter="all"]`))
	if got := tb.str(`document.getElementById('tree-status').textContent`); got != "3 / 3 entries" {
		t.Errorf("odd session status %q", got)
	}
}
