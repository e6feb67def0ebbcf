package tui_test

import (
	"context"
	"flag"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui"
	"github.com/relay-agent/relay/internal/tui/keymap"
	"github.com/relay-agent/relay/internal/tui/tuitest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(p, []byte(got+"\n"), 0o644)
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("missing golden (run with -update): %v", err)
	}
	if string(want) != got+"\n" {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func opts() tui.Options {
	return tui.Options{Version: "test", Keymap: keymap.New(keymap.Unix), ThemeSetting: "dark", DisableTick: true, OutputPad: 1}
}

func start(t *testing.T, f *tuitest.Fake, o tui.Options, w, h int) *tuitest.Driver {
	t.Helper()
	m := tui.New(context.Background(), f, o)
	unsub := f.Subscribe(m.Deliver)
	t.Cleanup(unsub)
	return tuitest.NewDriver(m, w, h)
}

func hasCall(f *tuitest.Fake, prefix string) bool {
	return slices.ContainsFunc(f.CallLog(), func(c string) bool { return strings.HasPrefix(c, prefix) })
}

func TestPromptStreamsAnswer(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen = true
	d := start(t, f, o, 70, 16)
	golden(t, "startup", d.Frame())
	d.Type("hello there")
	d.Press("enter")
	if !hasCall(f, "Prompt hello there") {
		t.Fatalf("calls %v", f.CallLog())
	}
	golden(t, "answered", d.Frame())
}

func TestRegularModePrintsFinishedBlocks(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 60, 12)
	d.Type("hi")
	d.Press("enter")
	all := strings.Join(d.Printed, "\n")
	if !strings.Contains(all, "echo: hi") || !strings.Contains(all, "hi") {
		t.Fatalf("printed %q", all)
	}
	if strings.Contains(d.Frame(), "echo: hi") {
		t.Error("finished answer redrawn in the live area")
	}
}

func TestToolTask(t *testing.T) {
	f := tuitest.NewFake()
	f.Reply = tuitest.ToolReply("ls", "a.go\nb.go")
	o := opts()
	o.Fullscreen = true
	d := start(t, f, o, 60, 24)
	d.Type("list")
	d.Press("enter")
	golden(t, "tool", d.Frame())
}

func TestAbortSteerFollowUpDequeue(t *testing.T) {
	f := tuitest.NewFake()
	f.Block = make(chan struct{})
	o := opts()
	o.Fullscreen = true
	d := start(t, f, o, 60, 16)
	d.Type("long task")
	d.Press("enter")
	if !strings.Contains(d.Frame(), "Working") {
		t.Fatalf("not busy:\n%s", d.Frame())
	}
	d.Type("also this")
	d.Press("enter")
	d.Type("later")
	d.Press("alt+enter")
	if !hasCall(f, "Steer also this") || !hasCall(f, "FollowUp later") {
		t.Fatalf("calls %v", f.CallLog())
	}
	if fr := d.Frame(); !strings.Contains(fr, "steering: also this") || !strings.Contains(fr, "follow-up: later") ||
		!strings.Contains(fr, "alt+up to edit all queued messages") {
		t.Errorf("queue not shown:\n%s", d.Frame())
	}
	d.Press("alt+up")
	if !hasCall(f, "Dequeue") || !strings.Contains(d.Frame(), "also this") {
		t.Errorf("dequeue:\n%s", d.Frame())
	}
	d.Press("ctrl+c") // clear the restored text
	d.Press("escape")
	if !hasCall(f, "Abort") {
		t.Fatalf("escape did not abort: %v", f.CallLog())
	}
	time.Sleep(10 * time.Millisecond)
	d.Settle()
	if strings.Contains(d.Frame(), "Working") || !strings.Contains(d.Frame(), "Aborted") {
		t.Errorf("after abort:\n%s", d.Frame())
	}
	// The transient status goes once the run has stopped.
	if strings.Contains(d.Frame(), "Aborting") {
		t.Errorf("stale Aborting… status:\n%s", d.Frame())
	}
}

func TestModelSelectionAndCycling(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 60, 16)
	d.Press("ctrl+l")
	golden(t, "model_selector", d.Frame())
	d.Press("down", "enter")
	if !hasCall(f, "SetModel openai-codex/gpt-6-luna") {
		t.Fatalf("calls %v", f.CallLog())
	}
	d.Press("ctrl+p")
	if !hasCall(f, "CycleModel true") || !strings.Contains(d.Frame(), "claude-sonnet-5-5") {
		t.Fatalf("cycle: %v\n%s", f.CallLog(), d.Frame())
	}
	d.Press("shift+tab")
	if !hasCall(f, "CycleThinkingLevel high") || !strings.Contains(d.Frame(), "· high") {
		t.Fatalf("thinking: %v\n%s", f.CallLog(), d.Frame())
	}
	d.Type("/model gpt-6-luna")
	d.Press("escape") // close the completion list
	d.Press("enter")
	if n := strings.Count(strings.Join(f.CallLog(), "\n"), "SetModel openai-codex/gpt-6-luna"); n != 2 {
		t.Fatalf("/model by name: %v", f.CallLog())
	}
}

func TestCustomKeybindings(t *testing.T) {
	km, warnings, err := keymap.Apply(keymap.Unix, []byte(`{"app.model.select":"f2","app.thinking.cycle":[],"bogus.action":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	f := tuitest.NewFake()
	o := opts()
	o.Keymap, o.StartupWarnings = km, warnings
	o.Fullscreen = true
	d := start(t, f, o, 70, 16)
	if !strings.Contains(d.Frame(), `unknown action "bogus.action"`) {
		t.Errorf("warning not shown:\n%s", d.Frame())
	}
	d.Press("ctrl+l")
	if strings.Contains(d.Frame(), "Select model") {
		t.Fatal("old key still opens the selector")
	}
	d.Press("f2")
	if !strings.Contains(d.Frame(), "Select model") {
		t.Fatal("new key does not open the selector")
	}
	d.Press("escape", "shift+tab")
	if hasCall(f, "CycleThinkingLevel") {
		t.Fatal("disabled action ran")
	}
}

func TestResumePicker(t *testing.T) {
	f := tuitest.NewFake()
	now := time.Now()
	f.Sessions = []tui.SessionItem{
		{Path: "/sessions/a.jsonl", ID: "a", FirstMessage: "current work", Modified: now, Messages: 4},
		{Path: "/sessions/b.jsonl", ID: "b", Name: "refactor", FirstMessage: "refactor the parser", Modified: now.Add(-2 * time.Hour), Messages: 12},
		{Path: "/sessions/c.jsonl", ID: "c", FirstMessage: "fix the flaky test", Modified: now.Add(-48 * time.Hour), Messages: 3},
	}
	d := start(t, f, opts(), 70, 16)
	d.Type("/resume")
	d.Press("escape", "enter")
	golden(t, "resume", d.Frame())
	d.Press("ctrl+n") // named only
	if strings.Contains(d.Frame(), "flaky") {
		t.Fatal("named filter")
	}
	d.Press("ctrl+n")
	d.Type("flaky")
	d.Press("ctrl+r")
	d.Type("fixes")
	d.Press("enter")
	if !hasCall(f, "RenameSession /sessions/c.jsonl fixes") {
		t.Fatalf("rename: %v", f.CallLog())
	}
	d.Press("ctrl+d")
	if !strings.Contains(d.Frame(), "(y/n)") {
		t.Fatalf("no confirmation:\n%s", d.Frame())
	}
	d.Type("y")
	if !hasCall(f, "DeleteSession /sessions/c.jsonl") {
		t.Fatalf("delete: %v", f.CallLog())
	}
	for range "flaky" {
		d.Press("backspace")
	}
	d.Type("refactor")
	d.Press("enter")
	if !hasCall(f, "SwitchSession /sessions/b.jsonl") || !strings.Contains(strings.Join(d.Printed, "\n"), "Resumed refactor") {
		t.Fatalf("switch: %v\n%s", f.CallLog(), d.Frame())
	}
}

func treeFake() *tuitest.Fake {
	f := tuitest.NewFake()
	f.Nodes = []tui.TreeNode{
		{ID: "1", Kind: "user", Text: "first question", OnPath: true},
		{ID: "2", ParentID: "1", Kind: "assistant", Text: "first answer", OnPath: true},
		{ID: "3", ParentID: "2", Kind: "user", Text: "second question", OnPath: true},
		{ID: "4", ParentID: "3", Kind: "assistant", Text: "second answer", OnPath: true, Leaf: true},
		{ID: "5", ParentID: "2", Kind: "user", Text: "other branch question"},
		{ID: "6", ParentID: "5", Kind: "assistant", Text: "", HasTools: true},
		{ID: "7", ParentID: "6", Kind: "toolResult", Text: "ls output"},
	}
	return f
}

func TestTreeNavigation(t *testing.T) {
	f := treeFake()
	d := start(t, f, opts(), 70, 18)
	d.Type("/tree")
	d.Press("escape", "enter")
	golden(t, "tree", d.Frame())
	d.Press("ctrl+t") // no-tools
	if strings.Contains(d.Frame(), "ls output") {
		t.Fatal("no-tools filter")
	}
	d.Press("ctrl+t")
	d.Press("up") // from the leaf to "second question"
	d.Press("shift+l")
	d.Type("checkpoint")
	d.Press("enter")
	if !hasCall(f, "SetLabel 3 checkpoint") || !strings.Contains(d.Frame(), "[checkpoint]") {
		t.Fatalf("label: %v\n%s", f.CallLog(), d.Frame())
	}
	d.Press("enter") // select "second question": the summary prompt opens
	if !strings.Contains(d.Frame(), "Summarize the branch") {
		t.Fatalf("no summary prompt:\n%s", d.Frame())
	}
	// The question comes above its choices, and the tree still fits.
	golden(t, "tree_summary_prompt", d.Frame())
	d.Press("enter") // no summary
	if !hasCall(f, "NavigateTree 3 summarize=false") {
		t.Fatalf("navigate: %v", f.CallLog())
	}
	if !strings.Contains(d.Frame(), "second question") {
		t.Fatalf("editor text:\n%s", d.Frame())
	}
}

func TestTreeSkipPromptAndDoubleEscape(t *testing.T) {
	f := treeFake()
	o := opts()
	o.BranchSummarySkip = true
	d := start(t, f, o, 70, 18)
	d.Press("escape", "escape")
	if !strings.Contains(d.Frame(), "Session tree") {
		t.Fatalf("double escape did not open the tree:\n%s", d.Frame())
	}
	d.Press("up", "enter")
	if !hasCall(f, "NavigateTree 5 summarize=false") && !hasCall(f, "NavigateTree") {
		t.Fatalf("navigate: %v", f.CallLog())
	}
}

func TestBangCommands(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 60, 14)
	d.Type("!ls")
	d.Press("enter")
	d.Type("!!git status")
	d.Press("enter")
	if !hasCall(f, "Bash ls exclude=false") || !hasCall(f, "Bash git status exclude=true") {
		t.Fatalf("calls %v", f.CallLog())
	}
	if !strings.Contains(strings.Join(d.Printed, "\n"), "output of ls") {
		t.Errorf("bash output not shown: %q", d.Printed)
	}
	// Only the !! command says its output stays out of the context.
	if n := strings.Count(strings.Join(d.Printed, "\n"), "not sent to the model"); n != 1 {
		t.Errorf("exclusion noted %d times: %q", n, d.Printed)
	}
}

func TestSessionCommandsAndExit(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 70, 20)
	d.Type("/name my work")
	d.Press("escape", "enter")
	if !hasCall(f, "SetSessionName my work") || !strings.Contains(d.Frame(), "my work") {
		t.Fatalf("name: %v\n%s", f.CallLog(), d.Frame())
	}
	d.Type("/session")
	d.Press("escape", "enter")
	if !strings.Contains(strings.Join(d.Printed, "\n"), "File: /sessions/a.jsonl") {
		t.Errorf("/session: %q", d.Printed)
	}
	d.Type("/hotkeys")
	d.Press("escape", "enter")
	if !strings.Contains(strings.Join(d.Printed, "\n"), "Open model selector") {
		t.Errorf("/hotkeys missing")
	}
	d.Type("/new")
	d.Press("escape", "enter")
	if !hasCall(f, "NewSession") {
		t.Fatal("/new")
	}
	d.Type("x")
	d.Press("ctrl+c")
	if d.Quit {
		t.Fatal("first ctrl+c with text should clear")
	}
	d.Press("ctrl+c", "ctrl+c")
	if !d.Quit {
		t.Fatal("double ctrl+c did not quit")
	}
}

func TestCommandCompletion(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 60, 16)
	d.Type("/res")
	if !strings.Contains(d.Frame(), "/resume") {
		t.Fatalf("no completion:\n%s", d.Frame())
	}
	d.Press("tab")
	if strings.Contains(d.Frame(), "Resume another session") || !strings.Contains(d.Frame(), "/resume") {
		t.Fatalf("not accepted:\n%s", d.Frame())
	}
}

func TestLargeTranscriptScrolls(t *testing.T) {
	f := tuitest.NewFake()
	for i := 0; i < 10000; i++ {
		if i%2 == 0 {
			f.Messages = append(f.Messages, &llm.UserMessage{Content: llm.StringContent(fmt.Sprintf("question %d", i))})
		} else {
			f.Messages = append(f.Messages, &llm.AssistantMessage{StopReason: llm.StopStop, Content: llm.Blocks{&llm.TextContent{Text: fmt.Sprintf("answer **%d**", i)}}})
		}
	}
	o := opts()
	o.Fullscreen = true
	o.QuietStartup = true
	d := start(t, f, o, 80, 30)
	if !strings.Contains(d.Frame(), "answer 9999") {
		t.Fatalf("bottom:\n%s", d.Frame())
	}
	d.Press("home")
	if !strings.Contains(d.Frame(), "question 0") {
		t.Fatalf("top:\n%s", d.Frame())
	}
	d.Press("pageDown", "end")
	if !strings.Contains(d.Frame(), "answer 9999") {
		t.Fatalf("end:\n%s", d.Frame())
	}
}

func TestFullscreenExitOutput(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen = true
	m := tui.New(context.Background(), f, o)
	unsub := f.Subscribe(m.Deliver)
	defer unsub()
	d := tuitest.NewDriver(m, 60, 12)
	d.Type("hi")
	d.Press("enter")
	if out := m.ExitOutput(); !strings.Contains(out, "echo: hi") {
		t.Fatalf("transcript exit output %q", out)
	}
	o.FullscreenExitOutput = "resume-hint"
	m2 := tui.New(context.Background(), f, o)
	if out := m2.ExitOutput(); out != "Resume this session with: relay --session a\n" {
		t.Fatalf("hint %q", out)
	}
}

func TestPastedImageGoesWithPrompt(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 60, 12)
	d.Send(tui.ClipboardImageMsg("aGk=", "image/png"))
	if !strings.Contains(d.Frame(), "[image #1]") {
		t.Fatalf("marker:\n%s", d.Frame())
	}
	d.Type("what is this")
	d.Press("enter")
	if !hasCall(f, "Prompt [image #1] what is this") || f.LastImages() != 1 {
		t.Fatalf("calls %v images %d", f.CallLog(), f.LastImages())
	}
}

func TestMouseSelectionCopies(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen, o.CopyOnSelect, o.QuietStartup = true, true, true
	d := start(t, f, o, 60, 14)
	d.Type("hello")
	d.Press("enter")
	frame := strings.Split(d.Frame(), "\n")
	y := slices.IndexFunc(frame, func(l string) bool { return strings.Contains(l, "echo: hello") })
	if y < 0 {
		t.Fatalf("answer not on screen:\n%s", d.Frame())
	}
	x := strings.Index(frame[y], "echo")
	d.Send(tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft})
	d.Send(tea.MouseMotionMsg{X: x + 10, Y: y, Button: tea.MouseLeft})
	d.Send(tea.MouseReleaseMsg{X: x + 10, Y: y, Button: tea.MouseLeft})
	if !strings.Contains(d.Frame(), "Copied 11 characters") {
		t.Fatalf("no copy:\n%s", d.Frame())
	}
}

func TestFullscreenSearch(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen, o.QuietStartup = true, true
	d := start(t, f, o, 60, 14)
	for _, q := range []string{"alpha", "beta", "gamma"} {
		d.Type(q)
		d.Press("enter")
	}
	d.Press("ctrl+shift+f")
	d.Type("beta")
	if !strings.Contains(d.Frame(), "Search: beta") || !strings.Contains(d.Frame(), "2/2") {
		t.Fatalf("search status:\n%s", d.Frame())
	}
	d.Press("enter")
	if !strings.Contains(d.Frame(), "1/2") {
		t.Fatalf("next match:\n%s", d.Frame())
	}
	d.Press("escape")
	if strings.Contains(d.Frame(), "Search:") {
		t.Fatal("search not closed")
	}
}

func TestReloadAppliesKeybindings(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Reload = func() (tui.ReloadResult, error) {
		km, w, err := keymap.Apply(keymap.Unix, []byte(`{"app.model.select":"f3"}`))
		return tui.ReloadResult{Keymap: km, Warnings: w}, err
	}
	d := start(t, f, o, 60, 14)
	d.Type("/reload")
	d.Press("enter")
	d.Press("f3")
	if !strings.Contains(d.Frame(), "Select model") {
		t.Fatalf("reloaded key does not work:\n%s", d.Frame())
	}
}

func TestStatusAndFooterHooks(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.StatusLine = func() string { return "laya: bugfix · strong (rules)" }
	o.FooterModel = func() string { return "claude-opus-5-5 • high" }
	d := start(t, f, o, 90, 12)
	frame := d.Frame()
	if !strings.Contains(frame, "laya: bugfix · strong (rules)") || !strings.Contains(frame, "→ claude-opus-5-5 • high") {
		t.Fatalf("hooks not drawn:\n%s", frame)
	}
}

func TestTemplateCommandsArePrompts(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Commands = []tui.Command{{Name: "review", Description: "Review the diff"}}
	d := start(t, f, o, 60, 14)
	d.Type("/rev")
	if !strings.Contains(d.Frame(), "Review the diff") {
		t.Fatalf("template not completed:\n%s", d.Frame())
	}
	d.Press("escape")
	d.Type("iew main.go")
	d.Press("enter")
	if !hasCall(f, "Prompt /review main.go") {
		t.Fatalf("calls %v", f.CallLog())
	}
}

func TestStartupNotesAndQuiet(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen = true
	o.StartupNotes = []string{"Skills (1): review"}
	d := start(t, f, o, 70, 12)
	if !strings.Contains(d.Frame(), "Skills (1): review") || !strings.Contains(d.Frame(), "relay test") {
		t.Fatalf("notes:\n%s", d.Frame())
	}
	o.HeaderOnly = true
	d = start(t, f, o, 70, 12)
	if strings.Contains(d.Frame(), "Skills (1)") || !strings.Contains(d.Frame(), "relay test") {
		t.Fatalf("header only:\n%s", d.Frame())
	}
	o.QuietStartup = true
	d = start(t, f, o, 70, 12)
	if strings.Contains(d.Frame(), "relay test") {
		t.Fatalf("quiet:\n%s", d.Frame())
	}
}

func TestSystemThemeFromTerminalColors(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.ThemeSetting = "system"
	m := tui.New(context.Background(), f, o)
	d := tuitest.NewDriver(m, 60, 10)
	d.Send(tea.BackgroundColorMsg{Color: color.RGBA{250, 250, 250, 255}})
	d.Send(uv.UnknownOscEvent("\x1b]4;1;rgb:00ff/0000/0000\x07"))
	time.Sleep(50 * time.Millisecond)
	d.Settle()
	th := tui.ThemeOf(m)
	if th.Name != "system" || th.Appearance != "light" {
		t.Fatalf("theme %s %s", th.Name, th.Appearance)
	}
	e := th.Color("error")
	if e.R < 100 || e.G > 80 || e.B > 80 {
		t.Fatalf("error colour %s does not come from the reported red", e.Hex())
	}
}

func TestForkCloneCompact(t *testing.T) {
	f := treeFake()
	d := start(t, f, opts(), 70, 16)
	d.Type("/fork")
	d.Press("enter")
	if !strings.Contains(d.Frame(), "Fork from message") || !strings.Contains(d.Frame(), "second question") {
		t.Fatalf("fork selector:\n%s", d.Frame())
	}
	d.Press("up", "enter") // the first question
	if !hasCall(f, "Fork 1") || !strings.Contains(d.Frame(), "first question") {
		t.Fatalf("fork: %v\n%s", f.CallLog(), d.Frame())
	}
	d.Press("ctrl+c")
	d.Type("/clone")
	d.Press("enter")
	d.Type("/compact keep the API decisions")
	d.Press("enter")
	if !hasCall(f, "Clone") || !hasCall(f, "Compact keep the API decisions") {
		t.Fatalf("calls %v", f.CallLog())
	}
	if !strings.Contains(strings.Join(d.Printed, "\n"), "Compacted context: 1000 tokens summarized") {
		t.Errorf("compaction notice missing: %q", d.Printed)
	}
}

// A resumed session shows the header above its history, as a fresh start
// does, not in the middle of the transcript after the old messages.
func TestResumedHistoryFollowsHeader(t *testing.T) {
	f := tuitest.NewFake()
	f.Messages = []llm.Message{&llm.UserMessage{Content: llm.StringContent("earlier question")}}
	o := opts()
	o.Fullscreen = true
	d := start(t, f, o, 70, 16)
	fr := d.Frame()
	h, q := strings.Index(fr, "relay test"), strings.Index(fr, "earlier question")
	if h < 0 || q < 0 || h > q {
		t.Fatalf("header should precede history:\n%s", fr)
	}
}

// Typing in a selector selects the first match: "claude" + enter picks the
// first claude model even when the cursor was further down before.
func TestSelectorFilterSelectsFirstMatch(t *testing.T) {
	f := tuitest.NewFake()
	f.Models = append(f.Models, &llm.Model{ID: "claude-haiku-9", Name: "Claude Haiku", Provider: "anthropic", ContextWindow: 200000})
	d := start(t, f, opts(), 60, 16)
	d.Press("ctrl+l", "down", "down")
	d.Type("claude")
	d.Press("enter")
	if !hasCall(f, "SetModel anthropic/claude-sonnet-5-5") {
		t.Fatalf("calls %v", f.CallLog())
	}
}

// Setting a label (or changing the model) appends an entry that becomes the
// session's leaf; /tree must still open on, and mark, the last message.
func TestTreeLeafBehindBookkeepingEntries(t *testing.T) {
	f := treeFake()
	f.Nodes[3].Leaf = false
	f.Nodes = append(f.Nodes,
		tui.TreeNode{ID: "8", ParentID: "4", Kind: "label", OnPath: true},
		tui.TreeNode{ID: "9", ParentID: "8", Kind: "model_change", OnPath: true, Leaf: true})
	d := start(t, f, opts(), 70, 18)
	d.Type("/tree")
	d.Press("escape", "enter")
	if fr := d.Frame(); !strings.Contains(fr, "›   • second answer ← current") {
		t.Fatalf("leaf not marked:\n%s", d.Frame())
	}
}

// A failed /compact shows its error once (from the CompactionEnd event),
// not a second time from the command's own result.
func TestCompactFailureReportedOnce(t *testing.T) {
	f := tuitest.NewFake()
	f.CompactErr = fmt.Errorf("nothing to compact")
	o := opts()
	o.Fullscreen = true
	d := start(t, f, o, 80, 20)
	d.Type("/compact")
	d.Press("escape", "enter")
	if n := strings.Count(d.Frame(), "nothing to compact"); n != 1 {
		t.Fatalf("error shown %d times:\n%s", n, d.Frame())
	}
}

// With no model (no API key yet) the start screen says how to get one, and
// a prompt stays in the editor with the same help instead of being lost.
func TestNoModelOnboarding(t *testing.T) {
	f := tuitest.NewFake()
	f.SetNoModel()
	o := opts()
	o.Fullscreen = true
	d := start(t, f, o, 100, 20)
	if fr := d.Frame(); !strings.Contains(fr, "/login") || !strings.Contains(fr, "ANTHROPIC_API_KEY") || !strings.Contains(fr, "no model") {
		t.Fatalf("no onboarding help:\n%s", fr)
	}
	d.Type("hello there")
	d.Press("enter")
	if hasCall(f, "Prompt") {
		t.Fatalf("prompted without a model: %v", f.CallLog())
	}
	fr := d.Frame()
	if strings.Count(fr, "/login") != 2 || !strings.Contains(fr, "hello there") {
		t.Fatalf("prompt lost or no help:\n%s", fr)
	}
}

// Regular mode's last frame ends with an empty row, so the shell prompt
// after exit does not overwrite the footer.
func TestRegularExitLeavesFooter(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 60, 12)
	d.Press("ctrl+d")
	if !d.Quit {
		t.Fatal("ctrl+d on an empty editor did not quit")
	}
	fr := d.Frame()
	if !strings.HasSuffix(fr, "200k\n") {
		t.Fatalf("final frame should end with the footer and an empty row:\n%q", fr)
	}
}

// /new (and every command that reloads the transcript) keeps the header.
func TestNewSessionKeepsHeader(t *testing.T) {
	f := tuitest.NewFake()
	o := opts()
	o.Fullscreen = true
	d := start(t, f, o, 100, 16)
	d.Type("hi")
	d.Press("enter")
	d.Type("/new")
	d.Press("escape", "enter")
	fr := d.Frame()
	if !strings.Contains(fr, "relay test") || strings.Contains(fr, "echo: hi") {
		t.Fatalf("after /new:\n%s", fr)
	}
}

// Fullscreen shows a running ! command's output as it comes, not only once
// it has finished.
func TestFullscreenBangShowsLiveOutput(t *testing.T) {
	f := tuitest.NewFake()
	f.BashBlock = make(chan struct{})
	o := opts()
	o.Fullscreen = true
	d := start(t, f, o, 70, 16)
	d.Type("!make test")
	d.Press("enter")
	if fr := d.Frame(); !strings.Contains(fr, "$ make test") || !strings.Contains(fr, "output of make test") {
		t.Fatalf("running command not shown:\n%s", fr)
	}
	close(f.BashBlock)
	time.Sleep(10 * time.Millisecond)
	d.Settle()
	if fr := d.Frame(); strings.Count(fr, "output of make test") != 1 {
		t.Fatalf("after the command:\n%s", fr)
	}
}

// ctrl+o / ctrl+t say what they did; in regular mode, that they only reach
// new output (printed blocks cannot be redrawn).
func TestDisplayTogglesGiveFeedback(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 120, 12)
	d.Press("ctrl+o")
	if fr := d.Frame(); !strings.Contains(fr, "Tool output expanded for new output") {
		t.Fatalf("regular ctrl+o:\n%s", fr)
	}
	o := opts()
	o.Fullscreen = true
	d = start(t, f, o, 120, 12)
	d.Press("ctrl+t")
	if fr := d.Frame(); !strings.Contains(fr, "Thinking blocks hidden") || strings.Contains(fr, "for new output") {
		t.Fatalf("fullscreen ctrl+t:\n%s", fr)
	}
}

// A message longer than the editor's window says so on its rules.
func TestEditorRulesShowHiddenRows(t *testing.T) {
	f := tuitest.NewFake()
	d := start(t, f, opts(), 60, 15) // the editor shows 5 rows
	for i := range 8 {
		d.Type(fmt.Sprintf("row %d", i))
		d.Press("shift+enter")
	}
	fr := d.Frame()
	if !strings.Contains(fr, "─── ↑ 4 more ─") || strings.Contains(fr, "↓") {
		t.Fatalf("top rule:\n%s", fr)
	}
	d.Press("up", "up", "up", "up", "up", "up", "up", "up")
	fr = d.Frame()
	if !strings.Contains(fr, "─── ↓ 4 more ─") || strings.Contains(fr, "↑") {
		t.Fatalf("bottom rule:\n%s", fr)
	}
}
