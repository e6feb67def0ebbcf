package cachewarm

import (
	"fmt"
	"math"
	"time"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

const (
	// cacheTTLShort: idle gaps longer than this are named as the likely
	// cause of a miss (Anthropic's default lifetime).
	cacheTTLShort = 5 * time.Minute
	// noiseFloor: per-turn misses at or below this are breakpoint noise.
	noiseFloor = 1024
)

// prevRequest is the last request seen: everything in its prompt should be
// read from the cache by the next one.
type prevRequest struct {
	promptTokens int
	model        string
	at           time.Time
	// reportedCache is sticky: some earlier request reported cache
	// activity, so a zero-cache turn is a total miss (providers that only
	// report reads) rather than a provider without caching.
	reportedCache bool
}

type miss struct {
	tokens       int
	cost         float64
	idle         time.Duration
	modelChanged bool
}

// readRate is the model's cache-read price per token when no read was
// billed on the message itself (0 when unknown).
func detectMiss(prev *prevRequest, m *llm.AssistantMessage, at time.Time, readRate float64) (miss, bool) {
	u := m.Usage
	prompt := u.Input + u.CacheRead + u.CacheWrite
	if prev == nil || prompt <= 0 || (u.CacheRead+u.CacheWrite == 0 && !prev.reportedCache) {
		return miss{}, false
	}
	tokens := min(prev.promptTokens, prompt) - u.CacheRead
	if tokens <= noiseFloor {
		return miss{}, false
	}
	// Missed tokens were billed at the paid rate (input or cache write)
	// instead of the cache-read rate.
	var paid float64
	if n := u.Input + u.CacheWrite; n > 0 {
		paid = (u.Cost.Input + u.Cost.CacheWrite) / float64(n)
	}
	read := readRate
	if u.CacheRead > 0 {
		read = u.Cost.CacheRead / float64(u.CacheRead)
	}
	return miss{tokens: tokens, cost: float64(tokens) * math.Max(0, paid-read), idle: max(at.Sub(prev.at), 0),
		modelChanged: m.Provider+"/"+m.Model != prev.model}, true
}

func asPrev(m *llm.AssistantMessage, at time.Time, reported bool) *prevRequest {
	u := m.Usage
	prompt := u.Input + u.CacheRead + u.CacheWrite
	if prompt <= 0 {
		return nil
	}
	return &prevRequest{promptTokens: prompt, model: m.Provider + "/" + m.Model, at: at,
		reportedCache: reported || u.CacheRead+u.CacheWrite > 0}
}

// scanBranch rebuilds the last request from the branch once (a resumed
// session): compactions and branch summaries reset it, cache_warm usage
// entries count as requests.
func scanBranch(entries []*session.Entry) *prevRequest {
	var prev *prevRequest
	for _, e := range entries {
		switch e.Type {
		case session.TypeCompaction, session.TypeBranchSummary:
			prev = nil
		case session.TypeUsage:
			if u := e.Usage(); u != nil && u.Kind == "cache_warm" {
				if n := u.Usage.Input + u.Usage.CacheRead + u.Usage.CacheWrite; n > 0 {
					prev = &prevRequest{promptTokens: n, model: u.Provider + "/" + u.Model, at: entryTime(e), reportedCache: true}
				}
			}
		case session.TypeMessage:
			if e.Role() != llm.RoleAssistant {
				continue
			}
			m, err := e.Message()
			if err != nil {
				continue
			}
			a := m.(*llm.AssistantMessage)
			reported := prev != nil && prev.reportedCache
			if p := asPrev(a, time.UnixMilli(a.Timestamp), reported); p != nil {
				prev = p
			}
		}
	}
	return prev
}

func entryTime(e *session.Entry) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, e.Timestamp)
	return t
}

// noticeMiss reports a significant miss on a just-finished message (before
// it is persisted) and makes it the previous request.
func (w *Warmer) noticeMiss(m *llm.AssistantMessage) {
	if m == nil || m.StopReason == llm.StopError || m.StopReason == llm.StopAborted {
		return
	}
	w.mu.Lock()
	if !w.scanned {
		w.scanned = true
		w.prev = scanBranch(w.rt.Session().Branch(""))
	}
	at := time.UnixMilli(m.Timestamp)
	if m.Timestamp == 0 {
		at = w.o.Now()
	}
	var readRate float64
	if cur := w.rt.State().Model; cur != nil && cur.Provider == m.Provider && cur.ID == m.Model {
		readRate = cur.Cost.CacheRead / 1e6
	}
	ms, ok := detectMiss(w.prev, m, at, readRate)
	reported := w.prev != nil && w.prev.reportedCache
	if p := asPrev(m, at, reported); p != nil {
		w.prev = p
	}
	w.mu.Unlock()
	if !ok || (ms.tokens < 20_000 && ms.cost < 0.1) {
		return
	}
	cost := ""
	if ms.cost >= 0.01 {
		cost = fmt.Sprintf(" (~$%.2f)", ms.cost)
	}
	label := "Cache miss"
	switch {
	case ms.modelChanged:
		label = "Cache miss after model switch"
	case ms.idle >= cacheTTLShort:
		label = fmt.Sprintf("Cache miss after %dm idle", int(math.Round(ms.idle.Minutes())))
	}
	w.seam.Notify(source, fmt.Sprintf("%s: %s tokens re-billed%s", label, formatTokens(ms.tokens), cost))
}
