package codemode

import (
	"encoding/json"

	"github.com/relay-agent/relay/internal/session"
)

type storeEntry struct {
	Set    map[string]json.RawMessage `json:"set"`
	Delete []string                   `json:"delete"`
}

// loadStore applies the codemode-store entries on sess's current branch
// from the root, so each branch sees only the values written on its path.
// The session is the one on the call's context (none outside a run).
func loadStore(sess *session.Manager) map[string]json.RawMessage {
	store := map[string]json.RawMessage{}
	if sess == nil {
		return store
	}
	for _, e := range sess.Branch("") {
		c := e.Custom()
		if c == nil || c.CustomType != StoreEntryType {
			continue
		}
		var d storeEntry
		if json.Unmarshal(c.Data, &d) != nil {
			continue
		}
		for _, k := range d.Delete {
			delete(store, k)
		}
		for k, v := range d.Set {
			store[k] = v
		}
	}
	return store
}

func saveStore(sess *session.Manager, set map[string]json.RawMessage, del []string) {
	if sess != nil {
		if del == nil {
			del = []string{}
		}
		// A failed write loses only the values; the script's result stands.
		_, _ = sess.AppendCustom(StoreEntryType, storeEntry{Set: set, Delete: del})
	}
}
