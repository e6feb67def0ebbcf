package laya

import (
	"testing"

	"github.com/relay-agent/relay/internal/models"
)

// Every model the default registry names must be one relay knows: an
// unknown ref is skipped silently at routing time, so a tier would quietly
// lose a candidate.
func TestDefaultRegistryRefsResolve(t *testing.T) {
	reg, err := models.NewRegistry(models.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	for tier, refs := range DefaultRegistry() {
		if len(refs) == 0 {
			t.Errorf("tier %v has no models", tier)
		}
		for _, ref := range refs {
			p, id, ok := SplitRef(ref)
			if !ok {
				t.Errorf("tier %v: malformed ref %q", tier, ref)
				continue
			}
			if reg.Find(p, id) == nil {
				t.Errorf("tier %v: %s is not in the model catalog", tier, ref)
			}
		}
	}
}
