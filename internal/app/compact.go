package app

import (
	"context"
	"errors"
	"time"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/compaction"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// compactionSettings resolves compaction settings for the current model.
func (r *Runtime) compactionSettings() compaction.Settings {
	s := r.cfg.Compaction
	if m := r.currentModel(); m != nil && r.cfg.CompactionFor != nil {
		s = r.cfg.CompactionFor(m.Provider, m.ID)
	}
	r.mu.Lock()
	s.Enabled = r.autoCompact
	r.mu.Unlock()
	return s
}

// maybeCompact compacts when the context passed the threshold.
func (r *Runtime) maybeCompact(ctx context.Context, reason string) {
	m := r.currentModel()
	if m == nil || r.Session().LeafID() == "" {
		return
	}
	s := r.compactionSettings()
	tokens, _ := contextTokens(r.Session(), r.ContextMessages())
	if !compaction.ShouldCompact(s, tokens, m.ContextWindow) {
		return
	}
	_, _ = r.compact(ctx, reason, "", false)
}

// Compact summarizes older history now (/compact, RPC compact); it works
// even when automatic compaction is off.
func (r *Runtime) Compact(ctx context.Context, instructions string) (*agent.CompactionResult, error) {
	return r.compact(ctx, "manual", instructions, false)
}

func items(entries []session.ProjectedEntry) []compaction.Item {
	out := make([]compaction.Item, 0, len(entries))
	for _, pe := range entries {
		it := compaction.Item{EntryID: pe.Source.ID, Type: pe.Source.Type, Messages: pe.Messages}
		if pe.Source.Type == session.TypeMessage && len(pe.Messages) == 0 {
			it.Omitted = true
		}
		out = append(out, it)
	}
	return out
}

// compact runs one compaction and reports it with compaction_start/_end.
func (r *Runtime) compact(ctx context.Context, reason, instructions string, willRetry bool) (*agent.CompactionResult, error) {
	r.mu.Lock()
	if r.compacting {
		r.mu.Unlock()
		return nil, errors.New("compaction already in progress")
	}
	r.compacting = true
	r.mu.Unlock()
	defer func() { r.mu.Lock(); r.compacting = false; r.mu.Unlock() }()
	if err := r.allow(&r.hooks.BeforeCompact, hooks.SessionReason(reason), ""); err != nil {
		return nil, err
	}

	r.emit(agent.Event{Type: agent.CompactionStart, Reason: reason})
	res, err := r.doCompact(ctx, reason, instructions)
	switch {
	case err == nil:
		r.emit(agent.Event{Type: agent.CompactionEnd, Reason: reason, Result: res, WillRetry: willRetry})
		r.hooks.SessionCompact.Notify(ctx, &hooks.SessionChange{Reason: hooks.SessionReason(reason), Session: r.Session(), File: r.Session().SessionFile()})
	case errors.Is(err, context.Canceled):
		r.emit(agent.Event{Type: agent.CompactionEnd, Reason: reason, Aborted: true})
	default:
		r.emit(agent.Event{Type: agent.CompactionEnd, Reason: reason, ErrorMessage: err.Error()})
	}
	return res, err
}

func (r *Runtime) doCompact(ctx context.Context, reason, instructions string) (*agent.CompactionResult, error) {
	model := r.currentModel()
	if model == nil {
		return nil, ErrNoModel
	}
	sess := r.Session()
	proj := sess.BuildSessionProjection()
	if len(proj.Entries) == 0 {
		return nil, errors.New(compaction.NothingToCompact + " (session is empty)")
	}
	// The branch, not the projection, tells: a projection lists the kept
	// entries after the compaction that keeps them.
	if leaf := sess.LeafEntry(); leaf != nil && leaf.Type == session.TypeCompaction {
		return nil, errors.New(compaction.AlreadyCompacted)
	}
	region := proj.Entries
	var prevSummary string
	var seed *compaction.FileDetails
	if first := region[0].Source; first.Type == session.TypeCompaction {
		if c := first.Compaction(); c != nil {
			prevSummary = c.Summary
			if !c.FromHook {
				seed = compaction.ParseDetails(c.Details)
			}
		}
		region = region[1:]
	}
	s := r.compactionSettings()
	its := items(region)
	cut, ok := compaction.FindCut(its, s.KeepRecentTokens)
	if !ok && reason == "manual" {
		// Asked for explicitly: compact what there is.
		if cut, ok = compaction.CutAll(its); !ok {
			return nil, errors.New(compaction.NothingToCompact + " (no messages yet)")
		}
	}
	if !ok {
		return nil, errors.New(compaction.NothingToCompact + " (the context is already small enough)")
	}
	ts := r.now()
	text, usage, err := compaction.Summarize(ctx, r.summarizer("compaction", reason), compaction.Request{
		Model: model, ThinkingLevel: r.thinkingLevel(), SessionID: sess.SessionID(), PreviousSummary: prevSummary,
		CustomInstructions: instructions, ReserveTokens: s.ReserveTokens,
	}, cut, ts)
	if err != nil {
		return nil, err
	}
	tracker := compaction.NewFileTracker(seed)
	tracker.Add(cut.Summarize)
	tracker.Add(cut.TurnPrefix)
	details := tracker.Details()
	summary := compaction.AppendFileLists(text, details)
	tokensBefore := compaction.ContextTokens(proj.Messages, true)
	state := llm.ReplaySystem(proj.Messages)
	firstKept := "" // retain-none: the entry stores its own id
	if cut.FirstKept < len(its) {
		firstKept = its[cut.FirstKept].EntryID
	}
	id, err := sess.AppendCompaction(summary, firstKept, tokensBefore, state.Checkpoint(ts), details, false, &usage)
	if err != nil {
		return nil, err
	}
	if firstKept == "" {
		firstKept = id
	}
	after := compaction.ContextTokens(r.ContextMessages(), true)
	detailsRaw, _ := llm.Marshal(details)
	return &agent.CompactionResult{Summary: summary, FirstKeptEntryID: firstKept, TokensBefore: tokensBefore,
		EstimatedTokensAfter: &after, Usage: &usage, Details: detailsRaw}, nil
}

// recoverOverflow omits the failed attempt from context, compacts, and
// asks the agent to retry.
func (r *Runtime) recoverOverflow(ctx context.Context, failed *llm.AssistantMessage) bool {
	sess := r.Session()
	if leaf := sess.LeafEntry(); leaf != nil && leaf.Type == session.TypeMessage && leaf.Role() == llm.RoleAssistant {
		if _, err := sess.AppendContextEdit(leaf.ID, nil); err != nil {
			return false
		}
	}
	_, err := r.compact(ctx, "overflow", "", true)
	return err == nil
}

// summarizer calls the current model for summaries, retrying transient
// failures per retry.* and reporting them as summarization_retry_* events.
func (r *Runtime) summarizer(source, reason string) compaction.Summarizer {
	return func(ctx context.Context, req *llm.Request) *llm.AssistantMessage {
		retried := false
		defer func() {
			if retried {
				r.emit(agent.Event{Type: agent.SummarizationRetryFinished})
			}
		}()
		for attempt := 0; ; attempt++ {
			client, err := r.cfg.Models.Client(req.Model)
			if err != nil {
				return r.failure(err)
			}
			key, headers, err := r.cfg.Models.Auth(ctx, req.Model)
			if err != nil {
				return r.failure(err)
			}
			req.APIKey, req.Headers = key, headers
			req.IdleTimeout = r.cfg.IdleTimeout
			msg := client.Stream(ctx, req, func(llm.AssistantEvent) {})
			if msg.StopReason != llm.StopError || !r.cfg.Retry.Enabled || attempt >= r.cfg.Retry.MaxRetries {
				return msg
			}
			pe := msg.Err
			if pe == nil {
				pe = llm.ClassifyError(0, msg.ErrorMessage)
			}
			if !pe.Retryable() {
				return msg
			}
			delay := r.cfg.Retry.BaseDelay << attempt
			if max := r.cfg.Retry.MaxDelay; max > 0 && delay > max {
				delay = max
			}
			retried = true
			r.emit(agent.Event{Type: agent.SummarizationRetryScheduled, Attempt: attempt + 1, MaxAttempts: r.cfg.Retry.MaxRetries,
				DelayMs: delay.Milliseconds(), ErrorMessage: msg.ErrorMessage})
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return &llm.AssistantMessage{StopReason: llm.StopAborted, ErrorMessage: "Summarization aborted"}
			case <-t.C:
			}
			ev := agent.Event{Type: agent.SummarizationRetryAttemptStart, Source: source}
			if source == "compaction" {
				ev.Reason = reason
			}
			r.emit(ev)
		}
	}
}
