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

// extraUsageNote is the warnings.anthropicExtraUsage warning.
const extraUsageNote = "Anthropic subscription sign-in: once the plan's included usage is spent, requests may be billed as paid extra usage. " +
	"Set warnings.anthropicExtraUsage to false to stop this warning."

// warnExtraUsage warns once per session when the model's provider is
// Anthropic signed in with a subscription. The credential is looked up
// only when the provider changes.
func (m *Model) warnExtraUsage(provider string) {
	if m.extraUsageWarned || m.opts.SubscriptionAuth == nil || provider != "anthropic" || provider == m.authChecked {
		return
	}
	m.authChecked = provider
	if m.opts.SubscriptionAuth(provider) {
		m.extraUsageWarned = true
		m.tr.AddNotice(extraUsageNote)
	}
}
