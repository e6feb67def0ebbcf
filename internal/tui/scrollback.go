package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Regular mode prints finished blocks above the live frame. The renderer
// makes room by scrolling the screen from the frame's bottom row: when it
// scrolls more rows than there are above the frame, the frame's own rows
// (the streaming answer, editor and footer) go into the terminal's
// scrollback as a stale copy and the row above the frame is overwritten.
// That happens whenever the live area is tall, as when a narrower terminal
// makes a streaming answer wrap onto more rows. So committed lines are
// printed in chunks no taller than the room above the frame, one chunk
// after the other through a single queue, which keeps their order.

// printNextMsg asks for the next chunk once the previous one is printed.
type printNextMsg struct{}

// queuePrint adds committed lines and starts printing unless a chunk is
// already on its way.
func (m *Model) queuePrint(lines []string) tea.Cmd {
	m.printQueue = append(m.printQueue, lines...)
	if m.printing {
		return nil
	}
	return m.printNext()
}

// printNext prints the next chunk. The renderer handles messages in order,
// so printNextMsg arrives after the chunk is on screen.
func (m *Model) printNext() tea.Cmd {
	if len(m.printQueue) == 0 {
		m.printing = false
		return nil
	}
	// The renderer draws at its own pace and may still hold a taller
	// frame than the last one.
	room := m.height - max(m.frameRows, m.frameTall)
	n := min(len(m.printQueue), max(1, room))
	chunk := strings.Join(m.printQueue[:n], "\n")
	if chunk == "" {
		chunk = " " // the renderer ignores an empty print
	}
	m.printQueue = m.printQueue[n:]
	m.printing = true
	return tea.Sequence(tea.Println(chunk), func() tea.Msg { return printNextMsg{} })
}

// noteFrame records the height of a regular-mode frame, and the tallest
// one of the last moment (a few of the renderer's frame intervals).
func (m *Model) noteFrame(rows int) {
	now := time.Now()
	m.frameRows = rows
	if rows >= m.frameTall || now.Sub(m.frameTallAt) > 200*time.Millisecond {
		m.frameTall, m.frameTallAt = rows, now
	}
}
