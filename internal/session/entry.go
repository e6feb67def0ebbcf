// Package session owns relay's session files: the v3 JSONL format, the
// entry tree and its leaf, context building, migration of older versions,
// the append-only store with its lock, the tolerant reader and listing.
package session

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/jsonx"
	"github.com/relay-agent/relay/internal/llm"
)

// CurrentVersion is the session format version relay writes.
const CurrentVersion = 3

// Entry types of session-format.md.
const (
	TypeSession             = "session"
	TypeMessage             = "message"
	TypeModelChange         = "model_change"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeUsage               = "usage"
	TypeCompaction          = "compaction"
	TypeContextEdit         = "context_edit"
	TypeBranchSummary       = "branch_summary"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"
)

// Header is the first line of a session file.
type Header struct {
	Version       int
	ID            string
	Timestamp     string
	Cwd           string
	ParentSession string

	raw []byte
}

// Raw returns the header line as stored (or as it will be written).
func (h *Header) Raw() []byte { return h.raw }

// MarshalJSON writes the stored line, so unknown header fields survive.
func (h *Header) MarshalJSON() ([]byte, error) { return h.raw, nil }

type headerWire struct {
	Type          string `json:"type"`
	Version       int    `json:"version"`
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession,omitempty"`
}

func newHeader(id, cwd, parent string, now time.Time) *Header {
	h := &Header{Version: CurrentVersion, ID: id, Timestamp: isoTime(now), Cwd: cwd, ParentSession: parent}
	h.raw, _ = llm.Marshal(headerWire{TypeSession, h.Version, h.ID, h.Timestamp, h.Cwd, h.ParentSession})
	return h
}

// parseHeader reads a header record; ok is false when b is not one.
func parseHeader(b []byte, ms []jsonx.Member) (*Header, bool) {
	t, _ := jsonx.FindString(b, ms, "type")
	if t != TypeSession {
		return nil, false
	}
	h := &Header{raw: b, Version: 1}
	var ok bool
	if h.ID, ok = jsonx.FindString(b, ms, "id"); !ok {
		return nil, false
	}
	h.Timestamp, _ = jsonx.FindString(b, ms, "timestamp")
	h.Cwd, _ = jsonx.FindString(b, ms, "cwd")
	h.ParentSession, _ = jsonx.FindString(b, ms, "parentSession")
	if v, ok := jsonx.Find(b, ms, "version"); ok {
		var n int
		if err := json.Unmarshal(v, &n); err == nil {
			h.Version = n
		}
	}
	return h, true
}

// Entry is one record of the session tree. It keeps the line exactly as it
// was read or written, so unknown types and fields survive untouched; the
// typed body is decoded on demand.
type Entry struct {
	Type      string
	ID        string
	ParentID  string // "" for a root (parentId null)
	Timestamp string
	// Line is the 1-based line number in the file the entry was read from
	// (0 for entries not read from a file).
	Line int

	raw    []byte
	msgRaw []byte // "message" value of message entries
	// shared: raw is part of a session file read whole into the heap and
	// never modified, so decoded strings may be views of it instead of a
	// second copy of the text (see parseSession). Records of a mapped
	// file (listing) or of a caller's buffer are copied.
	shared  bool
	role    string
	msgOnce sync.Once
	msg     llm.Message
	msgErr  error
	body    any // decoded body of known non-message types
	bodyErr error
}

// Raw returns the record as stored, without the trailing LF.
func (e *Entry) Raw() []byte { return e.raw }

// MarshalJSON writes the stored record.
func (e *Entry) MarshalJSON() ([]byte, error) { return e.raw, nil }

// Role returns the message role of a message entry ("" otherwise).
func (e *Entry) Role() string { return e.role }

// Time parses the entry timestamp (zero on a malformed value).
func (e *Entry) Time() time.Time { return parseISO(e.Timestamp) }

// Message decodes the message of a message entry (once; later calls return
// the cached value). It returns nil, nil for other entry types.
func (e *Entry) Message() (llm.Message, error) {
	if e.Type != TypeMessage {
		return nil, nil
	}
	e.msgOnce.Do(func() {
		if e.msg != nil {
			return
		}
		e.msg, e.msgErr = decodeMessage(e.msgRaw, e.shared)
		if e.msgErr != nil {
			e.msgErr = fmt.Errorf("entry %s (line %d): %w", e.ID, e.Line, e.msgErr)
		}
	})
	return e.msg, e.msgErr
}

// DecodeMessage decodes the message of a message entry anew on every call,
// without caching it: one-pass readers of a large session (the HTML export)
// use it so every decoded message does not stay alive with the entry. It
// returns nil, nil for other entry types.
func (e *Entry) DecodeMessage() (llm.Message, error) {
	if e.Type != TypeMessage {
		return nil, nil
	}
	m, err := decodeMessage(e.msgRaw, e.shared)
	if err != nil {
		return nil, fmt.Errorf("entry %s (line %d): %w", e.ID, e.Line, err)
	}
	return m, nil
}

func decodeMessage(raw []byte, shared bool) (llm.Message, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("message entry without a message")
	}
	if shared {
		return llm.DecodeMessageShared(raw)
	}
	return llm.DecodeMessage(raw)
}

// ModelChange is the body of a model_change entry.
type ModelChange struct {
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
}

// ThinkingLevelChange is the body of a thinking_level_change entry.
type ThinkingLevelChange struct {
	ThinkingLevel string `json:"thinkingLevel"`
}

// Usage is the body of a usage entry.
type Usage struct {
	Kind     string    `json:"kind"`
	Provider string    `json:"provider"`
	Model    string    `json:"model"`
	Usage    llm.Usage `json:"usage"`
	Note     string    `json:"note,omitempty"`
}

// Compaction is the body of a compaction entry.
type Compaction struct {
	Summary          string             `json:"summary"`
	FirstKeptEntryID string             `json:"firstKeptEntryId"`
	TokensBefore     int                `json:"tokensBefore"`
	Details          json.RawMessage    `json:"details,omitempty"`
	Usage            *llm.Usage         `json:"usage,omitempty"`
	FromHook         bool               `json:"fromHook,omitempty"`
	SystemMessage    *llm.SystemMessage `json:"systemMessage,omitempty"`
}

// ContextEdit is the body of a context_edit entry. A nil Replacement omits
// the target from model context.
type ContextEdit struct {
	TargetID    string
	Replacement *llm.Content
}

type contextEditWire struct {
	TargetID    string           `json:"targetId"`
	Replacement *replacementWire `json:"replacement"`
}

type replacementWire struct {
	Content llm.Content `json:"content"`
}

// BranchSummary is the body of a branch_summary entry.
type BranchSummary struct {
	FromID   string          `json:"fromId"`
	Summary  string          `json:"summary"`
	Details  json.RawMessage `json:"details,omitempty"`
	Usage    *llm.Usage      `json:"usage,omitempty"`
	FromHook bool            `json:"fromHook,omitempty"`
}

// Custom is the body of a custom entry (extension state, never context).
type Custom struct {
	CustomType string          `json:"customType"`
	Data       json.RawMessage `json:"data,omitempty"`
}

// CustomMessage is the body of a custom_message entry.
type CustomMessage struct {
	CustomType string          `json:"customType"`
	Content    llm.Content     `json:"content"`
	Display    bool            `json:"display"`
	Details    json.RawMessage `json:"details,omitempty"`
}

// Label is the body of a label entry; a nil Label clears it.
type Label struct {
	TargetID string  `json:"targetId"`
	Label    *string `json:"label,omitempty"`
}

// SessionInfoEntry is the body of a session_info entry.
type SessionInfoEntry struct {
	Name *string `json:"name,omitempty"`
}

// Typed bodies. Each returns nil when the entry has another type (or its
// body could not be decoded; the reader reports that as a problem).

func (e *Entry) ModelChange() *ModelChange { b, _ := e.body.(*ModelChange); return b }
func (e *Entry) ThinkingLevelChange() *ThinkingLevelChange {
	b, _ := e.body.(*ThinkingLevelChange)
	return b
}
func (e *Entry) Usage() *Usage                  { b, _ := e.body.(*Usage); return b }
func (e *Entry) Compaction() *Compaction        { b, _ := e.body.(*Compaction); return b }
func (e *Entry) ContextEdit() *ContextEdit      { b, _ := e.body.(*ContextEdit); return b }
func (e *Entry) BranchSummary() *BranchSummary  { b, _ := e.body.(*BranchSummary); return b }
func (e *Entry) Custom() *Custom                { b, _ := e.body.(*Custom); return b }
func (e *Entry) CustomMessage() *CustomMessage  { b, _ := e.body.(*CustomMessage); return b }
func (e *Entry) Label() *Label                  { b, _ := e.body.(*Label); return b }
func (e *Entry) SessionInfo() *SessionInfoEntry { b, _ := e.body.(*SessionInfoEntry); return b }

// parseEntry builds an Entry from one record (not a header). It fails only
// when the record is not a usable entry; unknown types are fine.
func parseEntry(b []byte, line int) (*Entry, error) {
	ms, err := jsonx.Members(b)
	if err != nil {
		return nil, err
	}
	return entryFromMembers(b, ms, line)
}

func entryFromMembers(b []byte, ms []jsonx.Member, line int) (*Entry, error) {
	e := &Entry{raw: b, Line: line}
	var ok bool
	if e.Type, ok = jsonx.FindString(b, ms, "type"); !ok {
		return nil, fmt.Errorf("record has no \"type\"")
	}
	if e.ID, ok = jsonx.FindString(b, ms, "id"); !ok || e.ID == "" {
		return nil, fmt.Errorf("%s entry has no \"id\"", e.Type)
	}
	if v, ok := jsonx.Find(b, ms, "parentId"); ok && string(v) != "null" {
		if e.ParentID, ok = jsonx.StringValue(v); !ok {
			return nil, fmt.Errorf("entry %s: \"parentId\" is not a string or null", e.ID)
		}
	}
	e.Timestamp, _ = jsonx.FindString(b, ms, "timestamp")
	if e.Type == TypeMessage {
		v, ok := jsonx.Find(b, ms, "message")
		if !ok || len(v) == 0 || v[0] != '{' {
			return nil, fmt.Errorf("message entry %s has no message object", e.ID)
		}
		e.msgRaw = v
		e.role = peekRole(v)
		return e, nil
	}
	if err := e.decodeBody(); err != nil {
		// Keep the entry in the tree (its children still hang from it); the
		// reader reports the bad body with its line number.
		e.bodyErr = fmt.Errorf("%s entry %s: %w", e.Type, e.ID, err)
	}
	return e, nil
}

// peekRole reads "role" of a message object without decoding it.
func peekRole(v []byte) string {
	const prefix = `{"role":"`
	if len(v) > len(prefix) && string(v[:len(prefix)]) == prefix {
		rest := v[len(prefix):]
		for i, c := range rest {
			if c == '"' {
				return string(rest[:i])
			}
			if c == '\\' {
				break
			}
		}
	}
	ms, err := jsonx.Members(v)
	if err != nil {
		return ""
	}
	r, _ := jsonx.FindString(v, ms, "role")
	return r
}

func (e *Entry) decodeBody() error {
	var err error
	switch e.Type {
	case TypeModelChange:
		var b ModelChange
		err = json.Unmarshal(e.raw, &b)
		e.body = &b
	case TypeThinkingLevelChange:
		var b ThinkingLevelChange
		err = json.Unmarshal(e.raw, &b)
		e.body = &b
	case TypeUsage:
		var b Usage
		err = json.Unmarshal(e.raw, &b)
		e.body = &b
	case TypeCompaction:
		var b Compaction
		err = json.Unmarshal(e.raw, &b)
		e.body = &b
	case TypeContextEdit:
		var w contextEditWire
		err = json.Unmarshal(e.raw, &w)
		b := &ContextEdit{TargetID: w.TargetID}
		if w.Replacement != nil {
			c := w.Replacement.Content
			b.Replacement = &c
		}
		e.body = b
	case TypeBranchSummary:
		var b BranchSummary
		err = json.Unmarshal(e.raw, &b)
		e.body = &b
	case TypeCustom:
		var b Custom
		err = json.Unmarshal(e.raw, &b)
		e.body = &b
	case TypeCustomMessage:
		var b CustomMessage
		err = json.Unmarshal(e.raw, &b)
		e.body = &b
	case TypeLabel:
		var b Label
		err = json.Unmarshal(e.raw, &b)
		e.body = &b
	case TypeSessionInfo:
		var b SessionInfoEntry
		err = json.Unmarshal(e.raw, &b)
		e.body = &b
	}
	if err != nil {
		e.body = nil
	}
	return err
}

const isoLayout = "2006-01-02T15:04:05.000Z"

func isoTime(t time.Time) string { return t.UTC().Format(isoLayout) }

func parseISO(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
