package markdown

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/tui/theme"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(p, []byte(got), 0o644)
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("missing golden (run with -update): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

const sample = "# Title\n\nSome *italic*, **bold**, `code` and a [link](https://x.dev).\n\n" +
	"- one\n- two\n  - nested\n\n1. first\n2. second\n\n> quoted text\n\n" +
	"```go\nfunc main() {\n\tfmt.Println(\"hi\", 42)\n}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n\n- [x] done\n- [ ] todo\n"

func TestRenderPlainGolden(t *testing.T) {
	r := NewRenderer(Options{Theme: theme.Builtin("dark"), CodeBlockIndent: "  "})
	lines := r.Render(sample, 40)
	var plain []string
	for _, l := range lines {
		plain = append(plain, ansi.Strip(l))
		if w := ansi.StringWidth(l); w > 40 {
			t.Errorf("line wider than 40: %q", l)
		}
	}
	golden(t, "sample_plain", strings.Join(plain, "\n")+"\n")
	golden(t, "sample_ansi", strings.Join(lines, "\n")+"\n")
}

func TestCodeHighlightUsesTheme(t *testing.T) {
	th := theme.Builtin("dark")
	lines := Highlight(th, "func main() { return 1 }", "go")
	if !strings.Contains(lines[0], th.FgSeq("syntaxKeyword")+"func") {
		t.Errorf("keyword not coloured: %q", lines[0])
	}
	if !strings.Contains(lines[0], th.FgSeq("syntaxNumber")+"1") {
		t.Errorf("number not coloured: %q", lines[0])
	}
	py := Highlight(th, "def f():\n    return 'x'", "py")
	if len(py) != 2 || !strings.Contains(py[0], th.FgSeq("syntaxKeyword")+"def") {
		t.Errorf("python: %q", py)
	}
	plain := Highlight(th, "whatever", "nolang")
	if plain[0] != th.Fg("mdCodeBlock", "whatever") {
		t.Errorf("unknown lang: %q", plain[0])
	}
}

func TestSelfContained(t *testing.T) {
	lines := SelfContained([]string{"\x1b[1mbold", "still\x1b[22m plain", "x"})
	if lines[0] != "\x1b[1mbold\x1b[0m" || lines[1] != "\x1b[1mstill\x1b[22m plain" || lines[2] != "x" {
		t.Errorf("%q", lines)
	}
}

func TestDocStreamingMatchesWholeRender(t *testing.T) {
	r := NewRenderer(Options{Theme: theme.Builtin("dark")})
	d := r.NewDoc()
	for i := 0; i < len(sample); i += 7 {
		d.Append(sample[i:min(i+7, len(sample))])
		d.Lines(40)
	}
	got := strings.Join(d.Lines(40), "\n")
	if len(d.done) < 5 {
		t.Errorf("only %d cached chunks", len(d.done))
	}
	plainGot := ansi.Strip(got)
	plainWant := ansi.Strip(strings.Join(r.Render(sample, 40), "\n"))
	if plainGot != plainWant {
		t.Errorf("streamed differs:\n%s\n---\n%s", plainGot, plainWant)
	}
}

func TestDocFenceKeepsBlankLines(t *testing.T) {
	r := NewRenderer(Options{Theme: theme.Builtin("dark")})
	d := r.NewDoc()
	d.Append("```\na\n\nb\n```\n\nafter")
	if len(d.done) != 1 {
		t.Fatalf("chunks %d", len(d.done))
	}
	if got := d.Text()[d.done[0].start:d.done[0].end]; !strings.HasPrefix(got, "```\na\n\nb\n```") {
		t.Errorf("chunk %q", got)
	}
}

func TestDocCachesFinishedChunks(t *testing.T) {
	r := NewRenderer(Options{Theme: theme.Builtin("dark")})
	d := r.NewDoc()
	d.Append("para one\n\npara two\n\nthree")
	d.Lines(30)
	first := &d.done[0].lines[0]
	d.Append(" more")
	d.Lines(30)
	if &d.done[0].lines[0] != first {
		t.Error("finished chunk re-rendered")
	}
}

func BenchmarkStreamAnswer(b *testing.B) {
	r := NewRenderer(Options{Theme: theme.Builtin("dark")})
	para := "Some text with `code` and **bold** words that goes on for a while to wrap. "
	for i := 0; i < b.N; i++ {
		d := r.NewDoc()
		for j := 0; j < 400; j++ {
			d.Append(para)
			if j%5 == 4 {
				d.Append("\n\n")
			}
			d.Lines(80)
		}
	}
}

// BenchmarkStreamLongCodeBlock streams a 100 KB fenced code block in
// 40-byte deltas, drawing after each (the throttled tail case).
func BenchmarkStreamLongCodeBlock(b *testing.B) {
	r := NewRenderer(Options{Theme: theme.Builtin("dark")})
	line := "func f(x int) int { return x * 42 } // comment\n"
	for i := 0; i < b.N; i++ {
		d := r.NewDoc()
		d.Append("```go\n")
		for n := 0; n < 100<<10; n += len(line) {
			for j := 0; j < len(line); j += 40 {
				d.Append(line[j:min(j+40, len(line))])
				d.Lines(100)
			}
		}
		d.Append("```\n")
		d.Finish()
		d.Lines(100)
	}
}

func TestLongOpenCodeBlockStreamsIncrementally(t *testing.T) {
	r := NewRenderer(Options{Theme: theme.Builtin("dark"), CodeBlockIndent: "  "})
	d := r.NewDoc()
	d.Append("Intro.\n\n```go\n")
	line := "x := 1 // some code\n"
	for i := 0; i < 600; i++ {
		d.Append(line)
	}
	d.Append("partial")
	lines := d.Lines(60)
	plain := ansi.Strip(strings.Join(lines, "\n"))
	if !strings.HasPrefix(plain, "Intro.\n\n```go\n  x := 1 // some code") || !strings.HasSuffix(plain, "  partial") {
		t.Fatalf("open block:\n%.200s ... %s", plain, plain[len(plain)-40:])
	}
	if n := len(d.code.lines); n != 600 {
		t.Fatalf("cached %d lines", n)
	}
	d.Append("\n```\n\nAfter.")
	d.Finish()
	final := ansi.Strip(strings.Join(d.Lines(60), "\n"))
	want := ansi.Strip(strings.Join(r.Render(d.Text(), 60), "\n"))
	if final != want {
		t.Fatal("finished document differs from a full render")
	}
}

func TestMermaidBlocks(t *testing.T) {
	src := "```mermaid\ngraph TD\n  A-->B\n```\n"
	drawn := func(out string) bool {
		return strings.Contains(out, "┌─┴─┐") || strings.Contains(out, "│ B │")
	}
	for _, tt := range []struct {
		mode     string
		finished bool
		drawn    bool
	}{
		{"off", true, false},
		{"final", true, true},
		{"final", false, false},
		{"streaming", false, true},
		{"streaming", true, true},
	} {
		r := NewRenderer(Options{Theme: theme.Builtin("dark"), Mermaid: tt.mode})
		d := r.NewDoc()
		d.Append(src)
		if tt.finished {
			d.Finish()
		}
		out := ansi.Strip(strings.Join(d.Lines(60), "\n"))
		if drawn(out) != tt.drawn || drawn(out) == strings.Contains(out, "A-->B") {
			t.Errorf("%s finished=%v: drawn=%v\n%s", tt.mode, tt.finished, drawn(out), out)
		}
		if !tt.drawn && tt.mode == "final" && !strings.Contains(out, "drawn when the answer is complete") {
			t.Errorf("final while streaming: no label\n%s", out)
		}
	}
}

// Diagrams that cannot be drawn show their source, labelled with why.
func TestMermaidFallbacks(t *testing.T) {
	r := NewRenderer(Options{Theme: theme.Builtin("dark"), Mermaid: "streaming"})
	for _, tt := range []struct {
		src   string
		width int
		note  string
	}{
		{"```mermaid\npie title Pets\n  \"Dogs\" : 3\n```", 80, "Mermaid pie diagram (source shown; only flowcharts and sequence diagrams are drawn)"},
		{"```mermaid\ngraph LR\n  A[a long label here] --> B[another long label]\n```", 30, "it needs 48 columns"},
		{"```mermaid\ngraph TD\n  A --> B\n  C[oops --> D\n```", 80, "Mermaid diagram not drawn: skipped"},
	} {
		out := ansi.Strip(strings.Join(r.Render(tt.src, tt.width), "\n"))
		if !strings.Contains(out, tt.note) || !strings.Contains(out, "```mermaid") {
			t.Errorf("width %d:\n%s\nwant note %q", tt.width, out, tt.note)
		}
	}
}

// A diagram is laid out once per source, however often it is redrawn.
func TestMermaidCached(t *testing.T) {
	r := NewRenderer(Options{Theme: theme.Builtin("dark"), Mermaid: "final"})
	src := "```mermaid\nsequenceDiagram\n  A->>B: hi\n```"
	first := r.Render(src, 80)
	art := r.mermaid.m["sequenceDiagram\n  A->>B: hi\n"].art
	if art == nil {
		t.Fatalf("not cached: %v", r.mermaid.m)
	}
	for w := 40; w < 60; w++ {
		r.Render(src, w)
	}
	if len(r.mermaid.m) != 1 || r.mermaid.m["sequenceDiagram\n  A->>B: hi\n"].art != art {
		t.Error("laid out again")
	}
	if strings.Join(first, "\n") != strings.Join(r.Render(src, 80), "\n") {
		t.Error("cached drawing differs")
	}
}
