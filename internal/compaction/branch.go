package compaction

import (
	"context"
	"errors"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// BranchPreface introduces a branch summary.
const BranchPreface = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"

const branchFormat = `## Goal
[What was the user trying to accomplish in this branch?]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned]
- [Or "(none)" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Work that was started but not finished]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [What should happen next to continue this work]

Keep each section concise. Preserve exact file paths, function names, and error messages.`

// BranchInstructions ask for a summary of an abandoned branch.
const BranchInstructions = `Create a structured summary of this conversation branch for context when returning later.

Use this EXACT format:

` + branchFormat

// ErrNoContent means the abandoned branch had nothing to summarize.
var ErrNoContent = errors.New("No content to summarize")

// BranchRequest describes a branch summary.
type BranchRequest struct {
	Model         *llm.Model
	SessionID     string
	ReserveTokens int
	// Items are the abandoned entries, oldest first.
	Items               []Item
	CustomInstructions  string
	ReplaceInstructions bool
	// Seed holds file details of nested relay-made branch summaries.
	Seed *FileDetails
}

// SelectBranchMessages picks the newest messages of the abandoned branch
// that fit the budget, in chronological order.
func SelectBranchMessages(items []Item, budget int) []llm.Message {
	var picked [][]llm.Message
	total := 0
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		var msgs []llm.Message
		isSummary := false
		for _, m := range it.Messages {
			switch m.MessageRole() {
			case llm.RoleToolResult, llm.RoleSystem:
				continue
			case llm.RoleCompactionSummary, llm.RoleBranchSummary:
				isSummary = true
			}
			msgs = append(msgs, m)
		}
		if len(msgs) == 0 {
			continue
		}
		n := 0
		for _, m := range msgs {
			n += EstimateMessage(m)
		}
		if total+n > budget {
			if isSummary && total < budget*9/10 {
				picked = append(picked, msgs)
				total += n
			}
			break
		}
		picked = append(picked, msgs)
		total += n
	}
	var out []llm.Message
	for i := len(picked) - 1; i >= 0; i-- {
		out = append(out, picked[i]...)
	}
	return out
}

// SummarizeBranch generates a branch summary and its file details.
func SummarizeBranch(ctx context.Context, call Summarizer, r BranchRequest, ts int64) (string, FileDetails, llm.Usage, error) {
	window := r.Model.ContextWindow
	if window <= 0 {
		window = 128000
	}
	msgs := SelectBranchMessages(r.Items, window-r.ReserveTokens)
	if len(msgs) == 0 {
		return "", FileDetails{}, llm.Usage{}, ErrNoContent
	}
	tracker := NewFileTracker(r.Seed)
	for _, it := range r.Items {
		tracker.Add(it.Messages)
	}
	instructions := BranchInstructions
	custom := r.CustomInstructions
	if r.ReplaceInstructions && custom != "" {
		instructions, custom = custom, ""
	}
	prompt := buildPrompt(msgs, "", instructions, custom)
	maxTokens := 4096
	if r.Model.MaxTokens > 0 && r.Model.MaxTokens < maxTokens {
		maxTokens = r.Model.MaxTokens
	}
	req := summaryRequest(Request{Model: r.Model, SessionID: r.SessionID}, prompt, maxTokens, ts)
	req.ThinkingLevel = llm.ThinkingOff
	reply := call(ctx, req)
	text, err := checkReply(reply)
	if err != nil {
		return "", FileDetails{}, reply.Usage, err
	}
	d := tracker.Details()
	return AppendFileLists(BranchPreface+strings.TrimSpace(text), d), d, reply.Usage, nil
}
