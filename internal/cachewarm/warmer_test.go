package cachewarm

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
)

// clock is a manual clock: timers fire, synchronously, when advanced past.
type clock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*timer
}

type timer struct {
	at      time.Time
	f       func()
	stopped bool
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &timer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool { c.mu.Lock(); defer c.mu.Unlock(); was := !t.stopped; t.stopped = true; return was }
}

// advance moves time forward by d, firing due timers in order.
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var next *timer
		for _, t := range c.timers {
			if !t.stopped && !t.at.After(end) && (next == nil || t.at.Before(next.at)) {
				next = t
			}
		}
		if next == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		next.stopped = true
		if next.at.After(c.now) {
			c.now = next.at
		}
		c.mu.Unlock()
		next.f()
	}
}

func (c *clock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.stopped {
			n++
		}
	}
	return n
}

type fakeRT struct {
	h     *hooks.Set
	s     *session.Manager
	model *llm.Model
	subs  []func(agent.Event)
}

func (f *fakeRT) Session() *session.Manager { return f.s }
func (f *fakeRT) State() app.State          { return app.State{Model: f.model} }
func (f *fakeRT) emit(t string) {
	for _, fn := range f.subs {
		fn(agent.Event{Type: t})
	}
}
func (f *fakeRT) Subscribe(fn func(agent.Event)) func() {
	f.subs = append(f.subs, fn)
	return func() {}
}

// warmClient answers every refresh with a cache read of the whole prompt.
type warmClient struct {
	reqs []*llm.Request
	fail bool
}

func (c *warmClient) Stream(_ context.Context, req *llm.Request, _ func(llm.AssistantEvent)) *llm.AssistantMessage {
	c.reqs = append(c.reqs, req)
	if c.fail {
		return &llm.AssistantMessage{StopReason: llm.StopError, ErrorMessage: "overloaded"}
	}
	u := llm.Usage{CacheRead: 100_000, Output: 1, TotalTokens: 100_001}
	req.Model.CalculateCost(&u)
	return &llm.AssistantMessage{StopReason: llm.StopLength, Usage: u, Model: req.Model.ID, Provider: req.Model.Provider}
}

type fakeModels struct{ c *warmClient }

func (m fakeModels) Client(*llm.Model) (llm.Client, error) { return m.c, nil }
func (m fakeModels) Auth(context.Context, *llm.Model) (string, map[string]string, error) {
	return "fresh-key", nil, nil
}

// sonnet has the prices and 5-minute / 1-hour lifetimes of Claude Sonnet.
func sonnet() *llm.Model {
	return &llm.Model{ID: "claude-sonnet-4-5", Provider: "anthropic", API: "anthropic-messages",
		Cost: llm.ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}, PromptCache: &llm.PromptCache{Short: 300, Long: 3600}}
}

type env struct {
	rt     *fakeRT
	clk    *clock
	client *warmClient
	w      *Warmer
	mode   settings.CacheWarming
}

func newEnv(t *testing.T, mode settings.CacheWarming, notices bool) *env {
	t.Helper()
	e := &env{clk: &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}, client: &warmClient{}, mode: mode}
	e.rt = &fakeRT{h: hooks.New(), s: session.InMemory(t.TempDir()), model: sonnet()}
	if _, err := e.rt.s.AppendMessage(&llm.UserMessage{Content: llm.StringContent("refactor the parser"), Timestamp: 1}); err != nil {
		t.Fatal(err)
	}
	e.w = Register(e.rt, e.rt.h, Options{Mode: func() settings.CacheWarming { return e.mode }, ShowMissNotices: notices,
		Models: fakeModels{e.client}, Now: e.clk.Now, AfterFunc: e.clk.AfterFunc})
	return e
}

// answer ends a real request of promptTokens tokens sent now.
func (e *env) answer(promptTokens int, req *llm.Request) {
	if req == nil {
		req = &llm.Request{Model: e.rt.model, SystemPrompt: "sys", Messages: []llm.Message{&llm.UserMessage{Content: llm.StringContent("refactor the parser")}},
			MaxTokens: 32000, APIKey: "old-key"}
	}
	u := llm.Usage{CacheRead: promptTokens - 2000, CacheWrite: 2000, Output: 500}
	req.Model.CalculateCost(&u)
	msg := &llm.AssistantMessage{StopReason: llm.StopToolUse, Usage: u, Provider: "anthropic", Model: req.Model.ID,
		Timestamp: e.clk.Now().UnixMilli()}
	e.rt.h.AssistantEnd.Notify(context.Background(), &hooks.AssistantEnd{Message: msg, Request: req, SentAt: e.clk.Now()})
}

func (e *env) usageEntries() []*session.Usage {
	var out []*session.Usage
	for _, en := range e.rt.s.Entries() {
		if u := en.Usage(); u != nil {
			out = append(out, u)
		}
	}
	return out
}

func TestWarmsWhileTheRunIsActive(t *testing.T) {
	e := newEnv(t, settings.CacheWarmingStreaming, false)
	e.answer(100_000, nil)
	if got := e.w.StatusText(); !strings.Contains(got, "scheduled, Decision in 4m 30s (100% continuation probability while agent is running, expected savings $0.315 >= $0.050)") {
		t.Fatalf("status: %s", got)
	}
	e.clk.advance(4*time.Minute + 29*time.Second)
	if len(e.client.reqs) != 0 {
		t.Fatal("refreshed before 90% of the lifetime")
	}
	e.clk.advance(time.Second)
	if len(e.client.reqs) != 1 {
		t.Fatalf("%d refreshes at 4m30s, want 1", len(e.client.reqs))
	}
	r := e.client.reqs[0]
	if r.MaxTokens != 1 || r.MaxRetries != 0 || r.APIKey != "fresh-key" || r.SystemPrompt != "sys" || len(r.Messages) != 1 {
		t.Errorf("replay: %+v", r)
	}
	us := e.usageEntries()
	if len(us) != 1 || us[0].Kind != "cache_warm" || us[0].Usage.CacheRead != 100_000 || us[0].Provider != "anthropic" {
		t.Fatalf("usage entries: %+v", us)
	}
	// The next refresh is 4m30s after this one.
	e.clk.advance(4*time.Minute + 30*time.Second)
	if len(e.client.reqs) != 2 {
		t.Fatalf("%d refreshes after 9m, want 2", len(e.client.reqs))
	}
	// The run ends: in streaming mode warming stops.
	e.rt.emit(agent.AgentEnd)
	if got := e.w.StatusText(); got != "Cache warming: inactive (agent run settled)" {
		t.Errorf("status after settle: %s", got)
	}
	e.clk.advance(time.Hour)
	if len(e.client.reqs) != 2 || e.clk.pending() != 0 {
		t.Errorf("refreshes after settle: %d, timers %d", len(e.client.reqs), e.clk.pending())
	}
}

func TestIdleWarmingNeedsLargerSavings(t *testing.T) {
	for _, tt := range []struct {
		tokens int
		warm   bool
		status string
	}{
		// 15% × $0.345 − $0.030 = $0.022 < $0.05
		{100_000, false, "Cache warming: stopped, expected savings below threshold (15% continuation probability, expected savings $0.022 < $0.050)"},
		// 15% × $1.725 − $0.150 = $0.109
		{500_000, true, ""},
	} {
		e := newEnv(t, settings.CacheWarmingIdle, false)
		e.answer(tt.tokens, nil)
		e.rt.emit(agent.AgentEnd)
		e.clk.advance(270 * time.Second)
		if got := len(e.client.reqs) == 1; got != tt.warm {
			t.Errorf("%d tokens idle: warmed %v, want %v", tt.tokens, got, tt.warm)
		}
		if tt.status != "" && e.w.StatusText() != tt.status {
			t.Errorf("%d tokens: status %q", tt.tokens, e.w.StatusText())
		}
		if tt.warm {
			// Idle warming ends after 30 minutes.
			e.clk.advance(2 * time.Hour)
			if n := len(e.client.reqs); n > 7 || !strings.Contains(e.w.StatusText(), "30-minute idle safety limit") {
				t.Errorf("idle refreshes %d, status %s", n, e.w.StatusText())
			}
		}
	}
}

func TestStopsWhenTheConversationMoves(t *testing.T) {
	e := newEnv(t, settings.CacheWarmingStreaming, false)
	e.answer(100_000, nil)
	// Tree navigation to a new branch: the request's prefix is gone.
	e.rt.s.ResetLeaf()
	if _, err := e.rt.s.AppendMessage(&llm.UserMessage{Content: llm.StringContent("start over"), Timestamp: 2}); err != nil {
		t.Fatal(err)
	}
	e.clk.advance(5 * time.Minute)
	if len(e.client.reqs) != 0 || e.w.StatusText() != "Cache warming: inactive (conversation context changed)" {
		t.Errorf("refreshes %d, status %s", len(e.client.reqs), e.w.StatusText())
	}

	e = newEnv(t, settings.CacheWarmingStreaming, false)
	e.answer(100_000, nil)
	e.rt.model = &llm.Model{ID: "gpt-5", Provider: "openai"}
	e.clk.advance(5 * time.Minute)
	if len(e.client.reqs) != 0 {
		t.Error("warmed after a model switch")
	}
}

func TestExtensionOverridesTheDecision(t *testing.T) {
	e := newEnv(t, settings.CacheWarmingStreaming, false)
	var seen hooks.CacheWarmingDecision
	e.rt.h.CacheWarming.On("ext", func(_ context.Context, d *hooks.CacheWarmingDecision) (hooks.CacheWarmingResult, error) {
		seen = *d
		return hooks.CacheWarmingResult{Action: "stop"}, nil
	})
	e.answer(100_000, nil)
	e.clk.advance(5 * time.Minute)
	if len(e.client.reqs) != 0 || seen.Action != "warm" || seen.ContinuationProbability != 1 {
		t.Fatalf("refreshes %d, decision seen %+v", len(e.client.reqs), seen)
	}
	if got := e.w.StatusText(); !strings.HasPrefix(got, "Cache warming: stopped, stopped by extension") {
		t.Errorf("status %s", got)
	}

	// A failing handler leaves relay's decision.
	e = newEnv(t, settings.CacheWarmingStreaming, false)
	e.rt.h.CacheWarming.On("ext", func(context.Context, *hooks.CacheWarmingDecision) (hooks.CacheWarmingResult, error) {
		return hooks.CacheWarmingResult{Action: "stop"}, errors.New("boom")
	})
	e.answer(100_000, nil)
	e.clk.advance(5 * time.Minute)
	if len(e.client.reqs) != 1 {
		t.Errorf("failing handler: %d refreshes, want relay's warm", len(e.client.reqs))
	}
}

func TestNotStarted(t *testing.T) {
	thinkingBudget := sonnet()
	noCache := sonnet()
	noCache.PromptCache = nil
	for _, tt := range []struct {
		name string
		mode settings.CacheWarming
		req  *llm.Request
		want string
	}{
		{"off", settings.CacheWarmingOff, nil, "Cache warming: off (cache warming disabled)"},
		{"no lifetime", settings.CacheWarmingStreaming, &llm.Request{Model: noCache}, "Cache warming: inactive (cache lifetime unavailable)"},
		{"retention none", settings.CacheWarmingStreaming, &llm.Request{Model: sonnet(), CacheRetention: llm.CacheNone}, "Cache warming: inactive (request disabled prompt caching)"},
		{"budget thinking", settings.CacheWarmingStreaming, &llm.Request{Model: thinkingBudget, ThinkingLevel: llm.ThinkingHigh}, "Cache warming: inactive (request cannot be replayed safely)"},
	} {
		e := newEnv(t, tt.mode, false)
		e.answer(100_000, tt.req)
		e.clk.advance(time.Hour)
		if len(e.client.reqs) != 0 || e.w.StatusText() != tt.want {
			t.Errorf("%s: refreshes %d, status %q", tt.name, len(e.client.reqs), e.w.StatusText())
		}
	}
}

func TestLateTimerMissesTheDeadline(t *testing.T) {
	e := newEnv(t, settings.CacheWarmingStreaming, false)
	e.answer(100_000, nil)
	// The machine slept: the clock jumps past the refresh deadline
	// (4m30s + 15s) before the timer runs.
	e.clk.mu.Lock()
	e.clk.now = e.clk.now.Add(4*time.Minute + 50*time.Second)
	e.clk.mu.Unlock()
	e.clk.advance(0)
	if len(e.client.reqs) != 0 || e.w.StatusText() != "Cache warming: inactive (cache refresh deadline missed)" {
		t.Errorf("refreshes %d, status %s", len(e.client.reqs), e.w.StatusText())
	}
}

func TestCacheMissNotices(t *testing.T) {
	e := newEnv(t, settings.CacheWarmingOff, true)
	var notices []string
	e.rt.h.SubscribeNotices(func(n hooks.Notice) { notices = append(notices, n.Text) })
	send := func(u llm.Usage, model string, at time.Time) {
		m := sonnet()
		m.CalculateCost(&u)
		e.rt.h.AssistantEnd.Notify(context.Background(), &hooks.AssistantEnd{Message: &llm.AssistantMessage{
			StopReason: llm.StopStop, Usage: u, Provider: "anthropic", Model: model, Timestamp: at.UnixMilli()}})
	}
	t0 := e.clk.Now()
	send(llm.Usage{CacheWrite: 100_000}, "claude-sonnet-4-5", t0)                                // first turn: nothing to compare
	send(llm.Usage{CacheRead: 100_000, Input: 500}, "claude-sonnet-4-5", t0.Add(time.Minute))    // hit
	send(llm.Usage{CacheWrite: 100_500}, "claude-sonnet-4-5", t0.Add(12*time.Minute))            // idle miss
	send(llm.Usage{Input: 2000, CacheRead: 99_000}, "claude-sonnet-4-5", t0.Add(13*time.Minute)) // below the floor
	e.rt.model = &llm.Model{ID: "claude-opus-4-8", Provider: "anthropic", Cost: sonnet().Cost}   // the user switched
	send(llm.Usage{CacheWrite: 101_000}, "claude-opus-4-8", t0.Add(14*time.Minute))              // model switch
	want := []string{"Cache miss after 11m idle: 101k tokens re-billed (~$0.35)", "Cache miss after model switch: 101k tokens re-billed (~$0.35)"}
	if strings.Join(notices, "\n") != strings.Join(want, "\n") {
		t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(notices, "\n"), strings.Join(want, "\n"))
	}
}

func TestSessionShowsTheNextDecision(t *testing.T) {
	e := newEnv(t, settings.CacheWarmingStreaming, false)
	if got := e.rt.h.RunStatusDetails(context.Background()); len(got) != 1 || got[0] != "Cache warming: inactive (waiting for first request)" {
		t.Errorf("details %q", got)
	}
	e.answer(100_000, nil)
	e.clk.advance(time.Minute)
	if got := e.rt.h.RunStatusDetails(context.Background()); len(got) != 1 || !strings.Contains(got[0], "Decision in 3m 30s") {
		t.Errorf("details %q", got)
	}
	// A new request stops the refresh until it ends.
	e.rt.emit(agent.TurnStart)
	if got := e.w.StatusText(); got != "Cache warming: inactive (waiting for the response)" {
		t.Errorf("status while the next request streams: %s", got)
	}
}

func TestFormatTokens(t *testing.T) {
	for n, want := range map[int]string{950: "950", 1200: "1.2k", 1000: "1k", 25_400: "25k", 1_500_000: "1.5M", 2_000_000: "2M"} {
		if got := formatTokens(n); got != want {
			t.Errorf("formatTokens(%d) = %s, want %s", n, got, want)
		}
	}
}
