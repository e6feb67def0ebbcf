package harness

import (
	"fmt"
	"strings"
)

// Notice is the one-line notice for a harness event, "" when the
// event needs none.
func Notice(e Event) string {
	subject := e.Effect.Command
	if subject == "" {
		subject = e.ToolName
	}
	subject = "`" + clipNotice(firstNoticeLine(subject), 80) + "`"
	why := ""
	if e.Effect.Reason != "" {
		why = " (" + e.Effect.Reason + ")"
	}
	switch e.Type {
	case EventCompletionAssessed:
		return e.Report.Warning()
	case EventToolBlocked:
		switch {
		case e.Kind == BlockScope:
			return "Harness: blocked " + subject + ": the question did not ask for changes"
		case strings.HasPrefix(e.Reason, "Blocked: the developer declined"):
			return "Harness: refused " + subject + why
		default:
			return "Harness: blocked " + subject + why + ": not authorized; the agent was told to ask you"
		}
	case EventToolAuthorized:
		switch e.Via {
		case ViaRequest:
			return "Harness: allowed " + subject + why + ": your message asked for it"
		case ViaGrant:
			return "Harness: allowed " + subject + why + ": you confirmed in chat"
		default:
			return "Harness: allowed " + subject + why
		}
	case EventContextElided:
		if e.Stats.ElidedResults == 0 {
			return ""
		}
		return fmt.Sprintf("Harness: %d old tool results elided from the request (%s chars saved)",
			e.Stats.ElidedResults, compactCount(e.Stats.ElidedChars))
	}
	return ""
}

func firstNoticeLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func clipNotice(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func compactCount(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
