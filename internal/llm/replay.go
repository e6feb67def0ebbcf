package llm

import "strings"

// Replay preparation: the provider-neutral part of turning a conversation
// into a request for one target model. Every wire client runs it before its
// own message conversion, so the cross-provider rules live in one place.

// Placeholders that stand in for images sent to a model without image input.
const (
	ImageOmittedUser = "(image omitted: model does not support images)"
	ImageOmittedTool = "(tool image omitted: model does not support images)"
	// NoToolResult is the synthetic result for a tool call that never got one.
	NoToolResult = "No result provided"
)

// SameModel reports whether m was produced by the target model (same
// provider, API and model id). Only then are signatures, redacted thinking
// and thinking blocks replayed as such.
func SameModel(m *AssistantMessage, target *Model) bool {
	return m.Provider == target.Provider && m.API == target.API && m.Model == target.ID
}

// ToolCallIDNormalizer rewrites a tool-call id produced by another model into
// a form the target API accepts. It is only called for foreign messages.
type ToolCallIDNormalizer func(id string, source *AssistantMessage) string

// SafeID maps every character outside [a-zA-Z0-9_-], the alphabet every
// provider accepts in tool-call ids, to '_'.
func SafeID(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, id)
}

// SafeIDMax64 is SafeID cut to the 64 bytes Anthropic and Bedrock allow
// (^[a-zA-Z0-9_-]{1,64}$); it fits ToolCallIDNormalizer.
func SafeIDMax64(id string, _ *AssistantMessage) string {
	s := SafeID(id)
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

// PrepareReplay returns a copy of msgs ready for conversion to target's API:
//
//   - assistant messages that ended in error or were aborted are dropped
//     (their partial content may be unpairable, e.g. reasoning without output);
//   - for assistant messages from another model: redacted thinking is dropped,
//     non-empty thinking becomes plain text, empty thinking is dropped, text
//     and tool-call signatures are removed and tool-call ids pass through
//     normalize (tool results follow the renamed ids);
//   - a tool call without a result gets a synthetic error result
//     ("No result provided") before the next assistant or user message;
//   - for a model without image input, images in user and tool-result messages
//     become a placeholder text (consecutive images share one placeholder).
//
// Only user, assistant and toolResult messages are expected; others pass
// through unchanged. The input messages are never modified.
func PrepareReplay(msgs []Message, target *Model, normalize ToolCallIDNormalizer) []Message {
	images := target.SupportsImages()
	renamed := map[string]string{}
	out := make([]Message, 0, len(msgs))

	var pending []*ToolCall
	answered := map[string]bool{}
	flush := func() {
		for _, tc := range pending {
			if !answered[tc.ID] {
				out = append(out, &ToolResultMessage{
					ToolCallID: tc.ID,
					ToolName:   tc.Name,
					Content:    Blocks{&TextContent{Text: NoToolResult}},
					IsError:    true,
				})
			}
		}
		pending = nil
		clear(answered)
	}

	for _, msg := range msgs {
		switch m := msg.(type) {
		case *AssistantMessage:
			flush()
			if m.StopReason == StopError || m.StopReason == StopAborted {
				continue
			}
			am := replayAssistant(m, target, normalize, renamed)
			pending = am.ToolCalls()
			out = append(out, am)
		case *ToolResultMessage:
			tr := m
			if id, ok := renamed[m.ToolCallID]; ok || (!images && hasImage(m.Content)) {
				cp := *m
				if ok {
					cp.ToolCallID = id
				}
				if !images {
					cp.Content = downgradeImages(m.Content, ImageOmittedTool)
				}
				tr = &cp
			}
			answered[tr.ToolCallID] = true
			out = append(out, tr)
		case *UserMessage:
			flush()
			um := m
			if !images && !m.Content.IsString && hasImage(m.Content.Blocks) {
				cp := *m
				cp.Content = Content{Blocks: downgradeImages(m.Content.Blocks, ImageOmittedUser)}
				um = &cp
			}
			out = append(out, um)
		default:
			out = append(out, msg)
		}
	}
	flush()
	return out
}

func replayAssistant(m *AssistantMessage, target *Model, normalize ToolCallIDNormalizer, renamed map[string]string) *AssistantMessage {
	if SameModel(m, target) {
		return m
	}
	cp := *m
	cp.Content = make(Blocks, 0, len(m.Content))
	for _, b := range m.Content {
		switch v := b.(type) {
		case *ThinkingContent:
			if v.Redacted || isBlank(v.Thinking) {
				continue
			}
			cp.Content = append(cp.Content, &TextContent{Text: v.Thinking})
		case *TextContent:
			cp.Content = append(cp.Content, &TextContent{Text: v.Text})
		case *ToolCall:
			tc := *v
			tc.ThoughtSignature = ""
			if normalize != nil {
				if id := normalize(v.ID, m); id != v.ID {
					renamed[v.ID] = id
					tc.ID = id
				}
			}
			cp.Content = append(cp.Content, &tc)
		default:
			cp.Content = append(cp.Content, b)
		}
	}
	return &cp
}

func hasImage(bs Blocks) bool {
	for _, b := range bs {
		if _, ok := b.(*ImageContent); ok {
			return true
		}
	}
	return false
}

func downgradeImages(bs Blocks, placeholder string) Blocks {
	out := make(Blocks, 0, len(bs))
	for _, b := range bs {
		if _, ok := b.(*ImageContent); !ok {
			out = append(out, b)
			continue
		}
		if n := len(out); n > 0 {
			if t, ok := out[n-1].(*TextContent); ok && t.Text == placeholder {
				continue
			}
		}
		out = append(out, &TextContent{Text: placeholder})
	}
	return out
}

func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\v', '\f':
		default:
			return false
		}
	}
	return true
}
