package compaction

import (
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// Texts that start the error of a compaction with nothing to do; front
// ends show such an outcome as a notice, not as a failure.
const (
	NothingToCompact = "Nothing to compact"
	AlreadyCompacted = "Already compacted"
)

// NothingToDo reports whether a compaction error message only says there
// was nothing to compact.
func NothingToDo(errorMessage string) bool {
	return strings.HasPrefix(errorMessage, NothingToCompact) || strings.HasPrefix(errorMessage, AlreadyCompacted)
}

// Item is one session entry of the projected branch, as compaction sees it.
type Item struct {
	EntryID string
	// Type is the session entry type ("message", "compaction", "custom", ...).
	Type string
	// Messages are the context messages the entry contributes after context
	// edits (none for metadata or omitted targets).
	Messages []llm.Message
	// Omitted is true when a context edit removed the entry from context.
	Omitted bool
	// Replaced is true when a context edit replaced its content.
	Replaced bool
}

func (it Item) tokens() int {
	n := 0
	for _, m := range it.Messages {
		n += EstimateMessage(m)
	}
	return n
}

func (it Item) isCutPoint() bool {
	if it.Type == "compaction" {
		return false
	}
	for _, m := range it.Messages {
		switch m.MessageRole() {
		case llm.RoleUser, llm.RoleAssistant, llm.RoleBashExecution, llm.RoleCustom, llm.RoleBranchSummary, llm.RoleCompactionSummary:
			return true
		}
	}
	return false
}

func (it Item) isTurnStart() bool {
	for _, m := range it.Messages {
		switch m.MessageRole() {
		case llm.RoleUser, llm.RoleBashExecution, llm.RoleCustom, llm.RoleBranchSummary, llm.RoleCompactionSummary:
			return true
		}
	}
	return false
}

// Cut is where a compaction splits the region.
type Cut struct {
	// FirstKept is the index of the first retained item.
	FirstKept int
	// TurnStart is the index of the turn the cut splits, or -1.
	TurnStart int
	// Summarize are the messages to summarize (region start up to the turn
	// start or the cut), system messages dropped.
	Summarize []llm.Message
	// TurnPrefix are the messages of a split turn before the cut.
	TurnPrefix []llm.Message
}

// Empty reports whether there is nothing to summarize.
func (c Cut) Empty() bool { return len(c.Summarize) == 0 && len(c.TurnPrefix) == 0 }

// FindCut chooses the cut point in region (the items after the newest
// compaction), keeping about keepRecent tokens verbatim. ok is false when
// nothing can be compacted.
func FindCut(region []Item, keepRecent int) (Cut, bool) {
	if len(region) == 0 {
		return Cut{}, false
	}
	var points []int
	for i, it := range region {
		if it.isCutPoint() {
			points = append(points, i)
		}
	}
	if len(points) == 0 {
		return Cut{}, false
	}
	cut := points[0]
	exceeded := false
	sum := 0
	for i := len(region) - 1; i >= 0; i-- {
		t := region[i].tokens()
		if t == 0 {
			continue
		}
		sum += t
		if sum >= keepRecent {
			exceeded = true
			cut = points[len(points)-1]
			for _, p := range points {
				if p >= i {
					cut = p
					break
				}
			}
			break
		}
	}
	if exceeded {
		// Nothing visible would stay after the cut: keep going one entry so
		// the compaction is not a no-op on a failed attempt.
		invisible := true
		for _, it := range region[cut:] {
			if len(it.Messages) > 0 && !(it.Omitted && it.Type == "message") {
				invisible = false
				break
			}
		}
		if invisible && cut+1 < len(region) {
			cut++
		}
	}
	turnStart := -1
	if !region[cut].isTurnStart() {
		for i := cut; i >= 0; i-- {
			if region[i].isTurnStart() {
				turnStart = i
				break
			}
		}
	}
	// Pull the cut back over directly preceding metadata so labels and
	// model changes stay with the entries they precede.
	for cut > 0 && turnStart < 0 {
		prev := region[cut-1]
		if prev.Type == "compaction" || len(prev.Messages) > 0 || prev.Omitted {
			break
		}
		cut--
	}
	end := cut
	if turnStart >= 0 {
		end = turnStart
	}
	c := Cut{FirstKept: cut, TurnStart: turnStart}
	c.Summarize = collect(region[:end])
	if turnStart >= 0 {
		c.TurnPrefix = collect(region[turnStart:cut])
	}
	if c.Empty() {
		return c, false
	}
	return c, true
}

// CutAll summarizes the whole region and keeps nothing of it: a manual
// compaction of a conversation shorter than keepRecent compacts what there
// is, as the original does. FirstKept is len(region) (retain-none). ok is
// false when the region has no message to summarize.
func CutAll(region []Item) (Cut, bool) {
	c := Cut{FirstKept: len(region), TurnStart: -1, Summarize: collect(region)}
	return c, !c.Empty()
}

func collect(items []Item) []llm.Message {
	var out []llm.Message
	for _, it := range items {
		for _, m := range it.Messages {
			if m.MessageRole() == llm.RoleSystem {
				continue
			}
			out = append(out, m)
		}
	}
	return out
}
