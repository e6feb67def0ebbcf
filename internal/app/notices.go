package app

import (
	"fmt"
	"strings"
	"sync"

	"github.com/relay-agent/relay/internal/harness"
)

// Harness notices: the composition root sets harness.Config.OnEvent to
// rt.ReportHarnessEvent, and front ends that show transient notices (the
// TUI status line) subscribe with SubscribeNotices. Events that need no
// notice are dropped.

// noticeHub fans notices out to subscribers. It lives beside the runtime
// (keyed by it) rather than in it so this concern stays in one file.
type noticeHub struct {
	mu   sync.Mutex
	next int
	subs map[int]func(string)
}

var noticeHubs sync.Map // *Runtime -> *noticeHub

func (r *Runtime) notices() *noticeHub {
	h, _ := noticeHubs.LoadOrStore(r, &noticeHub{subs: map[int]func(string){}})
	return h.(*noticeHub)
}

// SubscribeNotices delivers every notice to fn (from the goroutine that
// reported it; fn must not block) until the returned func is called.
func (r *Runtime) SubscribeNotices(fn func(string)) (unsubscribe func()) {
	h := r.notices()
	h.mu.Lock()
	id := h.next
	h.next++
	h.subs[id] = fn
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(h.subs, id)
		h.mu.Unlock()
	}
}

// Notify sends a notice to the subscribers; it is safe on a nil runtime
// and with none subscribed.
func (r *Runtime) Notify(text string) {
	if r == nil || text == "" {
		return
	}
	h := r.notices()
	h.mu.Lock()
	fns := make([]func(string), 0, len(h.subs))
	for _, fn := range h.subs {
		fns = append(fns, fn)
	}
	h.mu.Unlock()
	for _, fn := range fns {
		fn(text)
	}
}

// ReportHarnessEvent is harness.Config.OnEvent: the events worth telling
// the developer become notices. Safe on a nil runtime (events that arrive
// before the runtime exists are dropped).
func (r *Runtime) ReportHarnessEvent(e harness.Event) {
	if r == nil {
		return
	}
	r.Notify(HarnessNotice(e))
}

// HarnessNotice is the one-line notice for a harness event, "" when the
// event needs none.
func HarnessNotice(e harness.Event) string {
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
	case harness.EventCompletionAssessed:
		return e.Report.Warning()
	case harness.EventToolBlocked:
		switch {
		case e.Kind == harness.BlockScope:
			return "Harness: blocked " + subject + ": the question did not ask for changes"
		case strings.HasPrefix(e.Reason, "Blocked: the developer declined"):
			return "Harness: refused " + subject + why
		default:
			return "Harness: blocked " + subject + why + ": not authorized; the agent was told to ask you"
		}
	case harness.EventToolAuthorized:
		switch e.Via {
		case harness.ViaRequest:
			return "Harness: allowed " + subject + why + ": your message asked for it"
		case harness.ViaGrant:
			return "Harness: allowed " + subject + why + ": you confirmed in chat"
		default:
			return "Harness: allowed " + subject + why
		}
	case harness.EventContextElided:
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
