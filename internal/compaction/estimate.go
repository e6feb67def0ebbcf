// Package compaction estimates context size, chooses what to summarize,
// and produces compaction and branch summaries with the model.
package compaction

import (
	"github.com/relay-agent/relay/internal/llm"
)

// imageChars is what one image counts for in estimates.
const imageChars = 4800

func ceilDiv4(n int) int { return (n + 3) / 4 }

func blocksChars(bs llm.Blocks) int {
	n := 0
	for _, b := range bs {
		switch v := b.(type) {
		case *llm.TextContent:
			n += len(v.Text)
		case *llm.ImageContent:
			n += imageChars
		case *llm.ThinkingContent:
			n += len(v.Thinking)
		case *llm.ToolCall:
			n += len(v.Name) + len(v.Arguments)
		}
	}
	return n
}

func contentChars(c llm.Content) int {
	if c.IsString {
		return len(c.Text)
	}
	return blocksChars(c.Blocks)
}

// EstimateMessage returns ceil(chars/4) tokens for one message, counting
// each image as 4800 characters.
func EstimateMessage(m llm.Message) int {
	switch v := m.(type) {
	case *llm.UserMessage:
		return ceilDiv4(contentChars(v.Content))
	case *llm.CustomMessage:
		return ceilDiv4(contentChars(v.Content))
	case *llm.ToolResultMessage:
		return ceilDiv4(blocksChars(v.Content))
	case *llm.AssistantMessage:
		return ceilDiv4(blocksChars(v.Content))
	case *llm.BashExecutionMessage:
		return ceilDiv4(len(v.Command) + len(v.Output))
	case *llm.BranchSummaryMessage:
		return ceilDiv4(len(v.Summary))
	case *llm.CompactionSummaryMessage:
		return ceilDiv4(len(v.Summary))
	case *llm.SystemMessage:
		n := contentChars(v.Content)
		for _, s := range v.Sections {
			if s.Text != nil {
				n += len(*s.Text)
			}
		}
		if len(v.ToolsAdded) > 0 {
			b, _ := llm.Marshal(v.ToolsAdded)
			n += len(b)
		}
		return ceilDiv4(n)
	}
	return 0
}

// UsageTokens is the context size a response reports: totalTokens, or the
// sum of its parts when the provider left the total at zero.
func UsageTokens(u llm.Usage) int {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// ContextTokens estimates the size of a context: the usage of the last
// successful assistant message with usage plus estimates of what follows
// it. When usageStale is true (a compaction or context edit came after that
// message) every message is estimated instead.
func ContextTokens(msgs []llm.Message, usageStale bool) int {
	last := -1
	if !usageStale {
		for i := len(msgs) - 1; i >= 0; i-- {
			if a, ok := msgs[i].(*llm.AssistantMessage); ok && a.StopReason != llm.StopError && a.StopReason != llm.StopAborted && UsageTokens(a.Usage) > 0 {
				last = i
				break
			}
		}
	}
	total := 0
	start := 0
	if last >= 0 {
		total = UsageTokens(msgs[last].(*llm.AssistantMessage).Usage)
		start = last + 1
	}
	for _, m := range msgs[start:] {
		total += EstimateMessage(m)
	}
	return total
}

// Settings are the resolved compaction settings for one model.
type Settings struct {
	Enabled          bool
	ReserveTokens    int
	KeepRecentTokens int
}

// ShouldCompact reports whether the context exceeds the window minus the
// reserve.
func ShouldCompact(s Settings, contextTokens, contextWindow int) bool {
	return s.Enabled && contextWindow > 0 && contextTokens > contextWindow-s.ReserveTokens
}
