package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/tool"
)

// Queue delivery modes (steeringMode / followUpMode).
const (
	ModeAll        = "all"
	ModeOneAtATime = "one-at-a-time"
)

// ToolOutcome is what running one tool call produced.
type ToolOutcome struct {
	Content llm.Blocks
	Details json.RawMessage
	IsError bool
	// Terminate: see tool.Result.Terminate.
	Terminate bool
}

// Hooks let the harness and the runtime take part in the loop. Every hook
// is optional.
type Hooks struct {
	// BeforeToolCall may block a call; reason becomes the error result the
	// model sees.
	BeforeToolCall func(ctx context.Context, call *llm.ToolCall) (block bool, reason string)
	// AfterToolCall observes each finished call.
	AfterToolCall func(call *llm.ToolCall, result *llm.ToolResultMessage)
	// AfterAssistant may ask for one more model request (ok), after a
	// user message when text is not empty (delivered like a steering
	// message), e.g. the harness's verification request.
	AfterAssistant func(msg *llm.AssistantMessage, toolResults []*llm.ToolResultMessage) (text string, ok bool)
	// BetweenTurns runs after tool results are appended and before the
	// next model call (threshold compaction).
	BetweenTurns func(ctx context.Context)
	// Overflow runs after a run that ended in a context overflow; it
	// returns true when it freed space and the prompt should be retried.
	Overflow func(ctx context.Context, failed *llm.AssistantMessage) bool
}

// RetryPolicy is the agent-level retry of transient provider failures.
type RetryPolicy struct {
	Enabled    bool
	MaxRetries int
	BaseDelay  time.Duration
	MaxDelay   time.Duration
}

// Options configure an Agent.
type Options struct {
	// Stream calls the model with the current context (the runtime builds
	// the request from the session branch, which Persist keeps current).
	Stream func(ctx context.Context, emit func(llm.AssistantEvent)) *llm.AssistantMessage
	// ExecuteTool runs one tool call; update reports partial results.
	ExecuteTool func(ctx context.Context, call *llm.ToolCall, update func(ToolOutcome)) ToolOutcome
	// Persist appends a finished message to the session. An error stops
	// the run at that point: the message stays in the conversation, a
	// session_write_failed event is emitted, remaining tool calls are not
	// executed, and Run returns a *PersistError. Return a *PersistError to
	// name the session file in the event.
	Persist func(m llm.Message) error
	// Emit receives every event, in order, from one goroutine at a time.
	Emit         func(Event)
	Hooks        Hooks
	Retry        RetryPolicy
	SteeringMode string
	FollowUpMode string
	Now          func() time.Time
}

// Agent runs prompts one at a time and accepts steering and follow-up
// messages while it works.
type Agent struct {
	opts Options

	mu        sync.Mutex
	running   bool
	cancel    context.CancelFunc
	done      chan struct{}
	steering  []llm.Message
	followUp  []llm.Message
	steerMode string
	followMod string
	retryOn   bool
	retryStop context.CancelFunc

	// writeErr is the first failed session write of the current run; only
	// the run's goroutine touches it.
	writeErr *PersistError

	// toolEmitMu serializes the events a running tool emits from its own
	// goroutines (partial results, nested calls) with each other.
	toolEmitMu sync.Mutex
}

// emitLocked emits an event that may come from a tool's goroutine.
func (a *Agent) emitLocked(e Event) {
	a.toolEmitMu.Lock()
	defer a.toolEmitMu.Unlock()
	a.opts.Emit(e)
}

// ErrBusy is returned when a run is started while another is active.
var ErrBusy = errors.New("agent is already processing a prompt")

// PersistError is a failed session write. Run returns it after stopping
// the run on it; nothing automatic (tools, retries, queued messages)
// continues unrecorded.
type PersistError struct {
	Path string // the session file, when known
	Err  error
}

func (e *PersistError) Error() string {
	return "session not saved, run stopped: " + e.Err.Error()
}

func (e *PersistError) Unwrap() error { return e.Err }

// New returns an idle agent.
func New(opts Options) *Agent {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Emit == nil {
		opts.Emit = func(Event) {}
	}
	if opts.SteeringMode == "" {
		opts.SteeringMode = ModeOneAtATime
	}
	if opts.FollowUpMode == "" {
		opts.FollowUpMode = ModeOneAtATime
	}
	return &Agent{opts: opts, steerMode: opts.SteeringMode, followMod: opts.FollowUpMode, retryOn: opts.Retry.Enabled}
}

// IsRunning reports whether a run is in progress.
func (a *Agent) IsRunning() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running
}

// SetSteeringMode and SetFollowUpMode change queue delivery.
func (a *Agent) SetSteeringMode(m string) { a.mu.Lock(); a.steerMode = m; a.mu.Unlock() }

// SetFollowUpMode changes how queued follow-ups are delivered.
func (a *Agent) SetFollowUpMode(m string) { a.mu.Lock(); a.followMod = m; a.mu.Unlock() }

// Modes returns the steering and follow-up modes.
func (a *Agent) Modes() (steering, followUp string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.steerMode, a.followMod
}

// SetAutoRetry switches agent-level retry on or off.
func (a *Agent) SetAutoRetry(on bool) { a.mu.Lock(); a.retryOn = on; a.mu.Unlock() }

// AbortRetry cancels a pending retry wait.
func (a *Agent) AbortRetry() {
	a.mu.Lock()
	stop := a.retryStop
	a.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// Steer queues a message delivered after the current tool calls, before
// the next model call.
func (a *Agent) Steer(m llm.Message) {
	a.mu.Lock()
	a.steering = append(a.steering, m)
	a.mu.Unlock()
	a.emitQueue()
}

// FollowUp queues a message delivered when the agent would otherwise stop.
func (a *Agent) FollowUp(m llm.Message) {
	a.mu.Lock()
	a.followUp = append(a.followUp, m)
	a.mu.Unlock()
	a.emitQueue()
}

// ClearQueue empties both queues and returns what they held.
func (a *Agent) ClearQueue() (steering, followUp []llm.Message) {
	a.mu.Lock()
	steering, followUp = a.steering, a.followUp
	a.steering, a.followUp = nil, nil
	a.mu.Unlock()
	a.emitQueue()
	return steering, followUp
}

// Queued returns the texts of the queued messages.
func (a *Agent) Queued() (steering, followUp []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return texts(a.steering), texts(a.followUp)
}

func (a *Agent) emitQueue() {
	st, fu := a.Queued()
	a.opts.Emit(Event{Type: QueueUpdate, Steering: st, FollowUp: fu})
}

func texts(ms []llm.Message) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, MessageText(m))
	}
	return out
}

// MessageText returns the plain text of a user-like message.
func MessageText(m llm.Message) string {
	switch v := m.(type) {
	case *llm.UserMessage:
		return v.Content.PlainText()
	case *llm.CustomMessage:
		return v.Content.PlainText()
	case *llm.AssistantMessage:
		return v.Text()
	}
	return ""
}

// Abort cancels the current run (streaming, a running tool or a retry
// wait) and waits until the agent is idle.
func (a *Agent) Abort() {
	a.mu.Lock()
	cancel, done := a.cancel, a.done
	stop := a.retryStop
	a.mu.Unlock()
	if stop != nil {
		stop()
	}
	if cancel != nil {
		cancel()
	}
	if done != nil {
		<-done
	}
}

// WaitIdle blocks until no run is active.
func (a *Agent) WaitIdle() {
	a.mu.Lock()
	done := a.done
	a.mu.Unlock()
	if done != nil {
		<-done
	}
}

// Run delivers msgs as the next user input and works until nothing
// automatic remains (tool turns, steering, follow-ups, retries, overflow
// recovery), then emits agent_settled. msgs may be empty to continue from
// the current context (a retry). It returns ErrBusy if a run is active,
// and a *PersistError when a session write failed and stopped the run.
func (a *Agent) Run(ctx context.Context, msgs ...llm.Message) error {
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		return ErrBusy
	}
	ctx, cancel := context.WithCancel(ctx)
	a.running, a.cancel, a.done = true, cancel, make(chan struct{})
	a.mu.Unlock()
	a.writeErr = nil
	a.settle(ctx, msgs)
	var runErr error
	if a.writeErr != nil {
		runErr = a.writeErr
	}
	// Idle before agent_settled, so a client that prompts on seeing it is
	// never refused as busy; done closes after it, so Abort and WaitIdle
	// return only once the event is out.
	a.mu.Lock()
	done := a.done
	a.running = false
	a.cancel = nil
	a.mu.Unlock()
	cancel()
	a.opts.Emit(Event{Type: AgentSettled})
	a.mu.Lock()
	if a.done == done {
		a.done = nil
	}
	a.mu.Unlock()
	close(done)
	return runErr
}

// settle runs low-level runs until no retry or recovery is due.
func (a *Agent) settle(ctx context.Context, msgs []llm.Message) {
	attempt := 0
	overflowTried := false
	for {
		last, produced := a.runOnce(ctx, msgs)
		msgs = nil
		failed := last != nil && last.StopReason == llm.StopError
		retryable, overflow := false, false
		if failed {
			pe := last.Err
			if pe == nil {
				pe = llm.ClassifyError(0, last.ErrorMessage)
			}
			overflow = pe.Kind == llm.ErrContextOverflow
			retryable = pe.Retryable()
		}
		a.mu.Lock()
		retryOn := a.retryOn
		a.mu.Unlock()
		willRetry := failed && retryable && retryOn && attempt < a.opts.Retry.MaxRetries && ctx.Err() == nil && a.writeErr == nil
		a.opts.Emit(Event{Type: AgentEnd, Messages: produced, WillRetry: willRetry})
		if a.writeErr != nil {
			return
		}

		if overflow && !overflowTried && a.opts.Hooks.Overflow != nil && ctx.Err() == nil {
			overflowTried = true
			if a.opts.Hooks.Overflow(ctx, last) {
				continue
			}
			return
		}
		if willRetry {
			attempt++
			delay := a.retryDelay(attempt, last)
			// The wait is cancellable before it is announced, so an
			// abort_retry sent on seeing auto_retry_start always lands.
			wait := a.retryWait(ctx)
			a.opts.Emit(Event{Type: AutoRetryStart, Attempt: attempt, MaxAttempts: a.opts.Retry.MaxRetries,
				DelayMs: delay.Milliseconds(), ErrorMessage: last.ErrorMessage})
			if !a.sleep(wait, delay) {
				a.opts.Emit(Event{Type: AutoRetryEnd, Success: false, Attempt: attempt, FinalError: "Retry cancelled", Cancelled: true})
				return
			}
			continue
		}
		if attempt > 0 {
			if failed {
				a.opts.Emit(Event{Type: AutoRetryEnd, Success: false, Attempt: attempt, FinalError: last.ErrorMessage})
			} else {
				a.opts.Emit(Event{Type: AutoRetryEnd, Success: true, Attempt: attempt})
			}
		}
		return
	}
}

func (a *Agent) retryDelay(attempt int, last *llm.AssistantMessage) time.Duration {
	d := a.opts.Retry.BaseDelay << (attempt - 1)
	if last.Err != nil && last.Err.RetryAfter > d {
		d = last.Err.RetryAfter
	}
	if max := a.opts.Retry.MaxDelay; max > 0 && d > max {
		d = max
	}
	return d
}

// retryWait returns a context that AbortRetry (and Abort) cancel.
func (a *Agent) retryWait(ctx context.Context) context.Context {
	wait, stop := context.WithCancel(ctx)
	a.mu.Lock()
	a.retryStop = stop
	a.mu.Unlock()
	return wait
}

// sleep waits d on a retryWait context and clears it.
func (a *Agent) sleep(wait context.Context, d time.Duration) bool {
	defer func() {
		a.mu.Lock()
		stop := a.retryStop
		a.retryStop = nil
		a.mu.Unlock()
		if stop != nil {
			stop()
		}
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-wait.Done():
		return false
	}
}

// runOnce is one low-level run: agent_start, turns, agent_end (emitted by
// the caller). It returns the last assistant message and every message the
// run produced.
func (a *Agent) runOnce(ctx context.Context, pending []llm.Message) (*llm.AssistantMessage, []llm.Message) {
	var produced []llm.Message
	var last *llm.AssistantMessage
	a.opts.Emit(Event{Type: AgentStart})
	for {
		a.opts.Emit(Event{Type: TurnStart})
		for _, m := range pending {
			a.persist(m)
			produced = append(produced, m)
			a.opts.Emit(Event{Type: MessageStart, Message: m})
			a.opts.Emit(Event{Type: MessageEnd, Message: m})
		}
		pending = nil
		if a.writeErr != nil {
			// The input is in the conversation but not on disk: no model
			// call until it can be recorded (and no turn_end: there is no
			// assistant message to report).
			return last, produced
		}

		msg := a.stream(ctx)
		last = msg
		produced = append(produced, msg)

		var results []*llm.ToolResultMessage
		terminate := false
		switch msg.StopReason {
		case llm.StopError, llm.StopAborted:
			// No tool runs for a failed or aborted response; the context
			// builder drops such messages from later requests.
		default:
			results, terminate = a.runTools(ctx, msg)
		}
		for _, r := range results {
			produced = append(produced, r)
		}
		a.opts.Emit(Event{Type: TurnEnd, Message: msg, ToolResults: results})
		if msg.StopReason == llm.StopError || msg.StopReason == llm.StopAborted || ctx.Err() != nil || a.writeErr != nil {
			return last, produced
		}
		if terminate {
			// Every tool of the batch ended the run: its results are the
			// run's last entries, with no model call to only say "done".
			return last, produced
		}
		again := false
		if h := a.opts.Hooks.AfterAssistant; h != nil {
			if text, ok := h(msg, results); ok && text != "" {
				pending = append(pending, &llm.UserMessage{Content: llm.StringContent(text), Timestamp: a.opts.Now().UnixMilli()})
			} else if ok {
				again = true
			}
		}
		pending = append(pending, a.take(&a.steering, a.steerModeNow())...)
		if len(results) > 0 || len(pending) > 0 || again {
			if h := a.opts.Hooks.BetweenTurns; h != nil && len(results) > 0 {
				h(ctx)
			}
			continue
		}
		pending = a.take(&a.followUp, a.followModeNow())
		if len(pending) == 0 {
			return last, produced
		}
	}
}

func (a *Agent) steerModeNow() string  { a.mu.Lock(); defer a.mu.Unlock(); return a.steerMode }
func (a *Agent) followModeNow() string { a.mu.Lock(); defer a.mu.Unlock(); return a.followMod }

func (a *Agent) take(q *[]llm.Message, mode string) []llm.Message {
	a.mu.Lock()
	if len(*q) == 0 {
		a.mu.Unlock()
		return nil
	}
	var out []llm.Message
	if mode == ModeAll {
		out, *q = *q, nil
	} else {
		out = []llm.Message{(*q)[0]}
		*q = append([]llm.Message(nil), (*q)[1:]...)
	}
	a.mu.Unlock()
	a.emitQueue()
	return out
}

func (a *Agent) persist(m llm.Message) {
	if a.opts.Persist == nil {
		return
	}
	err := a.opts.Persist(m)
	if err == nil || a.writeErr != nil {
		// After the first failure the message still joins the session
		// in memory (Persist keeps it); one report per run is enough.
		return
	}
	var pe *PersistError
	if !errors.As(err, &pe) {
		pe = &PersistError{Err: err}
	}
	a.writeErr = pe
	a.opts.Emit(Event{Type: SessionWriteFailed, SessionFile: pe.Path, Error: pe.Err.Error()})
}

func (a *Agent) stream(ctx context.Context) *llm.AssistantMessage {
	started := false
	var partial *llm.AssistantMessage
	emit := func(ev llm.AssistantEvent) {
		if ev.Partial != nil {
			partial = ev.Partial
		}
		switch ev.Type {
		case llm.EventStart:
			if !started && partial != nil {
				started = true
				a.opts.Emit(Event{Type: MessageStart, Message: partial})
			}
		case llm.EventDone, llm.EventError:
		default:
			if !started && partial != nil {
				started = true
				a.opts.Emit(Event{Type: MessageStart, Message: partial})
			}
			var u llm.Usage
			if partial != nil {
				u = partial.Usage
			}
			ev := ev
			a.opts.Emit(Event{Type: MessageUpdate, Usage: u, AssistantEvent: &ev})
		}
	}
	msg := a.opts.Stream(ctx, emit)
	if msg == nil {
		msg = &llm.AssistantMessage{StopReason: llm.StopError, ErrorMessage: "no response from model", Timestamp: a.opts.Now().UnixMilli()}
	}
	if ctx.Err() != nil && msg.StopReason != llm.StopAborted {
		// Whatever the stream ended with after our own cancellation (a cut
		// body, a read error), the cause is the abort.
		msg.StopReason = llm.StopAborted
		msg.ErrorMessage = ""
		msg.Err = nil
	}
	if msg.StopReason == llm.StopAborted && msg.ErrorMessage == "" {
		msg.ErrorMessage = "Request was aborted"
	}
	if !started {
		a.opts.Emit(Event{Type: MessageStart, Message: msg})
	}
	a.persist(msg)
	a.opts.Emit(Event{Type: MessageEnd, Message: msg})
	return msg
}

// runTools executes the message's tool calls in order. Every call gets a
// result, so the session stays valid for providers even after an abort.
// terminate is true when there were calls and every one asked to end the
// run.
func (a *Agent) runTools(ctx context.Context, msg *llm.AssistantMessage) (results []*llm.ToolResultMessage, terminate bool) {
	calls := msg.ToolCalls()
	terminate = len(calls) > 0
	for _, call := range calls {
		var out ToolOutcome
		var nested *nestedRunner
		a.opts.Emit(Event{Type: ToolExecutionStart, ToolCallID: call.ID, ToolName: call.Name, Args: call.Arguments})
		switch {
		case ctx.Err() != nil:
			out = errorOutcome("Tool execution was aborted.")
		case a.writeErr != nil:
			// Nothing runs that the session cannot record.
			out = errorOutcome(fmt.Sprintf("Tool call %s was not executed: the session could not be saved (%v).", call.Name, a.writeErr.Err))
		case msg.StopReason == llm.StopLength:
			out = errorOutcome(fmt.Sprintf("Tool call %s was not executed: the response hit the output token limit before the call was complete.", call.Name))
		default:
			blocked := false
			if h := a.opts.Hooks.BeforeToolCall; h != nil {
				if block, reason := h(ctx, call); block {
					blocked = true
					out = errorOutcome(reason)
				}
			}
			if !blocked {
				// The tool's own tool calls (codemode scripts) run through
				// the same places, recorded on this call's result.
				nested = newNestedRunner(a, call.ID)
				out = a.opts.ExecuteTool(tool.WithNested(ctx, nested), call, func(p ToolOutcome) {
					a.emitLocked(Event{Type: ToolExecutionUpdate, ToolCallID: call.ID, ToolName: call.Name, Args: call.Arguments,
						Output: &ToolOutput{Content: p.Content, Details: detailsOrEmpty(p.Details)}})
				})
			}
		}
		res := &llm.ToolResultMessage{ToolCallID: call.ID, ToolName: call.Name, Content: out.Content,
			Details: out.Details, IsError: out.IsError, Timestamp: a.opts.Now().UnixMilli()}
		if nested != nil {
			res.NestedCalls = nested.record()
		}
		if res.Content == nil {
			res.Content = llm.Blocks{}
		}
		terminate = terminate && out.Terminate
		// tool_result handlers may change the result: before it is shown
		// and recorded, so the session holds what the model will see.
		if h := a.opts.Hooks.AfterToolCall; h != nil {
			h(call, res)
		}
		a.opts.Emit(Event{Type: ToolExecutionEnd, ToolCallID: call.ID, ToolName: call.Name,
			Output: &ToolOutput{Content: res.Content, Details: detailsOrEmpty(res.Details)}, IsError: res.IsError})
		a.persist(res)
		a.opts.Emit(Event{Type: MessageStart, Message: res})
		a.opts.Emit(Event{Type: MessageEnd, Message: res})
		results = append(results, res)
	}
	return results, terminate
}

func detailsOrEmpty(d json.RawMessage) json.RawMessage {
	if len(d) == 0 {
		return json.RawMessage("{}")
	}
	return d
}

func errorOutcome(text string) ToolOutcome {
	return ToolOutcome{Content: llm.Blocks{&llm.TextContent{Text: text}}, IsError: true}
}
