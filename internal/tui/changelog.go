package tui

import (
	"regexp"

	tea "charm.land/bubbletea/v2"
)

var changelogVersion = regexp.MustCompile(`##\s+\[?v?(\d+\.\d+\.\d+)`)

// addChangelog shows what changed since the last start, once after an
// update: the sections in full, or one line with collapseChangelog.
func (m *Model) addChangelog(text string, collapse bool) {
	if collapse {
		v := "a new version"
		if g := changelogVersion.FindStringSubmatch(text); g != nil {
			v = "v" + g[1]
		}
		m.tr.AddNotice("Updated to " + v + ". Use /changelog to view the full changelog.")
		return
	}
	m.tr.AddNotice("What's new")
	m.tr.AddMarkdown(text)
}

type updateNoticeMsg struct{ text string }

// updateCheck runs Options.UpdateCheck off the update loop.
func (m *Model) updateCheck() tea.Cmd {
	check, ctx := m.opts.UpdateCheck, m.ctx
	if check == nil {
		return nil
	}
	return func() tea.Msg { return updateNoticeMsg{check(ctx)} }
}
