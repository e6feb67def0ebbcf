package layaauto

import (
	"path/filepath"
	"testing"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/app/apptest"

	"github.com/relay-agent/relay/internal/laya"
	"github.com/relay-agent/relay/internal/llm"
)

// keyless is a catalog whose registry models have no credentials: only
// the given models are available.
type keyless struct {
	*layaCatalog
	avail []*llm.Model
}

func (k keyless) Available() []*llm.Model { return k.avail }

// laya/auto is offered (get_available_models, /model, cycle_model) only
// when some registry model has credentials, so it can route.
func TestLayaAutoOfferedOnlyWhenItCanRoute(t *testing.T) {
	local := &llm.Model{ID: "qwen", Provider: "local", API: "fake-api", ContextWindow: 32000}
	other := &llm.Model{ID: "llama", Provider: "local", API: "fake-api", ContextWindow: 32000}
	tests := []struct {
		name     string
		withKeys bool
		want     bool
	}{
		{"no registry model has credentials", false, false},
		{"a registry model has credentials", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := newLayaCatalog(&apptest.FakeClient{}, "anthropic")
			avail := []*llm.Model{local, other}
			if tt.withKeys {
				avail = append(avail, cat.models...)
			}
			cat.models = append(cat.models, local, other)
			models := keyless{cat, avail}
			agentDir := t.TempDir()
			d := NewWithRouter(Options{AgentDir: agentDir}, models, laya.New(laya.Config{Home: filepath.Join(agentDir, "laya"), BaseURL: deadURL(t)}, models))
			rt := attach(t, d, local)
			cycle := app.ModelCycle{Models: d.Models()}
			listed := false
			for _, m := range cycle.Available() {
				listed = listed || laya.IsAutoModel(m)
			}
			if listed != tt.want {
				t.Errorf("laya/auto listed = %v, want %v", listed, tt.want)
			}
			reached := false
			for i := 0; i < len(avail)+2; i++ {
				m, _, _, ok := app.CycleModel(rt.Runtime, cycle, true)
				if !ok {
					t.Fatal("cycle_model found nothing to cycle")
				}
				reached = reached || laya.IsAutoModel(m)
			}
			if reached != tt.want {
				t.Errorf("cycle_model reached laya/auto = %v, want %v", reached, tt.want)
			}
		})
	}
}
