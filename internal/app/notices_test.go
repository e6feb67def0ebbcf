package app

import (
	"strings"
	"sync"
	"testing"

	"github.com/relay-agent/relay/internal/harness"
)

func TestHarnessNotice(t *testing.T) {
	rm := harness.Effect{Kind: harness.EffectDestructive, Command: "rm -rf build", Reason: "recursive delete"}
	for _, tc := range []struct {
		name string
		ev   harness.Event
		want string
	}{
		{"refused", harness.Event{Type: harness.EventToolBlocked, ToolName: "bash", Effect: rm, Kind: harness.BlockAuthorization,
			Reason: "Blocked: the developer declined this destructive operation (recursive delete). Do not retry it"},
			"Harness: refused `rm -rf build` (recursive delete)"},
		{"blocked", harness.Event{Type: harness.EventToolBlocked, ToolName: "bash", Effect: rm, Kind: harness.BlockAuthorization,
			Reason: "Blocked by the harness alignment policy: ..."},
			"Harness: blocked `rm -rf build` (recursive delete): not authorized; the agent was told to ask you"},
		{"scope", harness.Event{Type: harness.EventToolBlocked, ToolName: "edit", Kind: harness.BlockScope},
			"Harness: blocked `edit`: the question did not ask for changes"},
		{"asked", harness.Event{Type: harness.EventToolAuthorized, ToolName: "bash", Effect: rm, Via: harness.ViaRequest},
			"Harness: allowed `rm -rf build` (recursive delete): your message asked for it"},
		{"elided", harness.Event{Type: harness.EventContextElided, Stats: harness.ContextStats{ElidedResults: 6, ElidedChars: 48200}},
			"Harness: 6 old tool results elided from the request (48.2k chars saved)"},
		{"nothing elided", harness.Event{Type: harness.EventContextElided}, ""},
		{"completion ok", harness.Event{Type: harness.EventCompletionAssessed, Report: &harness.CompletionReport{}}, ""},
	} {
		if got := HarnessNotice(tc.ev); got != tc.want {
			t.Errorf("%s: got %q want %q", tc.name, got, tc.want)
		}
	}
}

func TestNoticeSubscribers(t *testing.T) {
	r := &Runtime{}
	var mu sync.Mutex
	var got []string
	unsub := r.SubscribeNotices(func(s string) { mu.Lock(); got = append(got, s); mu.Unlock() })
	r.ReportHarnessEvent(harness.Event{Type: harness.EventToolBlocked, ToolName: "edit", Kind: harness.BlockScope})
	r.ReportHarnessEvent(harness.Event{Type: harness.EventContextElided}) // no notice
	unsub()
	r.Notify("after unsubscribe")
	var nilRT *Runtime
	nilRT.ReportHarnessEvent(harness.Event{Type: harness.EventToolBlocked}) // no panic
	if len(got) != 1 || !strings.Contains(got[0], "blocked `edit`") {
		t.Fatalf("got %q", got)
	}
}
