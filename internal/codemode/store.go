package codemode

import (
	"encoding/json"
)

type storeEntry struct {
	Set    map[string]json.RawMessage `json:"set"`
	Delete []string                   `json:"delete"`
}

// loadStore applies the codemode-store entries on the current branch from
// the root, so each branch sees only the values written on its path.
func (t *Tool) loadStore() map[string]json.RawMessage {
	store := map[string]json.RawMessage{}
	if t.cfg.Session == nil {
		return store
	}
	sess := t.cfg.Session()
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

func (t *Tool) saveStore(set map[string]json.RawMessage, del []string) {
	if t.cfg.Session == nil {
		return
	}
	if sess := t.cfg.Session(); sess != nil {
		if del == nil {
			del = []string{}
		}
		// A failed write loses only the values; the script's result stands.
		_, _ = sess.AppendCustom(StoreEntryType, storeEntry{Set: set, Delete: del})
	}
}
