package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"
)

// BugReporter is optional: a Runtime that writes /bug reports. The UI asks
// whether to omit, include or summarize the transcript first.
type BugReporter interface {
	// BugReport writes the report; transcript is "omit", "include" or
	// "summary". It returns the text to show.
	BugReport(ctx context.Context, description, transcript string) (string, error)
	// BugNotes are the disclaimer and the notes of the include and summary
	// choices.
	BugNotes() (disclaimer, includeNote, summaryNote string)
}

func (m *Model) openBug(description string) bool {
	br, ok := m.rt.(BugReporter)
	if !ok {
		return false
	}
	disclaimer, include, summary := br.BugNotes()
	items := []selectItem{
		{label: "Leave the transcript out", value: "omit"},
		{label: "Include the transcript", detail: include, value: "include"},
		{label: "Include a summary written by the current model", detail: summary, value: "summary"},
	}
	ctx := m.ctx
	s := newSelect("Bug report", items, func(m *Model, it selectItem) tea.Cmd {
		choice := it.value.(string)
		if choice == "summary" {
			m.setStatus("Summarizing the session for the report…", false)
		}
		return m.call(func() resultMsg {
			text, err := br.BugReport(ctx, description, choice)
			return resultMsg{notice: text, err: err}
		})
	})
	s.noFilter = true
	s.hint = disclaimer
	m.overlay = s
	return true
}
