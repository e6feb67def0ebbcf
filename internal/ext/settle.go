package ext

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/relay-agent/relay/internal/hooks"
)

// onSettle puts an agent_before_settle handler on the seam: the event
// carries the drafts and the continue decision so far, the handler's
// {entries, continue} replaces them.
func (m *Manager) onSettle(src string, id int64) {
	on(m, &m.opts.Hooks.Settle, id, src, func(ctx context.Context, e *hooks.Settle) (hooks.SettleResult, error) {
		entries := e.Entries
		if entries == nil {
			entries = []hooks.EntryDraft{}
		}
		data := map[string]any{"entries": entries, "continue": e.Continue, "outcome": e.Outcome,
			"context": m.settleContext()}
		rep, err := m.call(ctx, id, data)
		if err != nil {
			return hooks.SettleResult{}, err
		}
		r, err := result[struct {
			Entries  []json.RawMessage `json:"entries"`
			Continue *bool             `json:"continue"`
		}](rep)
		if err != nil {
			return hooks.SettleResult{}, err
		}
		var out hooks.SettleResult
		if r.Continue != nil {
			out.Continue, out.Stop = *r.Continue, !*r.Continue
		}
		if r.Entries != nil {
			out.Entries = make([]hooks.EntryDraft, 0, len(r.Entries))
			for i, raw := range r.Entries {
				var d hooks.EntryDraft
				if err := json.Unmarshal(raw, &d); err != nil {
					return hooks.SettleResult{}, fmt.Errorf("invalid result: entry %d: %w", i, err)
				}
				out.Entries = append(out.Entries, d)
			}
		}
		return out, nil
	})
}

// settleContext is the event's context preview: the messages the next
// request would be built from (the original also lists the projected
// entries and the provider-shaped messages; relay does not yet).
func (m *Manager) settleContext() map[string]any {
	m.mu.Lock()
	rt := m.rt
	m.mu.Unlock()
	ctx := map[string]any{"pendingMessages": []any{}, "canContinue": true}
	if rt != nil {
		ctx["contextMessages"] = rt.ContextMessages()
	}
	return ctx
}
