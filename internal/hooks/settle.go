package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/relay-agent/relay/internal/llm"
)

// Entry draft types (spec: agent_before_settle's entries).
const (
	DraftCustom        = "custom"
	DraftCustomMessage = "custom_message"
	DraftContextEdit   = "context_edit"
	DraftCompaction    = "compaction"
)

// EntryDraft is a session entry a settle handler proposes: custom state
// (appendEntry), a custom message the model sees, a context edit of an
// earlier entry, or a compaction. The runtime appends them in order
// before the agent settles.
type EntryDraft struct {
	Type       string `json:"type"`
	CustomType string `json:"customType,omitempty"`
	// Data is a custom entry's state.
	Data json.RawMessage `json:"data,omitempty"`
	// Content, Display and Details make a custom message.
	Content *llm.Content    `json:"content,omitempty"`
	Display bool            `json:"display,omitempty"`
	Details json.RawMessage `json:"details,omitempty"`
	// TargetID and Replacement make a context edit: a nil Replacement
	// omits the target from the model's context.
	TargetID    string       `json:"targetId,omitempty"`
	Replacement *Replacement `json:"replacement,omitempty"`
	// Summary, FirstKeptEntryID (nil keeps nothing before the compaction),
	// Details and Usage make a compaction.
	Summary          string     `json:"summary,omitempty"`
	FirstKeptEntryID *string    `json:"firstKeptEntryId,omitempty"`
	Usage            *llm.Usage `json:"usage,omitempty"`
}

// Replacement is a context edit's new content for its target.
type Replacement struct {
	Content llm.Content `json:"content"`
}

// Validate checks a draft's shape (whether its target exists is the
// session's to say when it is appended).
func (d EntryDraft) Validate() error {
	switch d.Type {
	case DraftCustom:
		if d.CustomType == "" {
			return errors.New("custom entry without customType")
		}
	case DraftCustomMessage:
		if d.CustomType == "" {
			return errors.New("custom_message entry without customType")
		}
		if d.Content == nil {
			return errors.New("custom_message entry without content")
		}
	case DraftContextEdit:
		if d.TargetID == "" {
			return errors.New("context_edit entry without targetId")
		}
	case DraftCompaction:
		if d.Summary == "" {
			return errors.New("compaction entry without summary")
		}
	default:
		return fmt.Errorf("unknown entry type %q (custom, custom_message, context_edit or compaction)", d.Type)
	}
	return nil
}

// RunSettle asks every handler in order. Each sees the drafts and the
// continue decision so far; a non-nil Entries replaces the drafts, Continue
// and Stop set the decision (the last one wins), the first follow-up
// message is kept. A handler whose drafts are invalid is reported; the
// result is then invalid (no entries, no continuation) unless a later
// handler replaces them with valid ones.
func (s *Set) RunSettle(ctx context.Context, e Settle) SettleResult {
	var followUp string
	valid := true
	s.Settle.each(ctx, &e, func(source string, r SettleResult) bool {
		if r.Entries != nil {
			e.Entries = r.Entries
			valid = true
			for i, d := range r.Entries {
				if err := d.Validate(); err != nil {
					s.report(s.Settle.name, source, fmt.Errorf("invalid entry %d: %w", i, err))
					valid = false
					break
				}
			}
		}
		switch {
		case r.Stop:
			e.Continue, followUp = false, ""
		case r.Continue:
			e.Continue = true
			if followUp == "" {
				followUp = r.FollowUp
			}
		}
		return false
	}, nil)
	if !valid {
		return SettleResult{}
	}
	return SettleResult{Continue: e.Continue, FollowUp: followUp, Entries: e.Entries}
}
