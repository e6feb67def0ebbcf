// Package harness is relay's harness core: the rules that stay the same
// whatever model runs. It needs no extra model call; every pillar acts on
// hooks of the agent loop and on the request builder.
//
//   - Alignment: a ledger of the developer's standing constraints (English
//     and Portuguese) and corrections, restated on every request; an
//     authorization gate for destructive and external commands; a scope
//     guard that blocks the first edit in a turn that only asked a question.
//   - Evidence: what the tool calls changed and which checks passed after
//     the last change; one "[harness:evidence]" verification request when
//     completion is claimed without evidence; change-size and file-growth
//     signals (small slices).
//   - Context: old large tool results replaced by one-line stubs at request
//     time, in batches that keep the prompt cache stable, plus a progress
//     digest.
//   - Skills: skill resource usage per run and a structure audit.
//
// # Wiring (one *Core per session; all methods synchronous and goroutine-safe)
//
//	core := harness.New(cfg)                   // cfg from harnessCore.* settings (DefaultConfig for defaults)
//	core.Restore(branchMsgs, latestLedgerData) // on resume / branch switch
//	rules := core.PromptGuidelines()           // system prompt "rules" bullets (nil when alignment is off)
//
//	// agent loop
//	core.OnUserMessage(text, startsRun)        // every user message as appended; startsRun for a run's prompt
//	d := core.BeforeToolCall(ctx, call, appr)  // after argument validation, before execution
//	if d.Block { result = error tool result with text d.Reason; do not execute }
//	core.AfterToolCall(call, result)           // every tool result (blocked ones are ignored)
//	if text, ok := core.OnAssistantEnd(msg); ok { steer(user message text) } // every finished assistant message
//
//	// request builder, after the branch -> messages projection, before convert-to-provider
//	reqMsgs := core.PrepareRequest(msgs)       // never modifies msgs; the session file keeps everything whole
//
//	// /harness (TUI) and RPC
//	st := core.Status(); st.Format() / st.Sections() / JSON of st
//
// Config.OnEvent reports decisions (tool_blocked, tool_authorized,
// completion_assessed, context_elided); for completion_assessed, a
// non-empty Event.Report.Warning() is the notice to show the developer (a
// flagged report that stands because its verification request was spent).
//
// The harness state block PrepareRequest appends is an llm.TextContent with
// Volatile set: it moves to the newest message on every request, so
// clients with explicit cache breakpoints (Anthropic) must put the
// breakpoint on the block before it and send it outside a tool_result's
// content; everything before it is then byte-identical between requests
// until the next elision batch.
//
// Approver is the interactive confirm (TUI dialog, RPC extension-UI
// confirm); pass nil in print and JSON modes, where a gated call is refused
// with a text asking the model to request confirmation in chat, and a
// following developer message starting with an affirmative ("yes", "sim",
// "ok", "go ahead", ...) and without a reservation allows that exact command
// once. A call whose operation (and, for deletions, target) the latest
// developer message names in an affirmative clause is allowed without asking.
//
// # Persistence
//
// Constraints and corrections are persisted by the runtime:
// Config.OnLedgerChange receives a LedgerSnapshot whenever they change, to
// append as a session custom entry with customType CustomTypeConstraints
// ("harness-core:constraints", data {constraints:[{id, text, source,
// timestamp}], corrections:[{text, timestamp}]}). Restore takes the data of
// the latest such entry on the branch and derives the rest of the state
// from the branch's messages; see Restore.
//
// # Classification
//
// Classify maps a tool call to an Effect (read, write, execute, verify,
// destructive, external). Bash commands are parsed (mvdan.cc/sh): quotes
// and escapes are removed, git's global options skipped, and every command
// of lists, pipelines, subshells, functions and substitutions goes through
// §3.1's rules (force push, reset --hard, rm -r, DROP/TRUNCATE, DELETE
// without WHERE, publish, deploy, kubectl apply, curl -X POST ...); literal
// scripts a shell would run (sh -c '...', eval, ssh host '...', find -exec,
// xargs, a git -c alias, a here-document fed to sh) are parsed in turn.
// What cannot be resolved without running it is opaque (Effect.Opaque, kind
// destructive): a variable or substitution as the command name, eval or
// sh -c of a run-time string, anything piped into a shell or interpreter,
// inline interpreter code (python -c, node -e, perl -e ...), a git alias.
// The request authorizes a command only by naming every gated operation in
// it (an opaque one only by quoting the command). Text that echo/printf
// only prints does not count; PowerShell commands and command lines that
// do not parse use the textual rules. A check counts as verify only when
// its exit code reaches the tool: `| tail` (without pipefail), `|| true`
// and `; cmd` mask it. Without declared commands a check word (test, build,
// lint, go test, tsc, ...) counts unless it is part of a file operand
// (`build/`, `test.txt`); with Config.VerifyCommands only the declared
// commands count. Here-document bodies fed to cat/tee are text, not
// commands.
package harness
