package tui

import (
	"strings"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui/keymap"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

var treeFilters = []string{"default", "no-tools", "user-only", "labeled-only", "all"}

// treeNav is the /tree navigator: the session's entries as a tree with
// folds, filters and labels. Selecting an entry moves the leaf there,
// optionally summarizing the branch being left.
type treeNav struct {
	nodes    []TreeNode
	index    map[string]int
	children map[string][]int
	roots    []int
	folded   map[string]bool
	filter   string
	rows     []treeRow
	selected int
	showTime bool

	labeling bool
	label    string

	// Branch-summary prompt after a selection.
	asking       bool
	askChoice    int
	instructions bool
	instrText    string
	target       string
}

type treeRow struct {
	node  int
	depth int
}

func (m *Model) openTree() {
	if m.busy {
		m.tr.AddError("wait for the agent to finish or abort it first")
		return
	}
	rt := m.rt
	m.later(func() func(*Model) {
		nodes := rt.Tree()
		return func(m *Model) { m.treeNavigator(nodes) }
	})
}

func (m *Model) treeNavigator(nodes []TreeNode) {
	if len(nodes) == 0 {
		m.tr.AddNotice("The session is empty")
		return
	}
	t := &treeNav{nodes: nodes, index: map[string]int{}, children: map[string][]int{}, folded: map[string]bool{}}
	t.filter = m.opts.TreeFilterMode
	if t.filter == "" {
		t.filter = "default"
	}
	for i, n := range nodes {
		t.index[n.ID] = i
	}
	t.markShownLeaf()
	for i, n := range nodes {
		if _, ok := t.index[n.ParentID]; n.ParentID == "" || !ok {
			t.roots = append(t.roots, i)
		} else {
			t.children[n.ParentID] = append(t.children[n.ParentID], i)
		}
	}
	t.rebuild()
	if len(t.rows) == 0 && t.filter != "all" {
		m.tr.AddNotice("The session is empty")
		return
	}
	// Start on the current leaf.
	for r, row := range t.rows {
		if t.nodes[row.node].Leaf {
			t.selected = r
		}
	}
	m.overlay = t
}

// markShownLeaf moves the current marker from a bookkeeping leaf (a label,
// a model or thinking change, a session name, which every append makes the
// leaf) to the nearest message above it, so the tree opens on, and marks,
// where the conversation actually is.
func (t *treeNav) markShownLeaf() {
	leaf := -1
	for i, n := range t.nodes {
		if n.Leaf {
			leaf = i
		}
	}
	i := leaf
	for i >= 0 && !conversationKind(t.nodes[i].Kind) {
		p, ok := t.index[t.nodes[i].ParentID]
		if !ok {
			return // nothing but bookkeeping: leave the marker
		}
		i = p
	}
	if i >= 0 && i != leaf {
		t.nodes[leaf].Leaf, t.nodes[i].Leaf = false, true
	}
}

func conversationKind(kind string) bool {
	switch kind {
	case "user", "assistant", "toolResult", "bashExecution", "compaction", "branchSummary", "custom", "custom_message":
		return true
	}
	return false
}

// visible reports whether a node passes the filter.
func (t *treeNav) visible(n TreeNode) bool {
	switch t.filter {
	case "all":
		return true
	case "user-only":
		return n.Kind == "user"
	case "labeled-only":
		return n.Label != ""
	case "no-tools":
		if n.Kind == "toolResult" || n.Kind == "assistant" && n.HasTools {
			return false
		}
	}
	return conversationKind(n.Kind) || n.Label != ""
}

// rebuild flattens the tree: depth grows only where a node branches, so
// a linear conversation stays flat.
func (t *treeNav) rebuild() {
	t.rows = t.rows[:0]
	var walk func(i, depth int)
	walk = func(i, depth int) {
		n := t.nodes[i]
		shown := t.visible(n)
		if shown {
			t.rows = append(t.rows, treeRow{i, depth})
		}
		if t.folded[n.ID] {
			return
		}
		kids := t.children[n.ID]
		for _, c := range kids {
			d := depth
			if len(kids) > 1 {
				d++
			}
			walk(c, d)
		}
	}
	for _, r := range t.roots {
		walk(r, 0)
	}
	t.selected = max(0, min(t.selected, len(t.rows)-1))
}

func (t *treeNav) cur() (TreeNode, bool) {
	if len(t.rows) == 0 {
		return TreeNode{}, false
	}
	return t.nodes[t.rows[t.selected].node], true
}

// segmentStart reports whether a row starts a branch segment (its parent
// has several children) or is a root.
func (t *treeNav) segmentStart(r int) bool {
	n := t.nodes[t.rows[r].node]
	return n.ParentID == "" || len(t.children[n.ParentID]) > 1
}

func (t *treeNav) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	if t.asking {
		return t.askKey(m, k)
	}
	if t.labeling {
		switch {
		case m.is(keymap.SelectCancel, k):
			t.labeling = false
		case m.is(keymap.SelectConfirm, k):
			t.labeling = false
			n, ok := t.cur()
			if !ok {
				return nil
			}
			label := strings.TrimSpace(t.label)
			t.nodes[t.rows[t.selected].node].Label = label
			rt := m.rt
			return m.call(func() resultMsg {
				if err := rt.SetLabel(n.ID, label); err != nil {
					return resultMsg{err: err}
				}
				return resultMsg{}
			})
		case m.is(keymap.EditorDeleteCharBackward, k):
			if r := []rune(t.label); len(r) > 0 {
				t.label = string(r[:len(r)-1])
			}
		default:
			if k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
				t.label += k.Text
			}
		}
		return nil
	}
	switch {
	case m.is(keymap.AppTreeFoldOrUp, k):
		if n, ok := t.cur(); ok && len(t.children[n.ID]) > 0 && !t.folded[n.ID] && len(t.children[n.ID]) > 1 {
			t.folded[n.ID] = true
			t.rebuild()
			return nil
		}
		for r := t.selected - 1; r >= 0; r-- {
			if t.segmentStart(r) {
				t.selected = r
				return nil
			}
		}
		t.selected = 0
	case m.is(keymap.AppTreeUnfoldOrDown, k):
		if n, ok := t.cur(); ok && t.folded[n.ID] {
			delete(t.folded, n.ID)
			t.rebuild()
			return nil
		}
		for r := t.selected + 1; r < len(t.rows); r++ {
			if t.segmentStart(r) {
				t.selected = r
				return nil
			}
		}
		t.selected = max(0, len(t.rows)-1)
	case m.is(keymap.AppMessageCopy, k):
		if n, ok := t.cur(); ok && n.Text != "" {
			m.setStatus("Copied the selected message", false)
			return tea.SetClipboard(n.Text)
		}
	case m.is(keymap.AppTreeEditLabel, k):
		if n, ok := t.cur(); ok {
			t.labeling, t.label = true, n.Label
		}
	case m.is(keymap.AppTreeToggleLabelTimestamp, k):
		t.showTime = !t.showTime
	case m.is(keymap.AppTreeFilterDefault, k):
		t.setFilter("default")
	case m.is(keymap.AppTreeFilterNoTools, k):
		t.toggleFilter("no-tools")
	case m.is(keymap.AppTreeFilterUserOnly, k):
		t.toggleFilter("user-only")
	case m.is(keymap.AppTreeFilterLabeledOnly, k):
		t.toggleFilter("labeled-only")
	case m.is(keymap.AppTreeFilterAll, k):
		t.toggleFilter("all")
	case m.is(keymap.AppTreeFilterCycleForward, k), m.is(keymap.AppTreeFilterCycleBackward, k):
		d := 1
		if m.is(keymap.AppTreeFilterCycleBackward, k) {
			d = len(treeFilters) - 1
		}
		for i, f := range treeFilters {
			if f == t.filter {
				t.setFilter(treeFilters[(i+d)%len(treeFilters)])
				break
			}
		}
	case m.is(keymap.SelectCancel, k):
		m.overlay = nil
	case m.is(keymap.SelectUp, k):
		t.selected = max(0, t.selected-1)
	case m.is(keymap.SelectDown, k):
		t.selected = min(len(t.rows)-1, t.selected+1)
	case m.is(keymap.SelectPageUp, k):
		t.selected = max(0, t.selected-10)
	case m.is(keymap.SelectPageDown, k):
		t.selected = max(0, min(len(t.rows)-1, t.selected+10))
	case m.is(keymap.SelectConfirm, k):
		n, ok := t.cur()
		if !ok {
			return nil
		}
		if n.Leaf {
			m.overlay = nil
			return nil
		}
		t.target = n.ID
		if m.opts.BranchSummarySkip {
			m.overlay = nil
			return t.navigate(m, false, "")
		}
		t.asking, t.askChoice = true, 0
	}
	return nil
}

func (t *treeNav) setFilter(f string) {
	var keep string
	if n, ok := t.cur(); ok {
		keep = n.ID
	}
	t.filter = f
	t.rebuild()
	for r, row := range t.rows {
		if t.nodes[row.node].ID == keep {
			t.selected = r
		}
	}
}

// toggleFilter switches a filter on, or back to default when it is on.
func (t *treeNav) toggleFilter(f string) {
	if t.filter == f {
		f = "default"
	}
	t.setFilter(f)
}

var summaryChoices = []string{"No summary", "Summarize the branch I am leaving", "Summarize with custom instructions"}

func (t *treeNav) askKey(m *Model, k tea.KeyPressMsg) tea.Cmd {
	if t.instructions {
		switch {
		case m.is(keymap.SelectCancel, k):
			t.instructions = false
		case m.is(keymap.SelectConfirm, k):
			m.overlay = nil
			return t.navigate(m, true, t.instrText)
		case m.is(keymap.EditorDeleteCharBackward, k):
			if r := []rune(t.instrText); len(r) > 0 {
				t.instrText = string(r[:len(r)-1])
			}
		default:
			if k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
				t.instrText += k.Text
			}
		}
		return nil
	}
	switch {
	case m.is(keymap.SelectCancel, k):
		t.asking = false
	case m.is(keymap.SelectUp, k):
		t.askChoice = (t.askChoice + len(summaryChoices) - 1) % len(summaryChoices)
	case m.is(keymap.SelectDown, k):
		t.askChoice = (t.askChoice + 1) % len(summaryChoices)
	case m.is(keymap.SelectConfirm, k):
		switch t.askChoice {
		case 0:
			m.overlay = nil
			return t.navigate(m, false, "")
		case 1:
			m.overlay = nil
			return t.navigate(m, true, "")
		default:
			t.instructions = true
		}
	}
	return nil
}

func (t *treeNav) navigate(m *Model, summarize bool, instructions string) tea.Cmd {
	rt, ctx, target := m.rt, m.ctx, t.target
	if summarize {
		m.busy = true
		m.setStatus("Summarizing the branch…", false)
	}
	return func() tea.Msg {
		text, err := rt.NavigateTree(ctx, target, summarize, instructions)
		if err != nil {
			return treeDoneMsg{err: err}
		}
		return treeDoneMsg{text: text, msgs: rt.ContextMessages()}
	}
}

type treeDoneMsg struct {
	text string
	msgs []llm.Message
	err  error
}

func (t *treeNav) paste(m *Model, s string) tea.Cmd {
	s = strings.ReplaceAll(s, "\n", " ")
	switch {
	case t.labeling:
		t.label += s
	case t.instructions:
		t.instrText += s
	}
	return nil
}

var kindMark = map[string]string{
	"user": "›", "assistant": "•", "toolResult": "↳", "bashExecution": "$", "compaction": "≡",
	"branchSummary": "⎇", "custom": "◇", "custom_message": "◇",
}

func (t *treeNav) view(m *Model, w, h int) string {
	th := m.th
	lines := []string{th.Fg("accent", "Session tree") + th.Fg("muted", "  filter: "+t.filter)}
	rows := max(1, h-len(lines)-2)
	if t.asking {
		rows = max(1, rows-len(summaryChoices)-1) // the question and its choices
	}
	first := max(0, min(t.selected-rows/2, len(t.rows)-rows))
	for r := first; r < min(len(t.rows), first+rows); r++ {
		row := t.rows[r]
		n := t.nodes[row.node]
		mark := kindMark[n.Kind]
		if mark == "" {
			mark = "·"
		}
		var b strings.Builder
		b.WriteString(strings.Repeat("  ", row.depth))
		if t.folded[n.ID] {
			b.WriteString("▸ ")
		} else if len(t.children[n.ID]) > 1 {
			b.WriteString("▾ ")
		}
		b.WriteString(mark + " ")
		text := oneLine(n.Text)
		if text == "" && n.HasTools {
			text = "(tool calls)"
		}
		role := "text"
		switch n.Kind {
		case "user":
			role = "accent"
		case "toolResult":
			role = "toolOutput"
		case "compaction", "branchSummary":
			role = "warning"
		}
		if !n.OnPath {
			role = "dim"
		}
		label := ""
		if n.Label != "" {
			label = " [" + n.Label + "]"
			if t.showTime && !n.LabelTime.IsZero() {
				label = " [" + n.Label + " · " + n.LabelTime.Local().Format("2006-01-02 15:04") + "]"
			}
		}
		leaf := ""
		if n.Leaf {
			leaf = " ← current"
		}
		line := th.Fg(role, b.String()+text)
		suffix := th.Fg("customMessageLabel", label) + th.Fg("success", leaf)
		line = ansi.Truncate(line, max(10, w-2-ansi.StringWidth(label+leaf)), "…") + suffix
		if r == t.selected {
			line = th.Fg("accent", "› ") + line
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	var hint string
	km := m.km
	switch {
	case t.instructions:
		hint = th.Fg("accent", "Summary instructions: ") + t.instrText
	case t.asking:
		lines = append(lines, th.Fg("accent", "Summarize the branch you are leaving?"))
		for i, c := range summaryChoices {
			p := "  "
			if i == t.askChoice {
				p = th.Fg("accent", "› ")
			}
			lines = append(lines, p+c)
		}
		hint = th.Fg("dim", "enter choose · esc cancel")
	case t.labeling:
		hint = th.Fg("accent", "Label: ") + t.label
	default:
		hint = th.Fg("dim", ansi.Truncate("enter select · "+km.Label(keymap.AppTreeFoldOrUp)+"/"+km.Label(keymap.AppTreeUnfoldOrDown)+" fold · "+
			km.Label(keymap.AppTreeEditLabel)+" label · "+km.Label(keymap.AppTreeFilterCycleForward)+" filter · esc close", w, "…"))
	}
	lines = append(lines, hint)
	return strings.Join(lines, "\n")
}
