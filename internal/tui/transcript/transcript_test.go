package transcript

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui/markdown"
	"github.com/relay-agent/relay/internal/tui/theme"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, lines []string) {
	t.Helper()
	var plain []string
	for _, l := range lines {
		plain = append(plain, strings.TrimRight(ansi.Strip(l), " "))
	}
	got := strings.Join(plain, "\n") + "\n"
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

func newT() *Transcript {
	return New(markdown.NewRenderer(markdown.Options{Theme: theme.Builtin("dark")}), Options{CollapsedLines: 3})
}

func delta(typ string, idx int, d string) agent.Event {
	return agent.Event{Type: agent.MessageUpdate, AssistantEvent: &llm.AssistantEvent{Type: typ, ContentIndex: idx, Delta: d}}
}

func streamTurn(tr *Transcript) {
	tr.Apply(agent.Event{Type: agent.MessageStart, Message: &llm.UserMessage{Content: llm.StringContent("List the files please")}})
	tr.Apply(agent.Event{Type: agent.MessageStart, Message: &llm.AssistantMessage{StopReason: llm.StopPending}})
	tr.Apply(delta(llm.EventThinkingStart, 0, ""))
	tr.Apply(delta(llm.EventThinkingDelta, 0, "The user wants files."))
	tr.Apply(delta(llm.EventTextStart, 1, ""))
	for _, w := range strings.SplitAfter("Sure. I'll run **ls**:\n\n```bash\nls -la\n```\n", " ") {
		tr.Apply(delta(llm.EventTextDelta, 1, w))
	}
	args := json.RawMessage(`{"command":"ls -la"}`)
	tr.Apply(agent.Event{Type: agent.MessageUpdate, AssistantEvent: &llm.AssistantEvent{Type: llm.EventToolCallStart, ContentIndex: 2, ID: "c1", ToolName: "bash"}})
	final := &llm.AssistantMessage{StopReason: llm.StopToolUse, Content: llm.Blocks{
		&llm.ThinkingContent{Thinking: "The user wants files."},
		&llm.TextContent{Text: "Sure. I'll run **ls**:\n\n```bash\nls -la\n```\n"},
		&llm.ToolCall{ID: "c1", Name: "bash", Arguments: args},
	}}
	tr.Apply(agent.Event{Type: agent.MessageEnd, Message: final})
	tr.Apply(agent.Event{Type: agent.ToolExecutionStart, ToolCallID: "c1", ToolName: "bash", Args: args})
	out := &agent.ToolOutput{Content: llm.Blocks{&llm.TextContent{Text: "a\nb\nc\nd\ne\n"}}}
	tr.Apply(agent.Event{Type: agent.ToolExecutionEnd, ToolCallID: "c1", ToolName: "bash", Output: out})
}

func TestStreamedTurnGolden(t *testing.T) {
	tr := newT()
	streamTurn(tr)
	golden(t, "turn", tr.View(50, 30))
	tr.SetToolsExpanded(true)
	tr.SetThinkingHidden(true)
	golden(t, "turn_expanded", tr.View(50, 30))
}

func TestEditDiffAndErrors(t *testing.T) {
	tr := newT()
	det := json.RawMessage(`{"diff":" 1 package x\n-2 old line\n+2 new line\n"}`)
	tr.AddMessages([]llm.Message{
		&llm.AssistantMessage{StopReason: llm.StopToolUse, Content: llm.Blocks{&llm.ToolCall{ID: "e", Name: "edit", Arguments: json.RawMessage(`{"path":"x.go"}`)}}},
		&llm.ToolResultMessage{ToolCallID: "e", ToolName: "edit", Content: llm.Blocks{&llm.TextContent{Text: "ok"}}, Details: det},
		&llm.AssistantMessage{StopReason: llm.StopError, ErrorMessage: "529 overloaded"},
		&llm.BashExecutionMessage{Command: "false", ExitCode: intp(1)},
	})
	tr.Apply(agent.Event{Type: agent.AutoRetryStart, Attempt: 1, MaxAttempts: 3, DelayMs: 2000, ErrorMessage: "529 overloaded"})
	golden(t, "diff_errors", tr.View(40, 24))
	lines := tr.View(40, 24)
	joined := strings.Join(lines, "\n")
	th := tr.Theme()
	if !strings.Contains(joined, th.FgSeq("toolDiffAdded")+"+2 new line") {
		t.Error("added diff line not coloured")
	}
}

func intp(i int) *int { return &i }

func TestRegularModeCommitsInOrder(t *testing.T) {
	tr := newT()
	tr.AddNotice("one")
	tr.Apply(agent.Event{Type: agent.MessageStart, Message: &llm.AssistantMessage{}})
	tr.Apply(delta(llm.EventTextDelta, 0, "streaming"))
	tr.AddNotice("after")
	got := tr.TakeCommitted(40)
	if len(got) != 2 || ansi.Strip(got[1]) != "one" {
		t.Fatalf("committed %q", got)
	}
	if live := tr.Live(40); len(live) != 4 {
		t.Fatalf("live %q", live)
	}
	tr.Apply(agent.Event{Type: agent.MessageEnd, Message: &llm.AssistantMessage{StopReason: llm.StopStop, Content: llm.Blocks{&llm.TextContent{Text: "streaming done"}}}})
	got = tr.TakeCommitted(40)
	if len(got) != 4 || !strings.Contains(ansi.Strip(got[1]), "streaming done") {
		t.Fatalf("second commit %q", got)
	}
	if len(tr.Live(40)) != 0 || len(tr.TakeCommitted(40)) != 0 {
		t.Fatal("nothing should remain")
	}
}

func bigTranscript(n int) *Transcript {
	tr := newT()
	var ms []llm.Message
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			ms = append(ms, &llm.UserMessage{Content: llm.StringContent(fmt.Sprintf("question %d", i))})
		} else {
			ms = append(ms, &llm.AssistantMessage{StopReason: llm.StopStop, Content: llm.Blocks{&llm.TextContent{Text: fmt.Sprintf("Answer **%d** with `code`.\n\n- a\n- b", i)}}})
		}
	}
	tr.AddMessages(ms)
	return tr
}

func TestScrollAndPrompts(t *testing.T) {
	tr := bigTranscript(40)
	v := tr.View(30, 10)
	if !strings.Contains(ansi.Strip(v[len(v)-1]), "- b") || !tr.Following() {
		t.Fatalf("bottom %q", v)
	}
	tr.ScrollBy(-5)
	if tr.Following() {
		t.Fatal("still following after scroll up")
	}
	tr.Top()
	v = tr.View(30, 10)
	if !strings.Contains(ansi.Strip(strings.Join(v, "\n")), "question 0") {
		t.Fatalf("top %q", v)
	}
	tr.NextPrompt()
	v = tr.View(30, 10)
	if !strings.Contains(ansi.Strip(strings.Join(v[:4], "\n")), "question 2") {
		t.Fatalf("next prompt %q", v)
	}
	tr.PrevPrompt()
	v = tr.View(30, 10)
	if !strings.Contains(ansi.Strip(strings.Join(v[:4], "\n")), "question 0") {
		t.Fatalf("prev prompt %q", v)
	}
	above, vis, total := tr.Scroll()
	if above != 0 || vis != 10 || total < 100 {
		t.Fatalf("scroll %d %d %d", above, vis, total)
	}
	tr.PageDown()
	tr.PageDown()
	if a, _, _ := tr.Scroll(); a != 18 {
		t.Fatalf("after 2 pages above=%d", a)
	}
	tr.Bottom()
	tr.View(30, 10)
	if !tr.Following() {
		t.Fatal("bottom does not follow")
	}
}

func TestSearch(t *testing.T) {
	tr := bigTranscript(40)
	tr.View(30, 10)
	if n := tr.Search("question 1"); n != 5 { // 10, 12, 14, 16, 18
		t.Fatalf("matches %d", n)
	}
	if c, n := tr.SearchStatus(); c != 5 || n != 5 {
		t.Fatalf("status %d/%d", c, n)
	}
	v := strings.Join(tr.View(30, 10), "\n")
	if !strings.Contains(v, "\x1b[7mquestion 1\x1b[27m8") {
		t.Fatalf("current match not highlighted: %q", v)
	}
	tr.NextMatch()
	if c, _ := tr.SearchStatus(); c != 1 {
		t.Fatalf("wrap to first, got %d", c)
	}
	tr.CloseSearch()
}

// BenchmarkView10k measures one frame (a keystroke's redraw) over a
// 10,000-message transcript at the bottom.
func BenchmarkView10k(b *testing.B) {
	tr := bigTranscript(10000)
	tr.View(100, 40)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr.View(100, 40)
		tr.Scroll()
	}
}

func BenchmarkScroll10k(b *testing.B) {
	tr := bigTranscript(10000)
	tr.View(100, 40)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr.PageUp()
		tr.View(100, 40)
	}
}

func BenchmarkFirstSearch10k(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		tr := bigTranscript(10000)
		tr.View(100, 40)
		b.StartTimer()
		tr.Search("question 9998")
	}
}

// Some servers reuse tool call ids across turns (call_1 every time): each
// call must still get its own block instead of overwriting the first one.
func TestReusedToolCallIDsGetOwnBlocks(t *testing.T) {
	tr := newT()
	for _, name := range []string{"write", "edit", "bash"} {
		args := json.RawMessage(`{"path":"a.txt"}`)
		tr.Apply(agent.Event{Type: agent.MessageStart, Message: &llm.AssistantMessage{}})
		tr.Apply(agent.Event{Type: agent.MessageUpdate, AssistantEvent: &llm.AssistantEvent{Type: llm.EventToolCallStart, ContentIndex: 0, ID: "call_1", ToolName: name}})
		tr.Apply(agent.Event{Type: agent.MessageUpdate, AssistantEvent: &llm.AssistantEvent{Type: llm.EventToolCallEnd, ContentIndex: 0, ToolCall: &llm.ToolCall{ID: "call_1", Name: name, Arguments: args}}})
		tr.Apply(agent.Event{Type: agent.MessageEnd, Message: &llm.AssistantMessage{StopReason: llm.StopToolUse, Content: llm.Blocks{&llm.ToolCall{ID: "call_1", Name: name, Arguments: args}}}})
		tr.Apply(agent.Event{Type: agent.ToolExecutionStart, ToolCallID: "call_1", ToolName: name, Args: args})
		tr.Apply(agent.Event{Type: agent.ToolExecutionEnd, ToolCallID: "call_1", ToolName: name,
			Output: &agent.ToolOutput{Content: llm.Blocks{&llm.TextContent{Text: name + " ok"}}}})
	}
	var got []string
	for _, it := range tr.items {
		if it.kind == KindTool {
			got = append(got, it.toolName+":"+it.output)
		}
	}
	want := []string{"write:write ok", "edit:edit ok", "bash:bash ok"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tool blocks = %q, want %q", got, want)
	}
}

// A finished write shows the content it wrote; a failed one its error.
func TestWriteShowsContent(t *testing.T) {
	for _, tc := range []struct {
		isErr bool
		want  string
		not   string
	}{
		{false, "print(f())", "Successfully wrote"},
		{true, "permission denied", "print(f())"},
	} {
		tr := newT()
		args := json.RawMessage(`{"path":"b.py","content":"def f():\n    return 1\nprint(f())\n"}`)
		out := "Successfully wrote to b.py"
		if tc.isErr {
			out = "permission denied"
		}
		tr.AddMessage(&llm.AssistantMessage{StopReason: llm.StopToolUse, Content: llm.Blocks{&llm.ToolCall{ID: "w", Name: "write", Arguments: args}}})
		tr.AddMessage(&llm.ToolResultMessage{ToolCallID: "w", ToolName: "write", IsError: tc.isErr, Content: llm.Blocks{&llm.TextContent{Text: out}}})
		view := ansi.Strip(strings.Join(tr.View(60, 20), "\n"))
		if !strings.Contains(view, tc.want) || strings.Contains(view, tc.not) {
			t.Errorf("isError=%v:\n%s", tc.isErr, view)
		}
	}
}

func TestRetryEndTexts(t *testing.T) {
	for _, tc := range []struct {
		ev       agent.Event
		want     string
		wantKind Kind
	}{
		{agent.Event{Type: agent.AutoRetryEnd, Attempt: 1, FinalError: "Retry cancelled", Cancelled: true}, "Retry cancelled", KindNotice},
		// The flag decides, not the text: a provider whose error reads
		// "Retry cancelled" is still a failure.
		{agent.Event{Type: agent.AutoRetryEnd, Attempt: 2, FinalError: "Retry cancelled"}, "Retry failed after 2 attempts: Retry cancelled", KindError},
		{agent.Event{Type: agent.AutoRetryEnd, Attempt: 3, FinalError: "529 overloaded"}, "Retry failed after 3 attempts: 529 overloaded", KindError},
	} {
		tr := newT()
		tr.Apply(tc.ev)
		if len(tr.items) != 1 || tr.items[0].text != tc.want || tr.items[0].kind != tc.wantKind {
			t.Errorf("%q: got %+v", tc.want, tr.items)
		}
	}
	tr := newT()
	tr.Apply(agent.Event{Type: agent.AutoRetryEnd, Success: true, Attempt: 1})
	if len(tr.items) != 0 {
		t.Errorf("success added %d items", len(tr.items))
	}
}

// A notice that is an aligned table (/hotkeys) wraps under its last
// column, not at column 1.
func TestNoticeWrapsUnderItsColumn(t *testing.T) {
	tr := newT()
	tr.AddNotice("Editor\n  ctrl+shift+up  Jump to the previous marked message in the transcript\n" +
		"  a very long line without any aligned column that needs to wrap somewhere")
	lines := tr.TakeCommitted(40)
	var plain []string
	for _, l := range lines {
		plain = append(plain, strings.TrimRight(ansi.Strip(l), " "))
	}
	want := []string{
		"Editor",
		"  ctrl+shift+up  Jump to the previous",
		"                 marked message in the",
		"                 transcript",
		"  a very long line without any aligned",
		"  column that needs to wrap somewhere",
	}
	got := plain[len(plain)-len(want):]
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %q, want %q\nall:\n%s", i, got[i], want[i], strings.Join(plain, "\n"))
		}
	}
}

// A branch summary is collapsed like tool output, and expanded it shows
// its file lists as lists, not as the tags written for the model.
func TestBranchSummaryCollapsed(t *testing.T) {
	tr := newT()
	tr.AddMessage(&llm.BranchSummaryMessage{Summary: "## Goal\nFix the parser.\n\n<read-files>\nparse.go\nlex.go\n</read-files>\n\n<modified-files>\nparse.go\n</modified-files>"})
	text := func() string {
		var b strings.Builder
		for _, l := range tr.Live(60) {
			b.WriteString(strings.TrimRight(ansi.Strip(l), " ") + "\n")
		}
		for _, l := range tr.TakeCommitted(60) {
			b.WriteString(strings.TrimRight(ansi.Strip(l), " ") + "\n")
		}
		return b.String()
	}
	collapsed := text()
	if !strings.Contains(collapsed, "Branch summary (ctrl+o to expand)") || strings.Contains(collapsed, "Fix the parser") {
		t.Errorf("collapsed:\n%s", collapsed)
	}
	tr2 := newT()
	tr2.SetToolsExpanded(true)
	tr2.AddMessage(&llm.BranchSummaryMessage{Summary: "## Goal\nFix the parser.\n\n<read-files>\nparse.go\nlex.go\n</read-files>\n\n<modified-files>\nparse.go\n</modified-files>"})
	tr = tr2
	expanded := text()
	for _, want := range []string{"Fix the parser.", "Read files:", "  lex.go", "Modified files:"} {
		if !strings.Contains(expanded, want) {
			t.Errorf("expanded lacks %q:\n%s", want, expanded)
		}
	}
	if strings.Contains(expanded, "<read-files>") || strings.Contains(expanded, "</modified-files>") {
		t.Errorf("raw tags shown:\n%s", expanded)
	}
}

// ctx.ui.setHiddenThinkingLabel: collapsed thinking shows the label, and
// already drawn blocks change with it.
func TestThinkingLabel(t *testing.T) {
	tr := newT()
	streamTurn(tr)
	tr.SetThinkingHidden(true)
	view := func() string { return ansi.Strip(strings.Join(tr.View(50, 30), "\n")) }
	if v := view(); !strings.Contains(v, "Thinking…") {
		t.Fatalf("default label missing:\n%s", v)
	}
	tr.SetThinkingLabel("Pondering")
	if v := view(); !strings.Contains(v, "Pondering") || strings.Contains(v, "Thinking…") {
		t.Fatalf("label not applied:\n%s", v)
	}
	tr.SetThinkingLabel("")
	if v := view(); !strings.Contains(v, "Thinking…") {
		t.Fatalf("default label not restored:\n%s", v)
	}
}

// A codemode script's nested calls have their own tool_execution events;
// they do not become blocks of their own (a resumed session has only the
// parent's), and the parent's block is the one the result lands in.
func TestNestedToolEventsStayInTheirParent(t *testing.T) {
	tr := newT()
	args := json.RawMessage(`{"code":"await tools.read({path: \"a\"})"}`)
	tr.Apply(agent.Event{Type: agent.MessageStart, Message: &llm.AssistantMessage{}})
	tr.Apply(agent.Event{Type: agent.MessageEnd, Message: &llm.AssistantMessage{StopReason: llm.StopToolUse, Content: llm.Blocks{&llm.ToolCall{ID: "c1", Name: "codemode", Arguments: args}}}})
	tr.Apply(agent.Event{Type: agent.ToolExecutionStart, ToolCallID: "c1", ToolName: "codemode", Args: args})
	nested := json.RawMessage(`{"path":"a"}`)
	tr.Apply(agent.Event{Type: agent.ToolExecutionStart, ToolCallID: "c1/1", ToolName: "read", Args: nested, ParentToolCallID: "c1"})
	tr.Apply(agent.Event{Type: agent.ToolExecutionEnd, ToolCallID: "c1/1", ToolName: "read", ParentToolCallID: "c1",
		Output: &agent.ToolOutput{Content: llm.Blocks{&llm.TextContent{Text: "file text"}}}})
	tr.Apply(agent.Event{Type: agent.ToolExecutionEnd, ToolCallID: "c1", ToolName: "codemode",
		Output: &agent.ToolOutput{Content: llm.Blocks{&llm.TextContent{Text: "Script completed"}}}})
	var got []string
	for _, it := range tr.items {
		if it.kind == KindTool {
			got = append(got, it.toolName+":"+it.output)
		}
	}
	if strings.Join(got, ",") != "codemode:Script completed" {
		t.Fatalf("tool blocks = %q", got)
	}
}
