package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/relay-agent/relay/internal/jsonx"
	"github.com/relay-agent/relay/internal/llm"
)

// ErrReadOnly is returned by appends on a session opened with Load.
var ErrReadOnly = errors.New("session is read-only")

type envelope struct {
	Type      string  `json:"type"`
	ID        string  `json:"id"`
	ParentID  *string `json:"parentId"`
	Timestamp string  `json:"timestamp"`
}

// buildRecord encodes the envelope then the body's members, in the field
// order of the original writer.
func buildRecord(env envelope, body any) ([]byte, error) {
	head, err := llm.Marshal(env)
	if err != nil {
		return nil, err
	}
	if mb, ok := body.(messageBody); ok {
		// The message is appended as its MarshalJSON writes it, not
		// copied and re-scanned by encoding/json (a long answer is
		// megabytes).
		out := make([]byte, 0, len(head)+64)
		out = append(out, head[:len(head)-1]...)
		out = append(out, `,"message":`...)
		out, err = llm.AppendJSON(out, mb.Message)
		return append(out, '}'), err
	}
	b, err := llm.Marshal(body)
	if err != nil {
		return nil, err
	}
	if len(b) <= 2 {
		return head, nil
	}
	out := make([]byte, 0, len(head)+len(b))
	out = append(out, head[:len(head)-1]...)
	out = append(out, ',')
	return append(out, b[1:]...), nil
}

// appendEntry adds a child of the leaf, advances the leaf and persists it.
// body builds the type-specific members once the new id is known.
func (m *Manager) appendEntry(typ string, body func(id string) (any, error), msg llm.Message) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.appendLocked(typ, m.leaf, body, msg)
}

func (m *Manager) appendLocked(typ, parent string, body func(id string) (any, error), msg llm.Message) (string, error) {
	if !m.persist && m.path != "" {
		return "", fmt.Errorf("append to %s: %w", m.path, ErrReadOnly)
	}
	id := m.newID()
	env := envelope{Type: typ, ID: id, Timestamp: isoTime(m.now())}
	if parent != "" {
		env.ParentID = &parent
	}
	b, err := body(id)
	if err != nil {
		return "", err
	}
	raw, err := buildRecord(env, b)
	if err != nil {
		return "", fmt.Errorf("encode %s entry: %w", typ, err)
	}
	e, err := parseEntry(raw, 0)
	if err != nil {
		return "", fmt.Errorf("encode %s entry: %w", typ, err)
	}
	if msg != nil {
		e.msg = msg // already decoded; Message() keeps it
	}
	if m.closed {
		return "", fmt.Errorf("append to %s: session is closed", m.path)
	}
	// The entry joins the in-memory tree whatever the disk does: a failed
	// write (a full disk) must not make the conversation forget it. The
	// caller gets a *WriteError and decides whether to go on; the next
	// append writes the backlog first, so nothing is lost once the disk
	// recovers.
	m.index(e)
	m.leaf = id
	if !m.persist {
		return id, nil
	}
	if !m.flushed {
		return id, m.flushLocked()
	}
	m.unwritten++
	return id, m.writeBacklogLocked()
}

// writeBacklogLocked writes the entries appended since the last successful
// write (the tail of m.entries) in one Write.
func (m *Manager) writeBacklogLocked() error {
	if m.unwritten == 0 {
		return nil
	}
	tail := m.entries[len(m.entries)-m.unwritten:]
	var buf []byte
	if len(tail) == 1 {
		buf = append(tail[0].raw[:len(tail[0].raw):len(tail[0].raw)], '\n')
	} else {
		size := 0
		for _, e := range tail {
			size += len(e.raw) + 1
		}
		buf = make([]byte, 0, size)
		for _, e := range tail {
			buf = append(append(buf, e.raw...), '\n')
		}
	}
	if err := m.app.write(buf); err != nil {
		return &WriteError{Path: m.path, Err: err}
	}
	m.unwritten = 0
	return nil
}

func (m *Manager) newID() string {
	for range 100 {
		id := newEntryID(nil)
		if m.byID[id] == nil {
			return id
		}
	}
	return newEntryID(map[string]bool{}) + "-" + NewSessionID()
}

func (m *Manager) flushIfReady() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.flushLocked()
}

// flushLocked creates the file once a user or assistant message exists and
// writes the header and every pending entry in one Write.
func (m *Manager) flushLocked() error {
	if !m.persist || m.flushed {
		return nil
	}
	ready := false
	for _, e := range m.entries {
		if e.Type == TypeMessage && (e.role == llm.RoleUser || e.role == llm.RoleAssistant) {
			ready = true
			break
		}
	}
	if !ready {
		return nil
	}
	if m.app == nil {
		app, err := openAppender(m.path, true)
		if err != nil {
			var le *LockedError
			if errors.As(err, &le) {
				return err
			}
			return &WriteError{Path: m.path, Err: err}
		}
		m.app = app
	}
	size := len(m.header.raw) + 1
	for _, e := range m.entries {
		size += len(e.raw) + 1
	}
	buf := make([]byte, 0, size)
	buf = append(append(buf, m.header.raw...), '\n')
	for _, e := range m.entries {
		buf = append(append(buf, e.raw...), '\n')
	}
	if err := m.app.write(buf); err != nil {
		return &WriteError{Path: m.path, Err: err}
	}
	m.flushed = true
	return nil
}

func marshalAny(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	if r, ok := v.(json.RawMessage); ok {
		return r, nil
	}
	return llm.Marshal(v)
}

// AppendMessage appends a message entry. Compaction and branch summaries
// have entry types of their own and are refused here.
func (m *Manager) AppendMessage(msg llm.Message) (string, error) {
	if msg == nil {
		return "", fmt.Errorf("append message: nil message")
	}
	switch msg.MessageRole() {
	case llm.RoleCompactionSummary, llm.RoleBranchSummary:
		return "", fmt.Errorf("append message: %s messages are stored as their own entries", msg.MessageRole())
	}
	return m.appendEntry(TypeMessage, func(string) (any, error) { return messageBody{msg}, nil }, msg)
}

// messageBody is the member of a message entry after the envelope.
type messageBody struct {
	Message llm.Message `json:"message"`
}

// AppendModelChange records a model switch.
func (m *Manager) AppendModelChange(provider, modelID string) (string, error) {
	return m.appendEntry(TypeModelChange, func(string) (any, error) {
		return ModelChange{provider, modelID}, nil
	}, nil)
}

// AppendThinkingLevelChange records a thinking level switch.
func (m *Manager) AppendThinkingLevelChange(level string) (string, error) {
	return m.appendEntry(TypeThinkingLevelChange, func(string) (any, error) {
		return ThinkingLevelChange{level}, nil
	}, nil)
}

// AppendUsage records usage that is not an assistant message.
func (m *Manager) AppendUsage(kind, provider, model string, u llm.Usage) (string, error) {
	return m.appendEntry(TypeUsage, func(string) (any, error) {
		return Usage{Kind: kind, Provider: provider, Model: model, Usage: u}, nil
	}, nil)
}

type compactionWire struct {
	Summary          string             `json:"summary"`
	FirstKeptEntryID string             `json:"firstKeptEntryId"`
	TokensBefore     int                `json:"tokensBefore"`
	Details          json.RawMessage    `json:"details,omitempty"`
	FromHook         bool               `json:"fromHook,omitempty"`
	Usage            *llm.Usage         `json:"usage,omitempty"`
	SystemMessage    *llm.SystemMessage `json:"systemMessage,omitempty"`
}

// AppendCompaction records a compaction. firstKeptID "" is a retain-none
// compaction: the entry stores its own id, so nothing before it is kept.
func (m *Manager) AppendCompaction(summary, firstKeptID string, tokensBefore int, systemMessage *llm.SystemMessage, details any, fromHook bool, usage *llm.Usage) (string, error) {
	d, err := marshalAny(details)
	if err != nil {
		return "", fmt.Errorf("append compaction: details: %w", err)
	}
	return m.appendEntry(TypeCompaction, func(id string) (any, error) {
		if firstKeptID == "" {
			firstKeptID = id
		} else if m.byID[firstKeptID] == nil {
			return nil, fmt.Errorf("append compaction: first kept entry %q does not exist", firstKeptID)
		}
		return compactionWire{summary, firstKeptID, tokensBefore, d, fromHook, usage, systemMessage}, nil
	}, nil)
}

// AppendCustom records extension state (never model context).
func (m *Manager) AppendCustom(customType string, data any) (string, error) {
	d, err := marshalAny(data)
	if err != nil {
		return "", fmt.Errorf("append custom: %w", err)
	}
	return m.appendEntry(TypeCustom, func(string) (any, error) {
		return Custom{customType, d}, nil
	}, nil)
}

// AppendCustomMessage records an extension message that reaches the model.
func (m *Manager) AppendCustomMessage(customType string, content llm.Content, display bool, details any) (string, error) {
	d, err := marshalAny(details)
	if err != nil {
		return "", fmt.Errorf("append custom message: %w", err)
	}
	return m.appendEntry(TypeCustomMessage, func(string) (any, error) {
		return CustomMessage{customType, content, display, d}, nil
	}, nil)
}

// AppendContextEdit replaces (or, with a nil replacement, omits) the model
// context contribution of an earlier user, assistant, tool-result or
// custom-message entry on the active branch.
func (m *Manager) AppendContextEdit(targetID string, replacement *llm.Content) (string, error) {
	return m.appendEntry(TypeContextEdit, func(string) (any, error) {
		t := m.byID[targetID]
		if t == nil {
			return nil, fmt.Errorf("context edit: entry %q does not exist", targetID)
		}
		onBranch := false
		for _, e := range m.pathTo(m.leaf) {
			if e.ID == targetID {
				onBranch = true
				break
			}
		}
		if !onBranch {
			return nil, fmt.Errorf("context edit: entry %q is not on the active branch", targetID)
		}
		editable := t.Type == TypeCustomMessage || t.Type == TypeMessage &&
			(t.role == llm.RoleUser || t.role == llm.RoleAssistant || t.role == llm.RoleToolResult)
		if !editable {
			return nil, fmt.Errorf("context edit: entry %q (%s) is not a user, assistant, tool-result or custom message", targetID, describe(t))
		}
		w := contextEditWire{TargetID: targetID}
		if replacement != nil {
			w.Replacement = &replacementWire{*replacement}
		}
		return w, nil
	}, nil)
}

func describe(e *Entry) string {
	if e.Type == TypeMessage {
		return e.role + " message"
	}
	return e.Type
}

// AppendLabel sets (or, with "", clears) the label of entry targetID.
func (m *Manager) AppendLabel(targetID, label string) (string, error) {
	return m.appendEntry(TypeLabel, func(string) (any, error) {
		if m.byID[targetID] == nil {
			return nil, fmt.Errorf("label: entry %q does not exist", targetID)
		}
		l := Label{TargetID: targetID}
		if label != "" {
			l.Label = &label
		}
		return l, nil
	}, nil)
}

// AppendSessionInfo sets the session name (newlines become spaces; ""
// clears it).
func (m *Manager) AppendSessionInfo(name string) (string, error) {
	name = strings.TrimSpace(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(name))
	return m.appendEntry(TypeSessionInfo, func(string) (any, error) {
		si := SessionInfoEntry{}
		if name != "" {
			si.Name = &name
		}
		return si, nil
	}, nil)
}

// SetLeaf moves the leaf to entry id; the next append branches from it.
func (m *Manager) SetLeaf(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byID[id] == nil {
		return fmt.Errorf("branch: entry %q does not exist", id)
	}
	m.leaf = id
	return nil
}

// ResetLeaf clears the leaf: the next append starts a new root.
func (m *Manager) ResetLeaf() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.leaf = ""
}

// BranchWithSummary moves to id ("" = a new root) and appends a
// branch_summary of the path being left; fromId is the previous leaf (or
// "root").
func (m *Manager) BranchWithSummary(id, summary string, details any, fromHook bool, usage *llm.Usage) (string, error) {
	d, err := marshalAny(details)
	if err != nil {
		return "", fmt.Errorf("branch summary: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if id != "" && m.byID[id] == nil {
		return "", fmt.Errorf("branch: entry %q does not exist", id)
	}
	from := m.leaf
	if from == "" {
		from = "root"
	}
	return m.appendLocked(TypeBranchSummary, id, func(string) (any, error) {
		return BranchSummary{FromID: from, Summary: summary, Details: d, FromHook: fromHook, Usage: usage}, nil
	}, nil)
}

// CreateBranchedSession writes the path root->leafID into a new session
// file (header parentSession = this file) and switches to it. It returns
// the new file's path ("" for in-memory sessions, which switch in memory).
func (m *Manager) CreateBranchedSession(leafID string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byID[leafID] == nil {
		return "", fmt.Errorf("branched session: entry %q does not exist", leafID)
	}
	if !m.persist && m.path != "" {
		return "", fmt.Errorf("branched session from %s: %w", m.path, ErrReadOnly)
	}
	if m.persist && m.flushed && m.app != nil {
		// Entries whose write failed must reach this file before it is
		// left behind.
		if err := m.writeBacklogLocked(); err != nil {
			return "", err
		}
	}
	path := m.pathTo(leafID)
	now := m.now()
	parent := ""
	if m.persist {
		parent = m.path
	}
	id := NewSessionID()
	nm := newManager(m.cwd, m.dir, m.persist)
	nm.now = m.now
	nm.header = newHeader(id, m.cwd, parent, now)
	if m.persist {
		nm.path = filepath.Join(m.dir, FileName(now, id))
	}
	for i, e := range path {
		c := copyEntry(e)
		if i == 0 && c.ParentID != "" {
			// A root whose recorded parent is missing: make it a real root.
			ms, _ := jsonx.Members(c.raw)
			c, _ = parseEntry(jsonx.Rewrite(c.raw, ms, nil, map[string][]byte{"parentId": []byte("null")}, nil), 0)
		}
		nm.index(c)
	}
	nm.leaf = leafID
	// Labels of entries on the path come along.
	for _, e := range path {
		if l, _ := m.labelOf(e.ID); l != "" {
			label := l
			if _, err := nm.appendLocked(TypeLabel, nm.leaf, func(string) (any, error) {
				return Label{TargetID: e.ID, Label: &label}, nil
			}, nil); err != nil {
				return "", err
			}
		}
	}
	if err := nm.flushLocked(); err != nil {
		return "", err
	}
	old := m.app
	m.header, m.path, m.app, m.flushed, m.unwritten = nm.header, nm.path, nm.app, nm.flushed, nm.unwritten
	m.entries, m.byID, m.children, m.leaf = nm.entries, nm.byID, nm.children, nm.leaf
	m.problems = nil
	if old != nil {
		old.close()
	}
	return m.path, nil
}

// Clone copies the active branch into a new session (see
// CreateBranchedSession).
func (m *Manager) Clone() (string, error) {
	leaf := m.LeafID()
	if leaf == "" {
		return "", fmt.Errorf("clone: the session has no entries")
	}
	return m.CreateBranchedSession(leaf)
}
