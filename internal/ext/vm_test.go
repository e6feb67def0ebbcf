package ext

import "testing"

func TestVirtualModelRegistered(t *testing.T) {
	f := start(t, "router.ts")
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if f.m.virtual["ext/auto"] == nil {
		t.Fatalf("virtual models %v", f.m.virtual)
	}
}
