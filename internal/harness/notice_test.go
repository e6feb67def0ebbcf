package harness

import "testing"

func TestNotice(t *testing.T) {
	rm := Effect{Kind: EffectDestructive, Command: "rm -rf build", Reason: "recursive delete"}
	for _, tc := range []struct {
		name string
		ev   Event
		want string
	}{
		{"refused", Event{Type: EventToolBlocked, ToolName: "bash", Effect: rm, Kind: BlockAuthorization,
			Reason: "Blocked: the developer declined this destructive operation (recursive delete). Do not retry it"},
			"Harness: refused `rm -rf build` (recursive delete)"},
		{"blocked", Event{Type: EventToolBlocked, ToolName: "bash", Effect: rm, Kind: BlockAuthorization,
			Reason: "Blocked by the harness alignment policy: ..."},
			"Harness: blocked `rm -rf build` (recursive delete): not authorized; the agent was told to ask you"},
		{"scope", Event{Type: EventToolBlocked, ToolName: "edit", Kind: BlockScope},
			"Harness: blocked `edit`: the question did not ask for changes"},
		{"asked", Event{Type: EventToolAuthorized, ToolName: "bash", Effect: rm, Via: ViaRequest},
			"Harness: allowed `rm -rf build` (recursive delete): your message asked for it"},
		{"elided", Event{Type: EventContextElided, Stats: ContextStats{ElidedResults: 6, ElidedChars: 48200}},
			"Harness: 6 old tool results elided from the request (48.2k chars saved)"},
		{"nothing elided", Event{Type: EventContextElided}, ""},
		{"completion ok", Event{Type: EventCompletionAssessed, Report: &CompletionReport{}}, ""},
	} {
		if got := Notice(tc.ev); got != tc.want {
			t.Errorf("%s: got %q want %q", tc.name, got, tc.want)
		}
	}
}
