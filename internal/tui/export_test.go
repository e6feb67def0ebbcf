package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tui/theme"
)

// EventsMsg lets external tests feed a batch of events synchronously.
func EventsMsg(evs ...agent.Event) any { return eventsMsg{evs} }

// ClipboardImageMsg builds the message a clipboard image read produces.
func ClipboardImageMsg(data, mime string) any {
	return clipboardImageMsg{img: &llm.ImageContent{Data: data, MimeType: mime}}
}

// ThemeOf exposes the active theme to external tests.
func ThemeOf(m *Model) *theme.Theme { return m.th }

// NoticeExpireMsg is the message that ends the current notice's time.
func NoticeExpireMsg(m *Model) any { return noticeExpireMsg{m.noticeSeq} }

// EditorValue is the editor's text.
func EditorValue(m *Model) string { return m.ed.Value() }

// ResourceChanges exposes the /reload resource diff.
var ResourceChanges = resourceChanges

// IsEscFlush reports whether msg ends a held Escape's wait.
func IsEscFlush(msg tea.Msg) bool {
	_, ok := msg.(escFlushMsg)
	return ok
}
