package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// noticeTTL is how long a transient notice stays in the status line.
const noticeTTL = 8 * time.Second

type (
	noticeMsg       struct{ text string }
	noticeExpireMsg struct{ seq int }
)

// Notify shows a transient notice (harness decisions, ...) in the status
// line; safe from any goroutine and never blocks (a flood drops notices).
func (m *Model) Notify(text string) {
	select {
	case m.noticeCh <- text:
	default:
	}
}

func (m *Model) waitNotice() tea.Msg {
	select {
	case s := <-m.noticeCh:
		return noticeMsg{s}
	case <-m.ctx.Done():
		return nil
	}
}

func (m *Model) showNotice(text string) tea.Cmd {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	// A completion claimed without evidence is worth keeping: it also goes
	// into the transcript.
	if strings.HasPrefix(text, "Harness: completion") {
		m.tr.AddNotice(text)
	}
	m.noticeSeq++
	m.setStatus(text, strings.Contains(text, "refused") || strings.Contains(text, "blocked") || strings.Contains(text, "without evidence"))
	m.noticeText = text
	seq := m.noticeSeq
	return tea.Tick(noticeTTL, func(time.Time) tea.Msg { return noticeExpireMsg{seq} })
}

func (m *Model) expireNotice(seq int) {
	if seq == m.noticeSeq && m.status == m.noticeText {
		m.setStatus("", false)
	}
}
