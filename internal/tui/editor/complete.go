package editor

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/relay-agent/relay/internal/tui/keymap"
)

// CompletionKind says what is being completed.
type CompletionKind int

const (
	CompleteFile    CompletionKind = iota // "@path" anywhere, or a path on tab
	CompleteCommand                       // "/name" at the start of the prompt
)

// CompletionRequest is what the editor asks the provider for.
type CompletionRequest struct {
	Kind   CompletionKind
	Prefix string // the token typed so far, without "@" or "/"
	Forced bool   // the user pressed tab
}

// Completion is one suggestion.
type Completion struct {
	Value       string // replaces the token (without the "@" or "/" sigil)
	Label       string // shown in the list; Value when empty
	Description string
	// Continue keeps completing after accepting (a directory).
	Continue bool
}

// Completer supplies suggestions. The editor calls it from a tea.Cmd, off
// the update loop, so a provider may touch the file system.
type Completer interface {
	Complete(req CompletionRequest) []Completion
}

// CompletionsMsg carries a provider's answer back to the editor.
type CompletionsMsg struct {
	seq   int
	items []Completion
}

type completion struct {
	provider   Completer
	seq        int
	itemsSeq   int // the request the items answer
	items      []Completion
	selected   int
	from       pos // token start (after the sigil)
	sigil      string
	maxVisible int
	active     bool
}

func (c *completion) open() bool { return c.active && len(c.items) > 0 }
func (c *completion) close()     { c.active, c.items, c.selected = false, nil, 0 }

// CompletionOpen reports whether the suggestion list is showing.
func (e *Editor) CompletionOpen() bool { return e.complete.open() }

// CloseCompletion hides the suggestion list.
func (e *Editor) CloseCompletion() { e.complete.close() }

// SetCompleter installs the provider of @file and /command suggestions.
func (e *Editor) SetCompleter(c Completer) { e.complete.provider = c }

// SetMaxVisible sets autocompleteMaxVisible.
func (e *Editor) SetMaxVisible(n int) {
	if n > 0 {
		e.complete.maxVisible = n
	}
}

// token finds the completable token before the cursor.
func (e *Editor) token(forced bool) (CompletionRequest, pos, string, bool) {
	line := e.buf.line()
	c := e.buf.cur.col
	i := c
	for i > 0 && line[i-1] != ' ' && line[i-1] != '\t' {
		i--
	}
	tok := string(line[i:c])
	switch {
	case strings.HasPrefix(tok, "@"):
		return CompletionRequest{Kind: CompleteFile, Prefix: tok[1:], Forced: forced}, pos{e.buf.cur.row, i + 1}, "@", true
	case strings.HasPrefix(tok, "/") && e.buf.cur.row == 0 && i == 0:
		return CompletionRequest{Kind: CompleteCommand, Prefix: tok[1:], Forced: forced}, pos{0, 1}, "/", true
	case forced && tok != "":
		return CompletionRequest{Kind: CompleteFile, Prefix: tok, Forced: true}, pos{e.buf.cur.row, i}, "", true
	}
	return CompletionRequest{}, pos{}, "", false
}

// requestCompletion asks the provider for the token at the cursor.
func (e *Editor) requestCompletion(forced bool) tea.Cmd {
	c := &e.complete
	if c.provider == nil {
		return nil
	}
	req, from, sigil, ok := e.token(forced)
	if !ok {
		c.close()
		return nil
	}
	c.seq++
	c.from, c.sigil, c.active = from, sigil, true
	seq, p := c.seq, c.provider
	return func() tea.Msg { return CompletionsMsg{seq: seq, items: p.Complete(req)} }
}

// HandleCompletions applies a provider answer; stale answers are dropped.
func (e *Editor) HandleCompletions(m CompletionsMsg) {
	c := &e.complete
	if m.seq != c.seq || !c.active {
		return
	}
	c.items, c.selected, c.itemsSeq = m.items, 0, m.seq
	if len(m.items) == 0 {
		c.active = false
	}
}

func (e *Editor) completionKey(k tea.KeyPressMsg) (Outcome, tea.Cmd, bool) {
	c := &e.complete
	switch {
	case e.is(keymap.SelectUp, k):
		c.selected = (c.selected - 1 + len(c.items)) % len(c.items)
	case e.is(keymap.SelectDown, k):
		c.selected = (c.selected + 1) % len(c.items)
	case c.itemsSeq != c.seq && e.is(keymap.SelectConfirm, k):
		// The list answers an earlier prefix (typing outran the
		// provider): enter acts on the text as typed.
		c.close()
		return Ignored, nil, false
	case c.itemsSeq != c.seq && e.is(keymap.InputTab, k):
		return Handled, e.requestCompletion(true), true
	case e.is(keymap.InputTab, k), e.is(keymap.SelectConfirm, k):
		item := c.items[c.selected]
		// A command completed with enter also submits, as typed.
		submit := c.sigil == "/" && e.is(keymap.SelectConfirm, k) && !item.Continue
		e.accept(item)
		if submit {
			return e.submitWithCmd()
		}
		if item.Continue {
			return Handled, e.requestCompletion(false), true
		}
	case e.is(keymap.SelectCancel, k):
		c.close()
	default:
		return Ignored, nil, false
	}
	return Handled, nil, true
}

func (e *Editor) submitWithCmd() (Outcome, tea.Cmd, bool) {
	out, cmd := e.submit()
	return out, cmd, true
}

func (e *Editor) accept(item Completion) {
	c := &e.complete
	e.pushUndo(editOther)
	e.buf.deleteRange(c.from, e.buf.cur)
	v := item.Value
	if !item.Continue {
		v += " "
	}
	e.buf.insert(v)
	c.close()
}

// CompletionView renders the suggestion list (empty when closed).
func (e *Editor) CompletionView(width int) string {
	c := &e.complete
	if !c.open() {
		return ""
	}
	n := min(len(c.items), c.maxVisible)
	first := max(0, min(c.selected-n/2, len(c.items)-n))
	labelW := 0
	for _, it := range c.items[first : first+n] {
		labelW = max(labelW, ansi.StringWidth(c.sigil+label(it)))
	}
	labelW = min(labelW, width/2)
	var b strings.Builder
	for i := first; i < first+n; i++ {
		it := c.items[i]
		l := ansi.Truncate(c.sigil+label(it), labelW, "…")
		l += strings.Repeat(" ", labelW-ansi.StringWidth(l))
		var row string
		if i == c.selected {
			row = e.Styles.PopupSelected(l)
		} else {
			row = e.Styles.PopupItem(l)
		}
		if it.Description != "" && width-labelW-2 > 4 {
			row += "  " + e.Styles.PopupDetail(ansi.Truncate(it.Description, width-labelW-2, "…"))
		}
		if i > first {
			b.WriteByte('\n')
		}
		b.WriteString(row)
	}
	return b.String()
}

func label(it Completion) string {
	if it.Label != "" {
		return it.Label
	}
	return it.Value
}
