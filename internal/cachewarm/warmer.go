package cachewarm

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
)

// Runtime is what the warmer needs of the runtime.
type Runtime interface {
	Session() *session.Manager
	State() app.State
	Subscribe(fn func(agent.Event)) func()
}

// Models sends the refreshes with fresh credentials.
type Models interface {
	Client(*llm.Model) (llm.Client, error)
	Auth(ctx context.Context, m *llm.Model) (string, map[string]string, error)
}

// Options configure the warmer.
type Options struct {
	// Mode is read at every decision: the setting may change while relay
	// runs (/settings).
	Mode            func() settings.CacheWarming
	ShowMissNotices bool
	Models          Models
	Now             func() time.Time
	// AfterFunc arms a timer (tests drive a fake clock); nil: time.AfterFunc.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
}

const source = "cache-warming"

// Warmer keeps the prompt cache entry of the latest request warm.
type Warmer struct {
	rt   Runtime
	seam *hooks.Set
	o    Options

	mu       sync.Mutex
	run      *run
	inactive string   // why nothing is scheduled
	stopped  decision // the decision that stopped warming, if one did
	hasStop  bool
	prev     *prevRequest // cache-miss accounting
	scanned  bool
}

type run struct {
	req             *llm.Request
	leaf            string // the branch's last entry when the request went out
	promptTokens    int
	ttl, delay      time.Duration
	startedAt       time.Time
	nextWarmAt      time.Time
	refreshDeadline time.Time
	phase           string
	cancel          context.CancelFunc
	stopTimer       func() bool
	refreshing      bool
}

// Register attaches the warmer to the seam and rt's event stream.
func Register(rt Runtime, seam *hooks.Set, o Options) *Warmer {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.AfterFunc == nil {
		o.AfterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	if o.Mode == nil {
		o.Mode = func() settings.CacheWarming { return settings.CacheWarmingStreaming }
	}
	w := &Warmer{rt: rt, seam: seam, o: o, inactive: "waiting for first request"}
	h := seam
	h.AssistantEnd.On(source, func(_ context.Context, e *hooks.AssistantEnd) (hooks.None, error) {
		w.onAssistantEnd(e)
		return hooks.None{}, nil
	})
	h.Status.On(source, func(_ context.Context, q *hooks.StatusQuery) (hooks.StatusResult, error) {
		if !q.Detail {
			return hooks.StatusResult{}, nil
		}
		return hooks.StatusResult{Detail: []string{w.StatusText()}}, nil
	})
	rt.Subscribe(func(e agent.Event) {
		switch e.Type {
		case agent.TurnStart:
			// A real request is about to go out; it restarts warming
			// when it ends. A refresh now would only duplicate it.
			w.stop("waiting for the response", nil)
		case agent.AgentEnd:
			w.onSettled()
		}
	})
	return w
}

// Close stops warming (relay is exiting).
func (w *Warmer) Close() { w.stop("inactive", nil) }

func (w *Warmer) onAssistantEnd(e *hooks.AssistantEnd) {
	if w.o.ShowMissNotices {
		w.noticeMiss(e.Message)
	}
	req := e.Request
	if req == nil || req.Model == nil || e.Message.StopReason == llm.StopError || e.Message.StopReason == llm.StopAborted {
		return
	}
	if w.o.Mode() == settings.CacheWarmingOff {
		w.stop("cache warming disabled", nil)
		return
	}
	if !replayable(req) {
		w.stop("request cannot be replayed safely", nil)
		return
	}
	ttl, ok := cacheTTL(req)
	if !ok {
		reason := "cache lifetime unavailable"
		if req.EffectiveCacheRetention() == llm.CacheNone {
			reason = "request disabled prompt caching"
		}
		w.stop(reason, nil)
		return
	}
	delay, ok := warmDelay(ttl)
	if !ok {
		w.stop("cache lifetime unavailable", nil)
		return
	}
	u := e.Message.Usage
	cp := *req // the replay keeps the exact prompt; only the cap changes
	r := &run{req: &cp, leaf: w.rt.Session().LeafID(), promptTokens: u.Input + u.CacheRead + u.CacheWrite,
		ttl: ttl, delay: delay, startedAt: e.SentAt, phase: "streaming"}
	if r.startedAt.IsZero() {
		r.startedAt = w.o.Now()
	}
	w.mu.Lock()
	w.clearLocked()
	w.run = r
	w.scheduleLocked(r, r.startedAt)
	w.mu.Unlock()
}

func (w *Warmer) onSettled() {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.run
	if r == nil {
		return
	}
	if w.o.Mode() != settings.CacheWarmingIdle {
		w.stopLocked("agent run settled", nil)
		return
	}
	r.phase = "idle"
	deadline := r.startedAt.Add(maxIdleAge)
	if r.nextWarmAt.After(deadline) || !w.o.Now().Before(deadline) {
		w.stopLocked("30-minute idle safety limit reached", nil)
	}
}

// scheduleLocked arms the next refresh at from+delay; half the margin
// before expiry is kept for a late timer (a later refresh would be a
// full-price write, not a warm).
func (w *Warmer) scheduleLocked(r *run, from time.Time) {
	r.nextWarmAt = from.Add(r.delay)
	r.refreshDeadline = r.nextWarmAt.Add((r.ttl - r.delay) / 2)
	limit, reason := maxStreamingAge, "one-hour safety limit reached"
	if r.phase == "idle" {
		limit, reason = maxIdleAge, "30-minute idle safety limit reached"
	}
	if deadline := r.startedAt.Add(limit); r.nextWarmAt.After(deadline) || !w.o.Now().Before(deadline) {
		w.stopLocked(reason, nil)
		return
	}
	wait := max(r.nextWarmAt.Sub(w.o.Now()), 0)
	r.stopTimer = w.o.AfterFunc(wait, func() { w.refresh(r) })
}

func (w *Warmer) clearLocked() {
	r := w.run
	if r == nil {
		return
	}
	w.run = nil
	if r.stopTimer != nil {
		r.stopTimer()
	}
	if r.cancel != nil {
		r.cancel()
	}
}

func (w *Warmer) stop(reason string, d *decision) {
	w.mu.Lock()
	w.stopLocked(reason, d)
	w.mu.Unlock()
}

func (w *Warmer) stopLocked(reason string, d *decision) {
	w.clearLocked()
	w.inactive, w.hasStop = reason, d != nil
	if d != nil {
		w.stopped = *d
	}
}

// validLocked reports whether r is still the run to warm, stopping it when
// the mode or the conversation changed.
func (w *Warmer) validLocked(r *run) bool {
	if w.run != r {
		return false
	}
	switch mode := w.o.Mode(); {
	case mode == settings.CacheWarmingOff:
		w.stopLocked("cache warming disabled", nil)
		return false
	case mode == settings.CacheWarmingStreaming && r.phase == "idle":
		w.stopLocked("agent run settled", nil)
		return false
	}
	if !w.currentLocked(r) {
		w.stopLocked("conversation context changed", nil)
		return false
	}
	return true
}

// currentLocked: the model is the request's and the request's last entry is
// still on the branch (no tree navigation, fork or compaction since).
func (w *Warmer) currentLocked(r *run) bool {
	m := w.rt.State().Model
	if m == nil || m.Provider != r.req.Model.Provider || m.ID != r.req.Model.ID {
		return false
	}
	s := w.rt.Session()
	if r.leaf == "" {
		return true
	}
	if s.LeafID() == r.leaf {
		return true
	}
	for _, e := range s.Branch("") {
		if e.ID == r.leaf {
			return true
		}
	}
	return false
}

// sendableLocked reports whether r may still be refreshed now: it is valid
// and its deadline has not passed.
func (w *Warmer) sendableLocked(r *run) bool {
	if !w.validLocked(r) {
		return false
	}
	if w.o.Now().After(r.refreshDeadline) {
		w.stopLocked("cache refresh deadline missed", nil)
		return false
	}
	return true
}

func (w *Warmer) refresh(r *run) {
	w.mu.Lock()
	r.stopTimer = nil
	if !w.sendableLocked(r) {
		w.mu.Unlock()
		return
	}
	d := evaluate(r.req.Model, r.promptTokens, r.phase)
	r.refreshing = true
	w.mu.Unlock()

	action := w.seam.RunCacheWarming(context.Background(), hooks.CacheWarmingDecision{
		WarmCost: d.warmCost, MissCost: d.missCost, ContinuationProbability: d.contP, Action: d.action})
	d.extensionOverride = action != d.action
	d.action = action

	w.mu.Lock()
	r.refreshing = false
	if !w.sendableLocked(r) {
		w.mu.Unlock()
		return
	}
	if d.action == "stop" {
		reason := "expected savings below threshold"
		switch {
		case d.extensionOverride:
			reason = "stopped by extension"
		case !d.economicsAvailable:
			reason = "cache economics unavailable"
		}
		w.stopLocked(reason, &d)
		w.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel, r.refreshing = cancel, true
	w.mu.Unlock()

	msg := w.send(ctx, r)
	cancel()

	w.mu.Lock()
	defer w.mu.Unlock()
	r.refreshing, r.cancel = false, nil
	if w.run != r {
		return
	}
	if msg != nil && msg.StopReason != llm.StopError && msg.StopReason != llm.StopAborted {
		model := msg.Model
		if model == "" {
			model = r.req.Model.ID
		}
		if _, err := w.rt.Session().AppendUsage("cache_warm", r.req.Model.Provider, model, msg.Usage); err == nil {
			w.prev = &prevRequest{promptTokens: msg.Usage.Input + msg.Usage.CacheRead + msg.Usage.CacheWrite,
				model: r.req.Model.Provider + "/" + model, at: w.o.Now(), reportedCache: true}
			if w.o.ShowMissNotices {
				w.seam.Notify(source, fmt.Sprintf("Cache warmed: %s tokens read (%s)",
					formatTokens(msg.Usage.CacheRead), dollars(msg.Usage.Cost.Total)))
			}
		}
	}
	// Best effort: a failed refresh does not stop warming; the next one is
	// scheduled from now.
	w.scheduleLocked(r, w.o.Now())
}

// send replays the request with a one-token cap and no retries.
func (w *Warmer) send(ctx context.Context, r *run) *llm.AssistantMessage {
	client, err := w.o.Models.Client(r.req.Model)
	if err != nil {
		return nil
	}
	req := *r.req
	req.MaxTokens, req.MaxRetries = 1, 0
	if key, headers, err := w.o.Models.Auth(ctx, req.Model); err == nil {
		req.APIKey, req.Headers = key, headers
	} else {
		return nil
	}
	return client.Stream(ctx, &req, func(llm.AssistantEvent) {})
}

// StatusText is the /session line: what is scheduled and why, or why not.
func (w *Warmer) StatusText() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.o.Mode() == settings.CacheWarmingOff {
		return "Cache warming: off (cache warming disabled)"
	}
	r := w.run
	if r == nil {
		if w.hasStop {
			return fmt.Sprintf("Cache warming: stopped, %s (%s)", w.inactive, w.stopped.economics())
		}
		return "Cache warming: inactive (" + w.inactive + ")"
	}
	if r.refreshing {
		return "Cache warming: refreshing"
	}
	d := evaluate(r.req.Model, r.promptTokens, r.phase)
	if !d.economicsAvailable {
		return "Cache warming: inactive (cache economics unavailable)"
	}
	return fmt.Sprintf("Cache warming: scheduled, %s (%s)", untilText(r.nextWarmAt, w.o.Now()), d.economics())
}
