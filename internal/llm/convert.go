package llm

import (
	"fmt"
	"strings"
)

// Prefaces of summary messages as the model sees them.
const (
	CompactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	CompactionSummarySuffix = "\n</summary>"
	BranchSummaryPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	BranchSummarySuffix     = "</summary>" // no newline, unlike compaction summaries
)

// BashExecutionText renders a `!cmd` run as the user text the model sees.
func BashExecutionText(m *BashExecutionMessage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ran `%s`\n", m.Command)
	if m.Output != "" {
		fmt.Fprintf(&b, "```\n%s\n```", m.Output)
	} else {
		b.WriteString("(no output)")
	}
	if m.Cancelled {
		b.WriteString("\n\n(command cancelled)")
	} else if m.ExitCode != nil && *m.ExitCode != 0 {
		fmt.Fprintf(&b, "\n\nCommand exited with code %d", *m.ExitCode)
	}
	if m.Truncated && m.FullOutputPath != "" {
		fmt.Fprintf(&b, "\n\n[Output truncated. Full output: %s]", m.FullOutputPath)
	}
	return b.String()
}

// ToModelMessages converts agent messages into the user, assistant and
// toolResult messages that providers accept: coding-agent roles become
// user messages, system and unknown roles are dropped (the caller folds
// system messages into the system prompt).
func ToModelMessages(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		switch v := m.(type) {
		case *UserMessage, *AssistantMessage, *ToolResultMessage:
			out = append(out, m)
		case *BashExecutionMessage:
			if v.ExcludeFromContext {
				continue
			}
			out = append(out, &UserMessage{Content: BlockContent(&TextContent{Text: BashExecutionText(v)}), Timestamp: v.Timestamp})
		case *CustomMessage:
			out = append(out, &UserMessage{Content: Content{Blocks: v.Content.AsBlocks()}, Timestamp: v.Timestamp})
		case *BranchSummaryMessage:
			out = append(out, &UserMessage{Content: BlockContent(&TextContent{Text: BranchSummaryPrefix + v.Summary + BranchSummarySuffix}), Timestamp: v.Timestamp})
		case *CompactionSummaryMessage:
			out = append(out, &UserMessage{Content: BlockContent(&TextContent{Text: CompactionSummaryPrefix + v.Summary + CompactionSummarySuffix}), Timestamp: v.Timestamp})
		}
	}
	return out
}

// SystemState is the prompt and tool loadout obtained by replaying system
// messages in order.
type SystemState struct {
	// Opaque is a full prompt forced by content (no sections).
	Opaque   string
	Sections Sections
	Tools    []ToolSpec
}

// Apply patches the state with one system message.
func (s *SystemState) Apply(m *SystemMessage) {
	if m.Replace {
		*s = SystemState{}
	}
	if text := m.Content.PlainText(); text != "" {
		s.Opaque = text
	}
	for _, sec := range m.Sections {
		idx := -1
		for i, have := range s.Sections {
			if have.Name == sec.Name {
				idx = i
				break
			}
		}
		switch {
		case sec.Text == nil && idx >= 0:
			s.Sections = append(s.Sections[:idx:idx], s.Sections[idx+1:]...)
		case sec.Text != nil && idx >= 0:
			s.Sections[idx].Text = sec.Text
		case sec.Text != nil:
			s.Sections = append(s.Sections, sec)
		}
	}
	for _, r := range m.ToolsRemoved {
		for i, t := range s.Tools {
			if t.Name == r.Name {
				s.Tools = append(s.Tools[:i:i], s.Tools[i+1:]...)
				break
			}
		}
	}
	for _, t := range m.ToolsAdded {
		replaced := false
		for i := range s.Tools {
			if s.Tools[i].Name == t.Name {
				s.Tools[i] = t
				replaced = true
			}
		}
		if !replaced {
			s.Tools = append(s.Tools, t)
		}
	}
}

// Prompt renders the system prompt: the untagged preamble, then every other
// section as <name>\n...\n</name>, blank-line separated. An opaque prompt
// wins when set without sections.
func (s *SystemState) Prompt() string {
	if len(s.Sections) == 0 {
		return s.Opaque
	}
	var parts []string
	for _, sec := range s.Sections {
		if sec.Text == nil {
			continue
		}
		if sec.Name == "preamble" {
			parts = append(parts, *sec.Text)
			continue
		}
		parts = append(parts, "<"+sec.Name+">\n"+*sec.Text+"\n</"+sec.Name+">")
	}
	return strings.Join(parts, "\n\n")
}

// ReplaySystem folds every system message of msgs into one state.
func ReplaySystem(msgs []Message) SystemState {
	var s SystemState
	for _, m := range msgs {
		if sm, ok := m.(*SystemMessage); ok {
			s.Apply(sm)
		}
	}
	return s
}

// Checkpoint returns a complete system message equivalent to the state
// (the compaction entry's systemMessage).
func (s *SystemState) Checkpoint(ts int64) *SystemMessage {
	m := &SystemMessage{Content: StringContent(""), Timestamp: ts, ToolsAdded: append([]ToolSpec{}, s.Tools...)}
	if len(s.Sections) > 0 {
		m.Sections = append(Sections{}, s.Sections...)
	} else {
		m.Content = StringContent(s.Opaque)
	}
	return m
}
