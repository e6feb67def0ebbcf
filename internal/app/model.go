package app

import (
	"context"
	"errors"

	"github.com/relay-agent/relay/internal/agent"
	"github.com/relay-agent/relay/internal/hooks"
	"github.com/relay-agent/relay/internal/llm"
)

// SetModel switches the model, records a model_change entry and clamps the
// thinking level to what the model supports.
func (r *Runtime) SetModel(m *llm.Model) error {
	if m == nil {
		return errors.New("set model: nil model")
	}
	r.mu.Lock()
	same := r.model != nil && r.model.Provider == m.Provider && r.model.ID == m.ID
	old := r.thinking
	want := old
	if r.model == nil || !r.model.Reasoning {
		// Coming from a model without reasoning, whose level is "off" by
		// necessity: the new model starts at the default level, as in the
		// original.
		want = r.cfg.DefaultThinking
		if want == "" {
			want = llm.ThinkingMedium
		}
	}
	prev := r.model
	r.model = m
	r.thinking = m.ClampThinkingLevel(want)
	changed := r.thinking != old
	level := r.thinking
	r.mu.Unlock()
	if !same {
		if _, err := r.Session().AppendModelChange(m.Provider, m.ID); err != nil {
			return err
		}
		r.hooks.ModelSelect.Notify(context.Background(), &hooks.ModelSelect{Model: m, Previous: prev, Source: "set"})
	}
	if changed {
		if _, err := r.Session().AppendThinkingLevelChange(string(level)); err != nil {
			return err
		}
		r.emit(agent.Event{Type: agent.ThinkingLevelChanged, Level: string(level)})
		r.hooks.ThinkingSelect.Notify(context.Background(), &hooks.ThinkingSelect{Level: level, Previous: old})
	}
	return nil
}

// SetThinkingLevel records a new (clamped) thinking level.
func (r *Runtime) SetThinkingLevel(l llm.ThinkingLevel) error {
	r.mu.Lock()
	if r.model != nil {
		l = r.model.ClampThinkingLevel(l)
	}
	changed := l != r.thinking
	prev := r.thinking
	r.thinking = l
	r.mu.Unlock()
	if !changed {
		return nil
	}
	if _, err := r.Session().AppendThinkingLevelChange(string(l)); err != nil {
		return err
	}
	r.emit(agent.Event{Type: agent.ThinkingLevelChanged, Level: string(l)})
	r.hooks.ThinkingSelect.Notify(context.Background(), &hooks.ThinkingSelect{Level: l, Previous: prev})
	return nil
}

// AvailableThinkingLevels lists the levels of the current model.
func ThinkingLevels(m *llm.Model) []llm.ThinkingLevel {
	if m == nil {
		return []llm.ThinkingLevel{llm.ThinkingOff}
	}
	return m.SupportedThinkingLevels()
}

// CycleThinkingLevel moves to the next supported level; ok is false for a
// model without reasoning.
func CycleThinkingLevel(r *Runtime) (llm.ThinkingLevel, bool) {
	levels := ThinkingLevels(r.State().Model)
	if len(levels) <= 1 {
		return r.State().ThinkingLevel, false
	}
	cur := r.State().ThinkingLevel
	next := levels[0]
	for i, l := range levels {
		if l == cur {
			next = levels[(i+1)%len(levels)]
		}
	}
	_ = r.SetThinkingLevel(next)
	return r.State().ThinkingLevel, true
}

// ModelCycle is what Ctrl+P and cycle_model go through: the scoped models
// (--models, enabledModels) or, without a scope, every model Models has
// credentials for. The composition root hands it to the front ends.
type ModelCycle struct {
	Scoped []ScopedModel
	Models Models // the runtime's (nil = none)
}

// Available lists the models with credentials.
func (c ModelCycle) Available() []*llm.Model {
	if c.Models == nil {
		return nil
	}
	return c.Models.Available()
}

// CycleModel moves r to the next (forward) or previous model of c; ok is
// false when there is only one.
func CycleModel(r *Runtime, c ModelCycle, forward bool) (m *llm.Model, level llm.ThinkingLevel, isScoped, ok bool) {
	scoped := c.Scoped
	isScoped = len(scoped) > 0
	if !isScoped {
		for _, m := range c.Available() {
			scoped = append(scoped, ScopedModel{Model: m})
		}
	}
	if len(scoped) <= 1 {
		return r.State().Model, r.State().ThinkingLevel, isScoped, false
	}
	cur := r.State().Model
	idx := -1
	for i, s := range scoped {
		if cur != nil && s.Model.Provider == cur.Provider && s.Model.ID == cur.ID {
			idx = i
		}
	}
	if forward {
		idx = (idx + 1) % len(scoped)
	} else {
		idx = (idx - 1 + len(scoped)) % len(scoped)
	}
	next := scoped[idx]
	_ = r.SetModel(next.Model)
	if next.Thinking != "" {
		_ = r.SetThinkingLevel(next.Thinking)
	}
	return r.State().Model, r.State().ThinkingLevel, isScoped, true
}
