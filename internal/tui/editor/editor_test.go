package editor

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/relay-agent/relay/internal/tui/keymap"
)

func newEd() *Editor { return New(keymap.New(keymap.Unix)) }

// key builds the press of a key in spec syntax.
func key(s string) tea.KeyPressMsg {
	k := keymap.MustParse(s)
	var m tea.KeyMod
	if k.Mod&keymap.Ctrl != 0 {
		m |= tea.ModCtrl
	}
	if k.Mod&keymap.Alt != 0 {
		m |= tea.ModAlt
	}
	if k.Mod&keymap.Shift != 0 {
		m |= tea.ModShift
	}
	return tea.KeyPressMsg{Code: k.Code, Mod: m}
}

func typeText(e *Editor, s string) {
	for _, r := range s {
		e.HandleKey(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func press(e *Editor, keys ...string) {
	for _, k := range keys {
		e.HandleKey(key(k))
	}
}

// withCursor shows the text with | at the cursor.
func withCursor(e *Editor) string {
	var b strings.Builder
	for i, l := range e.buf.lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i == e.buf.cur.row {
			b.WriteString(string(l[:e.buf.cur.col]) + "|" + string(l[e.buf.cur.col:]))
		} else {
			b.WriteString(string(l))
		}
	}
	return b.String()
}

func TestEditing(t *testing.T) {
	tests := []struct {
		name string
		text string
		keys []string
		want string
	}{
		{"left right", "abc", []string{"left", "left", "ctrl+f"}, "ab|c"},
		{"line start end", "hello", []string{"ctrl+a", "right", "ctrl+e"}, "hello|"},
		{"word left", "foo bar.baz qux", []string{"alt+left"}, "foo bar.baz |qux"},
		{"word left punct", "foo bar.baz", []string{"alt+b", "ctrl+left"}, "foo bar|.baz"},
		{"word right", "foo bar baz", []string{"home", "alt+right", "alt+f"}, "foo bar| baz"},
		{"backspace", "abc", []string{"backspace"}, "ab|"},
		{"delete fwd", "abc", []string{"home", "delete", "ctrl+d"}, "|c"},
		{"del word back", "foo bar baz", []string{"ctrl+w"}, "foo bar |"},
		{"alt backspace", "foo bar", []string{"alt+backspace", "alt+backspace"}, "|"},
		{"del word fwd", "foo bar baz", []string{"home", "alt+d"}, "| bar baz"},
		{"kill to start", "foo bar", []string{"left", "ctrl+u"}, "|r"},
		{"kill to end", "foo bar", []string{"home", "right", "ctrl+k"}, "f|"},
		{"newline shift+enter", "ab", []string{"left", "shift+enter"}, "a\n|b"},
		{"newline ctrl+j", "ab", []string{"ctrl+j"}, "ab\n|"},
		{"up down", "ab", []string{"shift+enter"}, "ab\n|"},
		{"jump forward", "a,b,c", []string{"home", "ctrl+]"}, ""},
		{"kill joins lines", "ab", []string{"shift+enter", "up", "ctrl+e", "ctrl+k"}, "ab|"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEd()
			typeText(e, tt.text)
			press(e, tt.keys...)
			if tt.want == "" {
				return
			}
			if got := withCursor(e); got != tt.want {
				t.Errorf("got %q want %q", got, tt.want)
			}
		})
	}
}

func TestJump(t *testing.T) {
	e := newEd()
	typeText(e, "a,b,c")
	press(e, "home", "ctrl+]")
	typeText(e, ",")
	if got := withCursor(e); got != "a|,b,c" {
		t.Fatalf("forward: %q", got)
	}
	press(e, "ctrl+]")
	typeText(e, ",")
	press(e, "end", "ctrl+alt+]")
	typeText(e, "a")
	if got := withCursor(e); got != "|a,b,c" {
		t.Fatalf("backward: %q", got)
	}
	if e.Value() != "a,b,c" {
		t.Fatal("jump target was inserted")
	}
}

func TestKillRingYankPop(t *testing.T) {
	e := newEd()
	typeText(e, "one two three")
	press(e, "ctrl+w")        // "three"
	press(e, "left", "right") // break the kill sequence
	press(e, "ctrl+w")        // "two "
	press(e, "ctrl+y")
	if got := withCursor(e); got != "one two |" {
		t.Fatalf("yank: %q", got)
	}
	press(e, "alt+y")
	if got := withCursor(e); got != "one three|" {
		t.Fatalf("yank-pop: %q", got)
	}
	// Consecutive kills join into one entry.
	e = newEd()
	typeText(e, "a b c")
	press(e, "ctrl+w", "ctrl+w")
	press(e, "ctrl+y")
	if got := e.Value(); got != "a b c" {
		t.Fatalf("joined kill: %q", got)
	}
}

func TestUndo(t *testing.T) {
	e := newEd()
	typeText(e, "hello world")
	press(e, "ctrl+w")
	press(e, "ctrl+-")
	if e.Value() != "hello world" {
		t.Fatalf("undo kill: %q", e.Value())
	}
	press(e, "ctrl+-")
	if e.Value() != "hello" {
		t.Fatalf("undo word group: %q", e.Value())
	}
	press(e, "ctrl+-", "ctrl+-")
	if e.Value() != "" {
		t.Fatalf("undo all: %q", e.Value())
	}
}

func TestSubmitAndHistory(t *testing.T) {
	e := newEd()
	typeText(e, "first")
	if out, _ := e.HandleKey(key("enter")); out != Submitted || e.TakeSubmission() != "first" {
		t.Fatal("submit")
	}
	typeText(e, "second")
	e.HandleKey(key("enter"))
	e.TakeSubmission()
	typeText(e, "draft")
	press(e, "up")
	if e.Value() != "second" {
		t.Fatalf("history up: %q", e.Value())
	}
	press(e, "up")
	if e.Value() != "first" {
		t.Fatalf("history up 2: %q", e.Value())
	}
	press(e, "down", "down")
	if e.Value() != "draft" {
		t.Fatalf("back to draft: %q", e.Value())
	}
	// A trailing backslash continues the line.
	e.Reset()
	typeText(e, `a\`)
	if out, _ := e.HandleKey(key("enter")); out != Handled || e.Value() != "a\n" {
		t.Fatalf("backslash: %q", e.Value())
	}
}

func TestDedicatedHistoryKeys(t *testing.T) {
	km, _, err := keymap.Apply(keymap.Unix, []byte(`{"tui.editor.historyPrevious":"alt+p"}`))
	if err != nil {
		t.Fatal(err)
	}
	e := New(km)
	e.AddHistory("old")
	typeText(e, "x")
	press(e, "shift+enter")
	press(e, "alt+p") // cursor is on line 2 of 2, still browses
	if e.Value() != "old" {
		t.Fatalf("got %q", e.Value())
	}
}

func TestPasteCollapse(t *testing.T) {
	e := newEd()
	typeText(e, "see ")
	big := strings.Repeat("line\n", 20) + "end"
	e.Paste(big)
	if e.Value() != "see [Paste #1 +21 lines]" {
		t.Fatalf("marker: %q", e.Value())
	}
	e.Paste("small")
	e.Paste(strings.Repeat("x", 1500))
	if !strings.HasSuffix(e.Value(), "[Paste #2 1500 chars]") {
		t.Fatalf("chars marker: %q", e.Value())
	}
	e.HandleKey(key("enter"))
	got := e.TakeSubmission()
	if got != "see "+big+"small"+strings.Repeat("x", 1500) {
		t.Fatalf("expanded: %.80q", got)
	}
	if e.History()[0] != "see [Paste #1 +21 lines]small[Paste #2 1500 chars]" {
		t.Fatalf("history keeps markers: %q", e.History()[0])
	}
}

func TestBang(t *testing.T) {
	tests := []struct {
		in      string
		cmd     string
		exclude bool
		ok      bool
	}{
		{"!ls -la", "ls -la", false, true},
		{"!!git status", "git status", true, true},
		{"! ", "", false, false},
		{"hello", "", false, false},
	}
	for _, tt := range tests {
		cmd, ex, ok := Bang(tt.in)
		if cmd != tt.cmd || ex != tt.exclude || ok != tt.ok {
			t.Errorf("Bang(%q) = %q %v %v", tt.in, cmd, ex, ok)
		}
	}
}

type fakeCompleter struct{ last CompletionRequest }

func (f *fakeCompleter) Complete(req CompletionRequest) []Completion {
	f.last = req
	if req.Kind == CompleteCommand {
		return []Completion{{Value: "model", Description: "Select model"}, {Value: "mode"}}
	}
	return []Completion{{Value: "internal/", Continue: true}, {Value: "README.md"}}
}

func run(e *Editor, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if m, ok := cmd().(CompletionsMsg); ok {
		e.HandleCompletions(m)
	}
}

func TestCompletion(t *testing.T) {
	e := newEd()
	f := &fakeCompleter{}
	e.SetCompleter(f)
	for _, r := range "/mo" {
		_, cmd := e.HandleKey(tea.KeyPressMsg{Code: r, Text: string(r)})
		run(e, cmd)
	}
	if f.last.Kind != CompleteCommand || f.last.Prefix != "mo" {
		t.Fatalf("request %+v", f.last)
	}
	view := e.CompletionView(40)
	if !strings.Contains(view, "/model") || !strings.Contains(view, "Select model") {
		t.Fatalf("popup %q", view)
	}
	press(e, "down", "tab")
	if e.Value() != "/mode " {
		t.Fatalf("accepted %q", e.Value())
	}
	e.Reset()
	for _, r := range "read @in" {
		_, cmd := e.HandleKey(tea.KeyPressMsg{Code: r, Text: string(r)})
		run(e, cmd)
	}
	if f.last.Kind != CompleteFile || f.last.Prefix != "in" {
		t.Fatalf("file request %+v", f.last)
	}
	_, cmd := e.HandleKey(key("tab"))
	run(e, cmd)
	if e.Value() != "read @internal/" || !e.complete.open() {
		t.Fatalf("dir accept %q", e.Value())
	}
	press(e, "escape")
	if e.complete.open() {
		t.Fatal("escape did not close")
	}
}

func TestSoftWrapView(t *testing.T) {
	e := newEd()
	typeText(e, "the quick brown fox jumps")
	e.Styles.Cursor = func(s string) string { return "[" + s + "]" }
	got := e.View(10, 5, false)
	want := "the quick \nbrown fox \njumps[ ]"
	if got != want {
		t.Fatalf("view\n%q\nwant\n%q", got, want)
	}
	press(e, "up")
	e.View(10, 5, false)
	if x, y := e.Cursor(); x != 5 || y != 1 {
		t.Fatalf("cursor %d,%d", x, y)
	}
	// Wide runes count two cells.
	e = newEd()
	typeText(e, "日本語日本語")
	if got := e.View(7, 5, true); got != "日本語\n日本語" {
		t.Fatalf("wide %q", got)
	}
	// Scroll keeps the cursor visible.
	e = newEd()
	for i := 0; i < 10; i++ {
		typeText(e, "x")
		press(e, "shift+enter")
	}
	typeText(e, "last")
	if got := e.View(20, 3, true); got != "x\nx\nlast" {
		t.Fatalf("scroll %q", got)
	}
}

func TestPlaceholder(t *testing.T) {
	e := newEd()
	e.Placeholder = "Type a message"
	if got := e.View(20, 1, true); got != "Type a message" {
		t.Fatalf("%q", got)
	}
}

func BenchmarkTypeInLargeBuffer(b *testing.B) {
	e := newEd()
	e.SetValue(strings.Repeat("some existing line of text here\n", 5000))
	e.View(80, 10, false)
	k := tea.KeyPressMsg{Code: 'a', Text: "a"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%80 == 0 { // keep the typed line at a realistic length
			e.buf.lines[e.buf.cur.row] = nil
			e.buf.cur.col = 0
			e.view.invalidate(e.buf.cur.row)
		}
		e.HandleKey(k)
		e.View(80, 10, false)
	}
}

type prefixCompleter []string

func (p prefixCompleter) Complete(req CompletionRequest) []Completion {
	var out []Completion
	for _, v := range p {
		if strings.HasPrefix(v, req.Prefix) {
			out = append(out, Completion{Value: v})
		}
	}
	return out
}

// Enter acts on the text as typed when the list still answers an earlier
// prefix: "/re" listed resume first, "load" was typed before the new
// answer arrived, and Enter must not run /resume.
func TestEnterIgnoresStaleCompletion(t *testing.T) {
	e := newEd()
	e.SetCompleter(prefixCompleter{"resume", "reload"})
	for _, r := range "/re" {
		_, cmd := e.HandleKey(tea.KeyPressMsg{Code: r, Text: string(r)})
		run(e, cmd)
	}
	if !e.CompletionOpen() {
		t.Fatal("no list for /re")
	}
	var pending []tea.Cmd
	for _, r := range "load" {
		_, cmd := e.HandleKey(tea.KeyPressMsg{Code: r, Text: string(r)})
		pending = append(pending, cmd)
	}
	out, _ := e.HandleKey(key("enter"))
	if out != Submitted {
		t.Fatalf("outcome %v, value %q", out, e.Value())
	}
	if got := e.TakeSubmission(); got != "/reload" {
		t.Errorf("submitted %q, want /reload", got)
	}
	// The late answers change nothing.
	for _, c := range pending {
		run(e, c)
	}
	if e.CompletionOpen() || e.Value() != "" {
		t.Errorf("after late answers: open=%v value %q", e.CompletionOpen(), e.Value())
	}

	// A fresh list still completes with enter.
	for _, r := range "/rel" {
		_, cmd := e.HandleKey(tea.KeyPressMsg{Code: r, Text: string(r)})
		run(e, cmd)
	}
	if out, _ := e.HandleKey(key("enter")); out != Submitted || e.TakeSubmission() != "/reload " {
		t.Errorf("fresh completion not accepted")
	}
}
