package app

import (
	"fmt"

	"github.com/relay-agent/relay/internal/llm"
)

// restorableModel returns the model recorded on a branch being opened
// (switch_session, /resume, fork, clone) when it can be used. A model
// that is unknown now or has no credentials is not restored: like the
// original, the runtime goes on with the default model (or keeps the
// current one) and says so in a notice, rather than failing the next
// request with "No API key".
func (r *Runtime) restorableModel(provider, id string) *llm.Model {
	m := r.cfg.Models.Find(provider, id)
	if m != nil && hasModel(r.cfg.Models.Available(), m) {
		return m
	}
	var fallback *llm.Model
	if r.cfg.DefaultModel != nil {
		fallback = r.cfg.DefaultModel()
	}
	if fallback == nil {
		if cur := r.currentModel(); cur != nil && hasModel(r.cfg.Models.Available(), cur) {
			fallback = cur
		}
	}
	notice := fmt.Sprintf("Could not restore model %s/%s", provider, id)
	if fallback != nil {
		notice += fmt.Sprintf(". Using %s/%s", fallback.Provider, fallback.ID)
	}
	r.hooks.Notify("session", notice)
	return fallback
}

func hasModel(list []*llm.Model, m *llm.Model) bool {
	for _, x := range list {
		if x.Provider == m.Provider && x.ID == m.ID {
			return true
		}
	}
	return false
}
