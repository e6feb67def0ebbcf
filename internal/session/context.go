package session

import (
	"runtime"
	"sync"

	"github.com/relay-agent/relay/internal/llm"
)

// ModelRef names the model selected on the active path.
type ModelRef struct {
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
}

// Context is what the next model request is built from.
type Context struct {
	Messages      []llm.Message `json:"messages"`
	ThinkingLevel string        `json:"thinkingLevel"` // "off" when the path never set one
	Model         *ModelRef     `json:"model"`         // nil when the path names no model
}

// ProjectedEntry is one selected entry with the messages it contributes
// after context edits (none for state-only entries and omitted targets).
type ProjectedEntry struct {
	Source   *Entry        `json:"sourceEntry"`
	Messages []llm.Message `json:"messages"`
}

// Projection is the model-visible context with the entries it came from.
type Projection struct {
	Entries       []ProjectedEntry `json:"entries"`
	Messages      []llm.Message    `json:"messages"`
	ThinkingLevel string           `json:"thinkingLevel"`
	Model         *ModelRef        `json:"model"`
}

// BuildContextEntries returns the active entries from the root to the
// leaf, honoring the latest compaction on the path: the compaction entry
// first, then the non-system entries from its firstKeptEntryId up to it,
// then everything after it. Non-message entries in the range are kept so
// front ends can render them.
func (m *Manager) BuildContextEntries() []*Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return contextEntries(m.pathTo(m.leaf))
}

func contextEntries(path []*Entry) []*Entry {
	ci := -1
	for i, e := range path {
		if e.Type == TypeCompaction {
			ci = i
		}
	}
	if ci < 0 {
		return path
	}
	comp := path[ci]
	firstKept := ""
	if c := comp.Compaction(); c != nil {
		firstKept = c.FirstKeptEntryID
	}
	out := make([]*Entry, 0, len(path)-ci)
	out = append(out, comp)
	found := false
	for _, e := range path[:ci] {
		if e.ID == firstKept {
			found = true
		}
		if found && !(e.Type == TypeMessage && e.role == llm.RoleSystem) {
			out = append(out, e)
		}
	}
	return append(out, path[ci+1:]...)
}

// BuildSessionProjection applies the latest context_edit per target among
// the selected entries and returns the model-visible messages with their
// source entries. The entries themselves are not modified.
func (m *Manager) BuildSessionProjection() Projection {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.projection(m.leaf)
}

// BuildSessionContext returns the messages, thinking level and model for
// the next request from the active branch.
func (m *Manager) BuildSessionContext() Context {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.projection(m.leaf)
	return Context{Messages: p.Messages, ThinkingLevel: p.ThinkingLevel, Model: p.Model}
}

func (m *Manager) projection(leaf string) Projection {
	path := m.pathTo(leaf)
	level, model := m.pathSettings(path)
	sel := contextEntries(path)
	m.decodeAll(sel)
	edits := map[string]*ContextEdit{}
	for _, e := range sel {
		if ce := e.ContextEdit(); ce != nil {
			edits[ce.TargetID] = ce // later edits on the branch win
		}
	}
	p := Projection{Entries: make([]ProjectedEntry, 0, len(sel)), ThinkingLevel: level, Model: model}
	for i, e := range sel {
		var msgs []llm.Message
		// Only the newest compaction (index 0) contributes its checkpoint
		// and summary; an older one inside the kept range adds nothing.
		if !(e.Type == TypeCompaction && i > 0) {
			msgs = m.entryMessages(e)
			if ce, ok := edits[e.ID]; ok && len(msgs) > 0 {
				msgs = applyEdit(msgs, ce)
			}
		}
		p.Entries = append(p.Entries, ProjectedEntry{Source: e, Messages: msgs})
		p.Messages = append(p.Messages, msgs...)
	}
	if p.Messages == nil {
		p.Messages = []llm.Message{}
	}
	return p
}

// pathSettings takes the thinking level (last thinking_level_change) and
// model (last model_change or assistant message) from the whole path.
func (m *Manager) pathSettings(path []*Entry) (string, *ModelRef) {
	level := "off"
	for i := len(path) - 1; i >= 0; i-- {
		if t := path[i].ThinkingLevelChange(); t != nil {
			level = t.ThinkingLevel
			break
		}
	}
	var model *ModelRef
	for i := len(path) - 1; i >= 0 && model == nil; i-- {
		e := path[i]
		if mc := e.ModelChange(); mc != nil {
			model = &ModelRef{mc.Provider, mc.ModelID}
		} else if e.Type == TypeMessage && e.role == llm.RoleAssistant {
			if msg, err := e.Message(); err == nil {
				if a, ok := msg.(*llm.AssistantMessage); ok {
					model = &ModelRef{a.Provider, a.Model}
				}
			}
		}
	}
	return level, model
}

// decodeAll decodes the message bodies of entries in parallel: on a large
// session the decode is the dominant cost of building context.
func (m *Manager) decodeAll(entries []*Entry) {
	var todo []*Entry
	for _, e := range entries {
		if e.Type == TypeMessage {
			todo = append(todo, e)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 8, len(todo)/64+1)
	if workers <= 1 {
		for _, e := range todo {
			e.Message()
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (len(todo) + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, len(todo))
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func(part []*Entry) {
			defer wg.Done()
			for _, e := range part {
				e.Message()
			}
		}(todo[lo:hi])
	}
	wg.Wait()
}

// entryMessages converts one selected entry into context messages.
func (m *Manager) entryMessages(e *Entry) []llm.Message {
	ts := e.Time().UnixMilli()
	switch e.Type {
	case TypeMessage:
		msg, err := e.Message()
		if err != nil {
			m.addProblem(Problem{m.path, e.Line, Error, "message left out of context: " + err.Error()})
			return nil
		}
		return []llm.Message{msg}
	case TypeCustomMessage:
		if c := e.CustomMessage(); c != nil {
			return []llm.Message{&llm.CustomMessage{CustomType: c.CustomType, Content: c.Content, Display: c.Display, Details: c.Details, Timestamp: ts}}
		}
	case TypeBranchSummary:
		if b := e.BranchSummary(); b != nil && b.Summary != "" {
			from := b.FromID
			return []llm.Message{&llm.BranchSummaryMessage{Summary: b.Summary, FromID: &from, Timestamp: ts}}
		}
	case TypeCompaction:
		if c := e.Compaction(); c != nil {
			sum := &llm.CompactionSummaryMessage{Summary: c.Summary, TokensBefore: c.TokensBefore, Timestamp: ts}
			if c.SystemMessage != nil {
				return []llm.Message{c.SystemMessage, sum}
			}
			return []llm.Message{sum}
		}
	}
	// model_change, thinking_level_change, usage, custom, label,
	// session_info, context_edit and unknown types add no message.
	return nil
}

// applyEdit returns copies of msgs with the edit applied: a nil replacement
// omits the entry; otherwise only the content of user, assistant,
// tool-result and custom messages changes. String replacements for
// assistant and tool-result messages become one text block, since those
// roles require content arrays.
func applyEdit(msgs []llm.Message, ce *ContextEdit) []llm.Message {
	if ce.Replacement == nil {
		return nil
	}
	rep := *ce.Replacement
	asBlocks := func() llm.Blocks {
		if rep.IsString {
			return llm.Blocks{&llm.TextContent{Text: rep.Text}}
		}
		return rep.Blocks
	}
	out := make([]llm.Message, len(msgs))
	for i, msg := range msgs {
		switch v := msg.(type) {
		case *llm.UserMessage:
			c := *v
			c.Content = rep
			out[i] = &c
		case *llm.AssistantMessage:
			c := *v
			c.Content = asBlocks()
			out[i] = &c
		case *llm.ToolResultMessage:
			c := *v
			c.Content = asBlocks()
			out[i] = &c
		case *llm.CustomMessage:
			c := *v
			c.Content = rep
			out[i] = &c
		default:
			out[i] = msg
		}
	}
	return out
}

// addProblem records p once (context building runs many times).
func (m *Manager) addProblem(p Problem) {
	for _, q := range m.problems {
		if q == p {
			return
		}
	}
	m.problems = append(m.problems, p)
}
