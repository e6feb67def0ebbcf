package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// A message steered or queued while a run was ending can arrive after the
// runtime looked at its queue for the last time: the run settles and the
// message stays queued under an idle editor, to go out behind the next,
// unrelated prompt. When the UI is idle with messages still queued, it
// takes them and sends them as the next prompt, as the person meant.

type queueFlushMsg struct{ texts []string }

// sendStuckQueue starts taking the queue when the UI is idle (the last
// Prompt call has returned, so the runtime takes a new one) and the
// runtime still reports queued messages.
func (m *Model) sendStuckQueue() {
	if m.busy || m.prompting || m.flushingQueue || len(m.queued) == 0 {
		return
	}
	m.flushingQueue = true
	rt := m.rt
	m.pending = tea.Batch(m.pending, func() tea.Msg { return queueFlushMsg{rt.Dequeue()} })
}

// sendFlushed sends what was taken from the queue: a prompt when idle, or
// back to the running agent as a steer when a run started meanwhile.
func (m *Model) sendFlushed(texts []string) tea.Cmd {
	m.queued = nil
	if len(texts) == 0 {
		return nil
	}
	if m.busy {
		rt := m.rt
		return func() tea.Msg {
			for _, t := range texts {
				rt.Steer(t, nil)
			}
			return nil
		}
	}
	return m.prompt(strings.Join(texts, "\n\n"), nil)
}
