package editor

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/relay-agent/relay/internal/tui/keymap"
)

// Outcome tells the caller what a key did.
type Outcome int

const (
	// Ignored: the key is not an editor action; the caller may use it.
	Ignored Outcome = iota
	// Handled: the editor consumed the key.
	Handled
	// Submitted: the user submitted; read the text with TakeSubmission.
	Submitted
)

// Large pastes are collapsed to a marker; the text comes back on submit.
const (
	pasteMaxLines = 10
	pasteMaxChars = 1000
)

var pasteMarker = regexp.MustCompile(`\[Paste #(\d+) (?:\+\d+ lines|\d+ chars)\]`)

const maxUndo = 200

type editKind int

const (
	editOther editKind = iota
	editType
	editKill
	editYank
)

// Editor is the prompt editor. It is not a tea.Model: the app routes keys
// to HandleKey after its own higher-precedence actions.
type Editor struct {
	km  *keymap.Keymap
	buf buffer

	undo     []snapshot
	lastEdit editKind

	killRing []string
	yankFrom pos // start of the last yank, for yank-pop
	yankIdx  int

	jump    int // 0 none, 1 forward, -1 backward: waiting for the target character
	history []string
	histIdx int // len(history) when not browsing
	draft   string

	pastes    map[int]string
	pasteSeq  int
	submitted string

	complete completion
	view     viewState
	edited   bool // the current key changed the text (kill/yank sequences)

	// Placeholder is shown when the editor is empty.
	Placeholder string
	Styles      Styles
}

// New returns an empty editor using km for its actions.
func New(km *keymap.Keymap) *Editor {
	e := &Editor{km: km, buf: newBuffer(), pastes: map[int]string{}, Styles: PlainStyles()}
	e.buf.onChange = e.view.invalidate
	e.complete.maxVisible = 5
	return e
}

// SetKeymap swaps the keymap after /reload.
func (e *Editor) SetKeymap(km *keymap.Keymap) { e.km = km }

// Value is the text as shown, with paste markers.
func (e *Editor) Value() string { return e.buf.text() }

// SetValue replaces the text and puts the cursor at the end.
func (e *Editor) SetValue(s string) {
	e.pushUndo(editOther)
	e.buf.setText(s)
	e.complete.close()
}

// Empty reports whether there is no text.
func (e *Editor) Empty() bool { return e.buf.empty() }

// Reset clears the text, undo history and pastes (after a submit).
func (e *Editor) Reset() {
	e.buf.setText("")
	e.undo = nil
	e.pastes = map[int]string{}
	e.lastEdit = editOther
	e.jump = 0
	e.histIdx = len(e.history)
	e.complete.close()
}

// Expand replaces paste markers in s with the pasted text.
func (e *Editor) Expand(s string) string {
	return pasteMarker.ReplaceAllStringFunc(s, func(m string) string {
		n, _ := strconv.Atoi(pasteMarker.FindStringSubmatch(m)[1])
		if t, ok := e.pastes[n]; ok {
			return t
		}
		return m
	})
}

// TakeSubmission returns the submitted text with pastes expanded and
// resets the editor; the shown text goes to history.
func (e *Editor) TakeSubmission() string {
	s := e.submitted
	e.submitted = ""
	return s
}

// AddHistory appends a prompt to history (consecutive duplicates dropped).
func (e *Editor) AddHistory(s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	if n := len(e.history); n == 0 || e.history[n-1] != s {
		e.history = append(e.history, s)
	}
	e.histIdx = len(e.history)
}

// History returns the prompt history, oldest first.
func (e *Editor) History() []string { return e.history }

// Paste inserts pasted text; large pastes become a marker.
func (e *Editor) Paste(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	s = strings.ReplaceAll(s, "\t", "    ")
	e.pushUndo(editOther)
	lines := strings.Count(s, "\n") + 1
	if lines > pasteMaxLines || len([]rune(s)) > pasteMaxChars {
		e.pasteSeq++
		e.pastes[e.pasteSeq] = s
		if lines > pasteMaxLines {
			s = fmt.Sprintf("[Paste #%d +%d lines]", e.pasteSeq, lines)
		} else {
			s = fmt.Sprintf("[Paste #%d %d chars]", e.pasteSeq, len([]rune(s)))
		}
	}
	e.buf.insert(s)
}

// InsertText inserts text at the cursor as one undoable edit.
func (e *Editor) InsertText(s string) {
	e.pushUndo(editOther)
	e.buf.insert(s)
}

func (e *Editor) pushUndo(kind editKind) {
	e.edited = true
	// Consecutive typing (not across a space) is one undo step.
	if kind == editType && e.lastEdit == editType {
		return
	}
	e.undo = append(e.undo, e.buf.snapshot())
	if len(e.undo) > maxUndo {
		e.undo = e.undo[len(e.undo)-maxUndo:]
	}
	e.lastEdit = kind
}

func (e *Editor) is(action keymap.ID, k tea.KeyPressMsg) bool { return e.km.Matches(action, k) }

// HandleKey runs the editor action bound to k, or inserts typed text.
func (e *Editor) HandleKey(k tea.KeyPressMsg) (Outcome, tea.Cmd) {
	if e.jump != 0 {
		dir := e.jump
		e.jump = 0
		if k.Text != "" {
			r := []rune(k.Text)[0]
			if p, ok := e.buf.find(e.buf.cur, r, dir > 0); ok {
				e.buf.cur = p
			}
			return Handled, nil
		}
		// Any non-text key cancels the jump and acts normally.
	}
	if e.complete.open() {
		if out, cmd, ok := e.completionKey(k); ok {
			return out, cmd
		}
	}
	prevEdit := e.lastEdit
	e.edited = false
	switch {
	case e.is(keymap.EditorHistoryPrevious, k):
		e.historyMove(-1)
	case e.is(keymap.EditorHistoryNext, k):
		e.historyMove(1)
	case e.is(keymap.InputNewLine, k):
		e.pushUndo(editOther)
		e.buf.insert("\n")
	case e.is(keymap.InputSubmit, k):
		return e.submit()
	case e.is(keymap.InputTab, k):
		return Handled, e.requestCompletion(true)
	case e.is(keymap.EditorCursorUp, k):
		if !e.moveVisual(-1) {
			e.historyMove(-1)
		}
	case e.is(keymap.EditorCursorDown, k):
		if !e.moveVisual(1) {
			e.historyMove(1)
		}
	case e.is(keymap.EditorCursorLeft, k):
		e.buf.cur = e.buf.prevPos(e.buf.cur)
	case e.is(keymap.EditorCursorRight, k):
		e.buf.cur = e.buf.nextPos(e.buf.cur)
	case e.is(keymap.EditorCursorWordLeft, k):
		e.buf.cur = e.buf.wordLeft(e.buf.cur)
	case e.is(keymap.EditorCursorWordRight, k):
		e.buf.cur = e.buf.wordRight(e.buf.cur)
	case e.is(keymap.EditorCursorLineStart, k):
		e.buf.cur.col = 0
	case e.is(keymap.EditorCursorLineEnd, k):
		e.buf.cur.col = len(e.buf.line())
	case e.is(keymap.EditorJumpForward, k):
		e.jump = 1
	case e.is(keymap.EditorJumpBackward, k):
		e.jump = -1
	case e.is(keymap.EditorPageUp, k):
		for i := 0; i < max(1, e.view.height-1); i++ {
			e.moveVisual(-1)
		}
	case e.is(keymap.EditorPageDown, k):
		for i := 0; i < max(1, e.view.height-1); i++ {
			e.moveVisual(1)
		}
	case e.is(keymap.EditorDeleteCharBackward, k):
		if p := e.buf.prevPos(e.buf.cur); p != e.buf.cur {
			e.pushUndo(editOther)
			e.buf.deleteRange(p, e.buf.cur)
		}
	case e.is(keymap.EditorDeleteCharForward, k):
		if p := e.buf.nextPos(e.buf.cur); p != e.buf.cur {
			e.pushUndo(editOther)
			e.buf.deleteRange(e.buf.cur, p)
		}
	case e.is(keymap.EditorDeleteWordBackward, k):
		e.kill(e.buf.wordLeft(e.buf.cur), e.buf.cur, true, prevEdit)
	case e.is(keymap.EditorDeleteWordForward, k):
		e.kill(e.buf.cur, e.buf.wordRight(e.buf.cur), false, prevEdit)
	case e.is(keymap.EditorDeleteToLineStart, k):
		from := pos{e.buf.cur.row, 0}
		if e.buf.cur.col == 0 {
			from = e.buf.prevPos(e.buf.cur)
		}
		e.kill(from, e.buf.cur, true, prevEdit)
	case e.is(keymap.EditorDeleteToLineEnd, k):
		to := pos{e.buf.cur.row, len(e.buf.line())}
		if e.buf.cur.col == len(e.buf.line()) {
			to = e.buf.nextPos(e.buf.cur)
		}
		e.kill(e.buf.cur, to, false, prevEdit)
	case e.is(keymap.EditorYank, k):
		e.yank()
	case e.is(keymap.EditorYankPop, k):
		e.yankPop(prevEdit)
	case e.is(keymap.EditorUndo, k):
		if n := len(e.undo); n > 0 {
			e.buf.restore(e.undo[n-1])
			e.undo = e.undo[:n-1]
		}
		e.lastEdit = editOther
		e.complete.close()
		return Handled, nil
	default:
		if k.Text == "" || k.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModSuper) != 0 {
			return Ignored, nil
		}
		if k.Text == " " || strings.ContainsAny(k.Text, " \t") {
			e.lastEdit = editOther // a space ends the typing undo group
		}
		e.pushUndo(editType)
		e.buf.insert(k.Text)
		return Handled, e.requestCompletion(false)
	}
	if !e.edited {
		e.lastEdit = editOther // motion ends typing groups and kill sequences
	}
	if e.complete.open() {
		return Handled, e.requestCompletion(false)
	}
	return Handled, nil
}

func (e *Editor) submit() (Outcome, tea.Cmd) {
	// A trailing backslash continues the line, as in a shell.
	line := e.buf.line()
	if e.buf.cur.col == len(line) && len(line) > 0 && line[len(line)-1] == '\\' {
		e.pushUndo(editOther)
		e.buf.deleteRange(pos{e.buf.cur.row, len(line) - 1}, e.buf.cur)
		e.buf.insert("\n")
		return Handled, nil
	}
	shown := e.buf.text()
	e.submitted = e.Expand(shown)
	e.AddHistory(shown)
	e.Reset()
	return Submitted, nil
}

func (e *Editor) kill(from, to pos, backward bool, prev editKind) {
	if !from.before(to) {
		return
	}
	e.pushUndo(editKill)
	s := e.buf.deleteRange(from, to)
	if prev == editKill && len(e.killRing) > 0 {
		n := len(e.killRing) - 1
		if backward {
			e.killRing[n] = s + e.killRing[n]
		} else {
			e.killRing[n] += s
		}
	} else {
		e.killRing = append(e.killRing, s)
		if len(e.killRing) > 60 {
			e.killRing = e.killRing[1:]
		}
	}
	e.lastEdit = editKill
}

func (e *Editor) yank() {
	if len(e.killRing) == 0 {
		return
	}
	e.pushUndo(editYank)
	e.yankIdx = len(e.killRing) - 1
	e.yankFrom = e.buf.cur
	e.buf.insert(e.killRing[e.yankIdx])
	e.lastEdit = editYank
}

func (e *Editor) yankPop(prev editKind) {
	if prev != editYank || len(e.killRing) < 2 {
		return
	}
	e.edited = true
	e.buf.deleteRange(e.yankFrom, e.buf.cur)
	e.yankIdx = (e.yankIdx - 1 + len(e.killRing)) % len(e.killRing)
	e.buf.insert(e.killRing[e.yankIdx])
	e.lastEdit = editYank
}

// historyMove browses history; dir -1 is older.
func (e *Editor) historyMove(dir int) {
	if len(e.history) == 0 {
		return
	}
	idx := e.histIdx + dir
	if idx < 0 || idx > len(e.history) {
		return
	}
	if e.histIdx == len(e.history) {
		e.draft = e.buf.text()
	}
	e.histIdx = idx
	if idx == len(e.history) {
		e.buf.setText(e.draft)
	} else {
		e.buf.setText(e.history[idx])
	}
	if dir < 0 {
		// Older entries open at their top, so up keeps walking history.
		e.buf.cur = pos{0, min(len(e.buf.lines[0]), len(e.buf.lines[0]))}
		if len(e.buf.lines) > 1 {
			e.buf.cur = pos{0, 0}
		}
	}
	e.lastEdit = editOther
}

// BangMode reports whether the prompt starts with "!" (the rule colour
// shows shell mode); it looks at the first line only.
func (e *Editor) BangMode() bool {
	for _, r := range e.buf.lines[0] {
		if r != ' ' {
			return r == '!'
		}
	}
	return false
}

// Bang reports a shell escape: "!cmd" runs and adds its output to the
// context, "!!cmd" runs without adding it.
func Bang(text string) (cmd string, excludeFromContext, ok bool) {
	t := strings.TrimSpace(text)
	if c, found := strings.CutPrefix(t, "!!"); found {
		c = strings.TrimSpace(c)
		return c, true, c != ""
	}
	if c, found := strings.CutPrefix(t, "!"); found {
		c = strings.TrimSpace(c)
		return c, false, c != ""
	}
	return "", false, false
}
