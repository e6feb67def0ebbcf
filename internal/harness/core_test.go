package harness

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

func user(text string) *llm.UserMessage {
	return &llm.UserMessage{Content: llm.StringContent(text), Timestamp: 1}
}

func bashCall(id, command string) *llm.ToolCall {
	args, _ := json.Marshal(map[string]string{"command": command})
	return &llm.ToolCall{ID: id, Name: "bash", Arguments: args}
}

func toolCall(id, name string, args map[string]any) *llm.ToolCall {
	raw, _ := json.Marshal(args)
	return &llm.ToolCall{ID: id, Name: name, Arguments: raw}
}

func result(tc *llm.ToolCall, text string, isError bool) *llm.ToolResultMessage {
	return &llm.ToolResultMessage{ToolCallID: tc.ID, ToolName: tc.Name, Content: llm.Blocks{&llm.TextContent{Text: text}}, IsError: isError}
}

func final(text string) *llm.AssistantMessage {
	return &llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: text}}, StopReason: llm.StopStop}
}

func calling(calls ...*llm.ToolCall) *llm.AssistantMessage {
	m := &llm.AssistantMessage{StopReason: llm.StopToolUse}
	for _, c := range calls {
		m.Content = append(m.Content, c)
	}
	return m
}

// fakeProbe is a WorkspaceProbe with settable numbers.
type fakeProbe struct {
	changed map[string]int
	files   map[string]int
	ok      bool
}

func (p *fakeProbe) ChangedLines(context.Context) (map[string]int, bool) {
	if !p.ok {
		return nil, false
	}
	cp := map[string]int{}
	for k, v := range p.changed {
		cp[k] = v
	}
	return cp, true
}

func (p *fakeProbe) FileLines(path string) (int, bool) {
	n, ok := p.files[path]
	return n, ok
}

func newCore(t *testing.T, mod func(*Config)) *Core {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Probe = &fakeProbe{ok: true}
	cfg.Now = func() time.Time { return time.UnixMilli(1000) }
	if mod != nil {
		mod(&cfg)
	}
	return New(cfg)
}

type approverFunc func(ctx context.Context, title, message string) (bool, error)

func (f approverFunc) Confirm(ctx context.Context, title, message string) (bool, error) {
	return f(ctx, title, message)
}

// run executes a call through the hooks the way the agent loop does.
func run(c *Core, call *llm.ToolCall, approver Approver, isError bool) Decision {
	d := c.BeforeToolCall(context.Background(), call, approver)
	text := "output"
	if d.Block {
		text, isError = d.Reason, true
	}
	c.AfterToolCall(call, result(call, text, isError))
	return d
}

func TestAuthorizationGateJSONMode(t *testing.T) {
	c := newCore(t, nil)
	c.OnUserMessage("Make the next compile start from scratch", true)
	rm := bashCall("1", "rm -rf build")

	d := run(c, rm, nil, false)
	if !d.Block || d.Kind != BlockAuthorization {
		t.Fatalf("first rm: %+v, want authorization block", d)
	}
	want := "Blocked by the harness alignment policy: `rm -rf build` is a destructive operation (recursive delete) and the developer has not authorized it. Explain what it would do and ask the developer to confirm. If they confirm, retry the same call unchanged."
	if d.Reason != want {
		t.Fatalf("reason:\n%s\nwant:\n%s", d.Reason, want)
	}
	if st := c.Status(); len(st.Alignment.Pending) != 1 || st.Alignment.Pending[0] != "bash:rm -rf build" {
		t.Fatalf("pending = %v", st.Alignment.Pending)
	}
	if n := len(c.Status().Evidence.Checks); n != 0 || c.evidence.step != 0 {
		t.Fatal("a blocked call is not evidence")
	}

	// The agent asks; the developer answers yes: that exact command, once.
	c.OnAssistantEnd(final("This deletes build/. May I run `rm -rf build`?"))
	c.OnUserMessage("yes", true)
	if d := run(c, bashCall("2", "rm -rf build"), nil, false); d.Block || d.Via != ViaGrant {
		t.Fatalf("after yes: %+v, want allowed via grant", d)
	}
	if d := run(c, bashCall("3", "rm -rf build"), nil, false); !d.Block {
		t.Fatal("a grant allows the command once")
	}
	// A different command is not covered by a yes.
	c.OnUserMessage("sim", false)
	if d := run(c, bashCall("4", "rm -rf dist"), nil, false); !d.Block {
		t.Fatal("a grant covers only the pending fingerprint")
	}
	// "no" clears pending without granting.
	c.OnUserMessage("no, leave it", false)
	if d := run(c, bashCall("5", "rm -rf dist"), nil, false); !d.Block {
		t.Fatal("no grant after a refusal")
	}
}

func TestAuthorizationNamedInRequest(t *testing.T) {
	c := newCore(t, nil)
	c.OnUserMessage("Delete the build directory and push the branch", true)
	if d := run(c, bashCall("1", "rm -rf build"), nil, false); d.Block || d.Via != ViaRequest {
		t.Fatalf("rm named: %+v", d)
	}
	if d := run(c, bashCall("2", "git push origin main"), nil, false); d.Block || d.Via != ViaRequest {
		t.Fatalf("push named: %+v", d)
	}
	if d := run(c, bashCall("3", "git push --force"), nil, false); !d.Block {
		t.Fatal("a plain push request does not allow a force push")
	}
	if d := run(c, bashCall("4", "rm -rf dist"), nil, false); !d.Block {
		t.Fatal("a deletion needs its target named")
	}
}

func TestAuthorizationApprover(t *testing.T) {
	c := newCore(t, nil)
	c.OnUserMessage("tidy up", true)
	var title, msg string
	yes := approverFunc(func(_ context.Context, t, m string) (bool, error) { title, msg = t, m; return true, nil })
	if d := run(c, bashCall("1", "git reset --hard HEAD~1"), yes, false); d.Block || d.Via != ViaAuthorizer {
		t.Fatalf("approved: %+v", d)
	}
	if title != "Allow destructive operation?" || msg != "git reset --hard discards uncommitted work\n\ngit reset --hard HEAD~1" {
		t.Fatalf("dialog %q / %q", title, msg)
	}
	no := approverFunc(func(context.Context, string, string) (bool, error) { return false, nil })
	d := run(c, bashCall("2", "git reset --hard HEAD~1"), no, false)
	if !d.Block || !strings.HasPrefix(d.Reason, "Blocked: the developer declined this destructive operation") {
		t.Fatalf("declined: %+v", d)
	}
	if len(c.Status().Alignment.Pending) != 0 {
		t.Fatal("a declined call is not pending")
	}
	broken := approverFunc(func(context.Context, string, string) (bool, error) { return false, errors.New("no ui") })
	if d := run(c, bashCall("3", "npm publish"), broken, false); !d.Block || !strings.Contains(d.Reason, "has not authorized it") {
		t.Fatalf("approver error: %+v", d)
	}
}

func TestAuthorizationDisabled(t *testing.T) {
	c := newCore(t, func(cfg *Config) { cfg.Alignment = false })
	c.OnUserMessage("go", true)
	if d := run(c, bashCall("1", "rm -rf /tmp/x"), nil, false); d.Block {
		t.Fatal("alignment off disables the gate")
	}
	c = newCore(t, func(cfg *Config) { cfg.AuthorizationGate = false })
	c.OnUserMessage("go", true)
	if d := run(c, bashCall("1", "git push"), nil, false); d.Block {
		t.Fatal("authorizationGate off")
	}
}

func TestScopeGuard(t *testing.T) {
	c := newCore(t, nil)
	c.OnUserMessage("Why does the parser fail on empty input?", true)
	if d := run(c, toolCall("1", "read", map[string]any{"path": "parser.go"}), nil, false); d.Block {
		t.Fatal("reads are fine in a question turn")
	}
	edit := toolCall("2", "edit", map[string]any{"path": "parser.go"})
	d := run(c, edit, nil, false)
	if !d.Block || d.Kind != BlockScope || d.Reason != scopeBlockReason {
		t.Fatalf("first edit: %+v", d)
	}
	if c.evidence.mutations != 0 {
		t.Fatal("a blocked edit is not a change")
	}
	if d := run(c, toolCall("3", "edit", map[string]any{"path": "parser.go"}), nil, false); d.Block {
		t.Fatal("the retry is allowed")
	}
	// A request, not a question: no block.
	c.OnUserMessage("Why does it fail? Please fix it.", true)
	if d := run(c, toolCall("4", "edit", map[string]any{"path": "parser.go"}), nil, false); d.Block {
		t.Fatal("a request is not question-only")
	}
	// Off.
	c = newCore(t, func(cfg *Config) { cfg.ScopeGuard = false })
	c.OnUserMessage("Why does it fail?", true)
	if d := run(c, edit, nil, false); d.Block {
		t.Fatal("scopeGuard off")
	}
}

func TestEvidenceRequestExactlyOnce(t *testing.T) {
	c := newCore(t, nil)
	c.OnUserMessage("Fix the bug in src/a.go", true)
	run(c, toolCall("1", "edit", map[string]any{"path": "src/a.go"}), nil, false)
	text, ok := c.OnAssistantEnd(final("Done, the bug is fixed."))
	if !ok {
		t.Fatal("no verification request")
	}
	want := "[harness:evidence] Completion check: your last message reports the work as finished, but the harness has no evidence for it: files changed and no test, type check, build, or lint command ran afterwards.\n" +
		"Changed in this request: src/a.go.\n" +
		"Before reporting completion, run the project's verification for the changed code (tests, type check, or build) and report the actual result.\n" +
		"If verification is not possible, say exactly what was not verified and why. Do not restate success without evidence."
	if text != want {
		t.Fatalf("request:\n%s\nwant:\n%s", text, want)
	}
	c.OnUserMessage(text, false) // the steering message: ignored as harness text
	if _, ok := c.OnAssistantEnd(final("Done, really.")); ok {
		t.Fatal("a second verification request in the same request")
	}
	r := c.Status().Evidence.LastReport
	if r.Status != StatusUnverified || r.Gated {
		t.Fatalf("last report %+v", r)
	}
	if w := r.Warning(); w != "Harness: completion reported without evidence (files changed and no test, type check, build, or lint command ran afterwards)." {
		t.Fatalf("warning %q", w)
	}
	// A new request has a new budget; a passing check after the change verifies.
	c.OnUserMessage("Now fix src/b.go", true)
	run(c, toolCall("2", "edit", map[string]any{"path": "src/b.go"}), nil, false)
	run(c, bashCall("3", "go test ./..."), nil, false)
	if _, ok := c.OnAssistantEnd(final("Fixed; all tests pass.")); ok {
		t.Fatal("verified work got a request")
	}
	if st := c.Status(); st.Evidence.LastReport.Status != StatusVerified {
		t.Fatalf("status %s", st.Evidence.LastReport.Status)
	}
}

func TestEvidenceAssessments(t *testing.T) {
	type step struct {
		call    *llm.ToolCall
		isError bool
	}
	edit := func(id, p string) step { return step{toolCall(id, "edit", map[string]any{"path": p}), false} }
	sh := func(id, cmd string, fail bool) step { return step{bashCall(id, cmd), fail} }
	tests := []struct {
		name    string
		request string
		steps   []step
		final   string
		want    CompletionStatus
		declare []string
	}{
		{"no claim", "Fix it", []step{edit("1", "a.go")}, "I changed a.go; next I will look at b.go.", StatusNoClaim, nil},
		{"unverified", "Fix it", []step{edit("1", "a.go")}, "Done.", StatusUnverified, nil},
		{"check before change", "Fix it", []step{sh("1", "go test ./...", false), edit("2", "a.go")}, "Done.", StatusUnverified, nil},
		{"verified", "Fix it", []step{edit("1", "a.go"), sh("2", "go test ./...", false)}, "Done.", StatusVerified, nil},
		{"failed check", "Fix it", []step{edit("1", "a.go"), sh("2", "go test ./...", true)}, "Fixed.", StatusUnverified, nil},
		{"masked check", "Fix it", []step{edit("1", "a.go"), sh("2", "go test ./... | tail", false)}, "Fixed.", StatusUnverified, nil},
		{"contradicted failed", "Fix it", []step{edit("1", "a.go"), sh("2", "npm test", true)}, "The tests pass now.", StatusContradicted, nil},
		{"contradicted none", "Fix it", []step{edit("1", "a.go")}, "All tests pass.", StatusContradicted, nil},
		{"name filtered", "Fix it", []step{edit("1", "a.go"), sh("2", "npx vitest -t parser", false)}, "All tests pass.", StatusContradicted, nil},
		{"acknowledged", "Fix it", []step{edit("1", "a.go")}, "Done, but I could not run the tests.", StatusAcknowledged, nil},
		{"acknowledged pt", "Corrija", []step{edit("1", "a.go")}, "Pronto, mas não testei.", StatusAcknowledged, nil},
		{"no effect", "Fix the parser", []step{{toolCall("1", "read", map[string]any{"path": "a.go"}), false}}, "Fixed!", StatusNoEffect, nil},
		{"opaque command", "Fix the parser", []step{sh("1", "sed -i s/a/b/ a.go", false)}, "Fixed!", StatusNoClaim, nil},
		{"question no effect", "What does it do?", []step{{toolCall("1", "read", map[string]any{"path": "a.go"}), false}}, "It is ready to parse.", StatusNoClaim, nil},
		{"docs only", "Update the README", []step{edit("1", "README.md")}, "Done.", StatusVerified, nil},
		{"pt claim", "Corrija o bug", []step{edit("1", "a.go")}, "Corrigido!", StatusUnverified, nil},
		{"declared only", "Fix it", []step{edit("1", "a.go"), sh("2", "npx tsc", false)}, "Done.", StatusUnverified, []string{"npm run check"}},
		{"declared ran", "Fix it", []step{edit("1", "a.go"), sh("2", "npm run check", false)}, "Done.", StatusVerified, []string{"npm run check"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCore(t, func(cfg *Config) { cfg.VerifyCommands = tt.declare })
			c.OnUserMessage(tt.request, true)
			for _, s := range tt.steps {
				run(c, s.call, nil, s.isError)
			}
			_, gated := c.OnAssistantEnd(final(tt.final))
			r := c.Status().Evidence.LastReport
			if r.Status != tt.want {
				t.Fatalf("status %s (%s), want %s", r.Status, r.Detail, tt.want)
			}
			if gated != tt.want.Flagged() {
				t.Fatalf("gated %v for %s", gated, r.Status)
			}
		})
	}
}

func TestEvidenceDeclaredCommandsNamed(t *testing.T) {
	c := newCore(t, func(cfg *Config) { cfg.VerifyCommands = []string{"npm run check", "./test.sh"} })
	c.OnUserMessage("Fix it", true)
	run(c, toolCall("1", "edit", map[string]any{"path": "a.ts"}), nil, false)
	text, ok := c.OnAssistantEnd(final("Done."))
	if !ok || !strings.Contains(text, "run the project's declared verification (`npm run check`, `./test.sh`)") {
		t.Fatalf("request %q", text)
	}
}

func TestEvidenceIgnoresNonFinalAndDisabled(t *testing.T) {
	c := newCore(t, nil)
	c.OnUserMessage("Fix it", true)
	run(c, toolCall("1", "edit", map[string]any{"path": "a.go"}), nil, false)
	if _, ok := c.OnAssistantEnd(&llm.AssistantMessage{Content: llm.Blocks{&llm.TextContent{Text: "Done"}}, StopReason: llm.StopAborted}); ok {
		t.Fatal("aborted message assessed")
	}
	if _, ok := c.OnAssistantEnd(calling(bashCall("2", "ls"))); ok {
		t.Fatal("tool-use message assessed")
	}
	c = newCore(t, func(cfg *Config) { cfg.Evidence = false })
	c.OnUserMessage("Fix it", true)
	run(c, toolCall("1", "edit", map[string]any{"path": "a.go"}), nil, false)
	if _, ok := c.OnAssistantEnd(final("Done.")); ok {
		t.Fatal("evidence off")
	}
}

func TestPrepareRequestState(t *testing.T) {
	var saved []LedgerSnapshot
	c := newCore(t, func(cfg *Config) { cfg.OnLedgerChange = func(s LedgerSnapshot) { saved = append(saved, s) } })
	c.OnUserMessage("Fix the parser. Never use panics.", true)
	if len(saved) != 1 || saved[0].Constraints[0].Text != "Never use panics." || saved[0].Constraints[0].ID != "c1" {
		t.Fatalf("persisted %+v", saved)
	}
	edit := toolCall("1", "edit", map[string]any{"path": "parser.go"})
	run(c, edit, nil, false)
	msgs := []llm.Message{user("Fix the parser. Never use panics."), calling(edit), result(edit, "ok", false)}
	out := c.PrepareRequest(msgs)
	last := out[2].(*llm.ToolResultMessage)
	if len(last.Content) != 2 {
		t.Fatalf("state block not appended: %d blocks", len(last.Content))
	}
	got := last.Content[1].(*llm.TextContent).Text
	want := "<harness_state>\nGenerated by the harness, not written by the developer.\n\n" +
		"Developer constraints in force (stated earlier; they still apply):\n- Never use panics.\n\n" +
		"Changed since the last passing check: parser.go. Verify before reporting completion.\n</harness_state>"
	if got != want {
		t.Fatalf("state:\n%s\nwant:\n%s", got, want)
	}
	if len(msgs[2].(*llm.ToolResultMessage).Content) != 1 {
		t.Fatal("input message modified")
	}
	// A correction after the agent responded adds the reminder first.
	c.OnAssistantEnd(final("I added a panic guard."))
	c.OnUserMessage("No, that's too complex. Return an error.", true)
	if len(saved) != 2 || len(saved[1].Corrections) != 1 {
		t.Fatalf("correction not persisted: %+v", saved)
	}
	msgs = append(msgs, final("I added a panic guard."), user("No, that's too complex. Return an error."))
	out = c.PrepareRequest(msgs)
	u := out[len(out)-1].(*llm.UserMessage)
	if u.Content.IsString || len(u.Content.Blocks) != 2 || !strings.Contains(u.Content.Blocks[1].(*llm.TextContent).Text, "\n\n"+correctionReminder+"\n\nDeveloper constraints") {
		t.Fatalf("user message state: %+v", u.Content)
	}
	if !msgs[len(msgs)-1].(*llm.UserMessage).Content.IsString {
		t.Fatal("input user message modified")
	}
	// An assistant message last: nothing appended.
	msgs = append(msgs, final("ok"))
	if out := c.PrepareRequest(msgs); &out[0] != &msgs[0] {
		t.Fatal("messages copied although nothing changed")
	}
}

func TestSystemPromptRules(t *testing.T) {
	c := newCore(t, nil)
	if r := c.SystemPromptRules(); !strings.HasPrefix(r, "- The developer owns the what and the why") || strings.Count(r, "\n- ") != 2 {
		t.Fatalf("rules %q", r)
	}
	if r := newCore(t, func(cfg *Config) { cfg.Alignment = false }).SystemPromptRules(); r != "" {
		t.Fatalf("rules with alignment off: %q", r)
	}
}

func TestEvents(t *testing.T) {
	var events []Event
	c := newCore(t, func(cfg *Config) { cfg.OnEvent = func(e Event) { events = append(events, e) } })
	c.OnUserMessage("push it", true)
	run(c, bashCall("1", "git push"), nil, false)
	run(c, bashCall("2", "rm -rf x"), nil, false)
	c.OnAssistantEnd(final("Done."))
	var types []string
	for _, e := range events {
		types = append(types, e.Type+":"+e.Via+e.Kind)
	}
	want := "tool_authorized:request tool_blocked:authorization completion_assessed:"
	if strings.Join(types, " ") != want {
		t.Fatalf("events %v, want %s", types, want)
	}
}

func TestClassifyToolOverride(t *testing.T) {
	c := newCore(t, func(cfg *Config) {
		cfg.ClassifyTool = func(name string, args json.RawMessage) (Effect, bool) {
			if name == "mcp__db__query" {
				return Effect{Kind: EffectDestructive, Command: string(args), Reason: "database write"}, true
			}
			return Effect{}, false
		}
	})
	c.OnUserMessage("look around", true)
	if d := c.BeforeToolCall(t.Context(), toolCall("1", "mcp__db__query", map[string]any{"sql": "x"}), nil); !d.Block || !strings.Contains(d.Reason, "(database write)") {
		t.Fatalf("custom classification not applied: %+v", d)
	}
	if d := c.BeforeToolCall(t.Context(), bashCall("2", "ls"), nil); d.Block || d.Effect.Kind != EffectExecute {
		t.Fatalf("fallback: %+v", d)
	}
}
