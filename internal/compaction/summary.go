package compaction

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/relay-agent/relay/internal/llm"
)

// SystemPrompt makes the model a summarizer that never continues the
// conversation.
const SystemPrompt = `You are a context summarization assistant. Your task is to read a conversation between a user and an AI coding assistant, then produce a structured summary following the exact format specified.

Do NOT continue the conversation. Do NOT respond to any questions in the conversation. ONLY output the structured summary.`

const summaryFormat = `## Goal
[What is the user trying to accomplish? Can be multiple items if the session covers different tasks.]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned by the user]
- [Or "(none)" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Current work]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [Ordered list of what should happen next]

## Critical Context
- [Any data, examples, or references needed to continue]
- [Or "(none)" if not applicable]

Keep each section concise. Preserve exact file paths, function names, and error messages.`

// InitialInstructions ask for a fresh structured summary.
const InitialInstructions = `The messages above are a conversation to summarize. Create a structured context checkpoint summary that another LLM will use to continue the work.

Use this EXACT format:

` + summaryFormat

// UpdateInstructions merge new messages into a previous summary.
const UpdateInstructions = `The messages above are NEW conversation messages to incorporate into the existing summary provided in <previous-summary> tags.

Update the existing structured summary with new information. RULES:
- PRESERVE all existing information from the previous summary
- ADD new progress, decisions, and context from the new messages
- UPDATE the Progress section: move items from "In Progress" to "Done" when completed
- UPDATE "Next Steps" based on what was accomplished
- PRESERVE exact file paths, function names, and error messages
- If something is no longer relevant, you may remove it

Use this EXACT format:

` + summaryFormat

// TurnPrefixInstructions summarize the first part of a turn that was split.
const TurnPrefixInstructions = `This is the PREFIX of a turn that was too large to keep. The SUFFIX (recent work) is retained.

Summarize the prefix to provide context for the retained suffix:

## Original Request
[What did the user ask for in this turn?]

## Progress So Far
- [Key decisions and work done in the prefix]

## Context Needed to Continue
- [Information from the prefix needed to understand the retained suffix]

Be concise. Focus only on what is shown above.`

const toolResultMaxChars = 2000

// Serialize renders messages as the labelled transcript summaries read.
func Serialize(msgs []llm.Message) string {
	var parts []string
	for _, m := range llm.ToModelMessages(msgs) {
		switch v := m.(type) {
		case *llm.UserMessage:
			if t := v.Content.PlainText(); t != "" {
				parts = append(parts, "[User]: "+t)
			}
		case *llm.AssistantMessage:
			var text, thinking []string
			var calls []string
			for _, b := range v.Content {
				switch c := b.(type) {
				case *llm.TextContent:
					text = append(text, c.Text)
				case *llm.ThinkingContent:
					if !c.Redacted {
						thinking = append(thinking, c.Thinking)
					}
				case *llm.ToolCall:
					calls = append(calls, formatCall(c))
				}
			}
			if len(thinking) > 0 {
				parts = append(parts, "[Assistant thinking]: "+strings.Join(thinking, "\n"))
			}
			if len(text) > 0 {
				parts = append(parts, "[Assistant]: "+strings.Join(text, "\n"))
			}
			if len(calls) > 0 {
				parts = append(parts, "[Assistant tool calls]: "+strings.Join(calls, "; "))
			}
		case *llm.ToolResultMessage:
			t := v.Content.PlainText()
			if len(t) > toolResultMaxChars {
				dropped := len(t) - toolResultMaxChars
				t = t[:toolResultMaxChars] + fmt.Sprintf("\n[... %d more characters truncated]", dropped)
			}
			if t != "" {
				parts = append(parts, "[Tool result]: "+t)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

func formatCall(c *llm.ToolCall) string {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(c.Arguments, &obj); err != nil {
		return c.Name + "(" + string(c.Arguments) + ")"
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	// Keep the model's argument order when we can recover it.
	order := map[string]int{}
	i := 0
	for _, k := range orderedKeys(c.Arguments) {
		order[k] = i
		i++
	}
	sort.Slice(keys, func(a, b int) bool { return order[keys[a]] < order[keys[b]] })
	args := make([]string, 0, len(keys))
	for _, k := range keys {
		args = append(args, k+"="+string(obj[k]))
	}
	return c.Name + "(" + strings.Join(args, ", ") + ")"
}

func orderedKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var keys []string
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		if k, ok := t.(string); ok {
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}

// Summarizer calls the model for one summary request.
type Summarizer func(ctx context.Context, req *llm.Request) *llm.AssistantMessage

// ErrNothing means there was nothing to summarize.
var ErrNothing = errors.New("nothing to compact")

// Request describes one summary to generate.
type Request struct {
	Model              *llm.Model
	ThinkingLevel      llm.ThinkingLevel
	SessionID          string
	Messages           []llm.Message
	PreviousSummary    string
	CustomInstructions string
	ReserveTokens      int
}

func buildPrompt(msgs []llm.Message, previous, instructions, custom string) string {
	var b strings.Builder
	b.WriteString("<conversation>\n")
	b.WriteString(Serialize(msgs))
	b.WriteString("\n</conversation>\n\n")
	if previous != "" {
		b.WriteString("<previous-summary>\n" + previous + "\n</previous-summary>\n\n")
	}
	b.WriteString(instructions)
	if custom != "" {
		b.WriteString("\n\nAdditional focus: " + custom)
	}
	return b.String()
}

func summaryRequest(r Request, prompt string, maxTokens int, ts int64) *llm.Request {
	req := &llm.Request{
		Model:          r.Model,
		SystemPrompt:   SystemPrompt,
		Messages:       []llm.Message{&llm.UserMessage{Content: llm.BlockContent(&llm.TextContent{Text: prompt}), Timestamp: ts}},
		MaxTokens:      maxTokens,
		CacheRetention: llm.CacheNone,
		SessionID:      r.SessionID,
		ThinkingLevel:  llm.ThinkingOff,
	}
	if r.Model.Reasoning && r.ThinkingLevel != "" && r.ThinkingLevel != llm.ThinkingOff {
		req.ThinkingLevel = r.ThinkingLevel
	}
	return req
}

// checkReply turns a summary response into text or a failure.
func checkReply(m *llm.AssistantMessage) (string, error) {
	switch m.StopReason {
	case llm.StopError:
		return "", fmt.Errorf("Summarization failed: %s", m.ErrorMessage)
	case llm.StopAborted:
		return "", context.Canceled
	case llm.StopLength:
		return "", errors.New("Summarization failed: the summary hit the output token limit")
	}
	if len(m.ToolCalls()) > 0 {
		return "", errors.New("Summarization failed: the model called a tool instead of writing a summary")
	}
	text := strings.TrimSpace(m.Text())
	if text == "" {
		return "", errors.New("Summarization failed: the model returned an empty summary")
	}
	return text, nil
}

func minInt(a, b int) int {
	if b > 0 && b < a {
		return b
	}
	return a
}

// Summarize generates the history summary (and, for a split turn, the
// prefix summary) and returns the combined text and the total usage.
func Summarize(ctx context.Context, call Summarizer, r Request, cut Cut, ts int64) (string, llm.Usage, error) {
	var usage llm.Usage
	history := r.PreviousSummary
	if len(cut.Summarize) > 0 {
		instructions := InitialInstructions
		if r.PreviousSummary != "" {
			instructions = UpdateInstructions
		}
		prompt := buildPrompt(cut.Summarize, r.PreviousSummary, instructions, r.CustomInstructions)
		reply := call(ctx, summaryRequest(r, prompt, minInt(r.ReserveTokens*8/10, r.Model.MaxTokens), ts))
		usage.Add(reply.Usage)
		text, err := checkReply(reply)
		if err != nil {
			return "", usage, err
		}
		history = text
	}
	if len(cut.TurnPrefix) == 0 {
		return history, usage, nil
	}
	prompt := buildPrompt(cut.TurnPrefix, "", TurnPrefixInstructions, "")
	reply := call(ctx, summaryRequest(r, prompt, minInt(r.ReserveTokens*5/10, r.Model.MaxTokens), ts))
	usage.Add(reply.Usage)
	prefix, err := checkReply(reply)
	if err != nil {
		return "", usage, err
	}
	if history == "" {
		history = "No prior history."
	}
	return history + "\n\n---\n\n**Turn Context (split turn):**\n\n" + prefix, usage, nil
}
