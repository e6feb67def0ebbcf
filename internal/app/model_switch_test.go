package app

import (
	"testing"

	"github.com/relay-agent/relay/internal/llm"
	"github.com/relay-agent/relay/internal/session"
)

// Switching from a model without reasoning (level necessarily off) to one
// with it starts at the default level, as in the original; between
// reasoning models the current level carries over.
func TestSetModelThinkingLevel(t *testing.T) {
	plain := &llm.Model{ID: "plain", Provider: "fake", API: "fake-api", ContextWindow: 1000}
	thinker := &llm.Model{ID: "thinker", Provider: "fake", API: "fake-api", ContextWindow: 1000, Reasoning: true}
	other := &llm.Model{ID: "other", Provider: "fake", API: "fake-api", ContextWindow: 1000, Reasoning: true}
	tests := []struct {
		name       string
		from       *llm.Model
		fromLevel  llm.ThinkingLevel
		defaultLvl llm.ThinkingLevel
		to         *llm.Model
		want       llm.ThinkingLevel
	}{
		{"plain to reasoning: built-in default", plain, llm.ThinkingOff, "", thinker, llm.ThinkingMedium},
		{"plain to reasoning: settings default", plain, llm.ThinkingOff, llm.ThinkingHigh, thinker, llm.ThinkingHigh},
		{"no model to reasoning", nil, "", llm.ThinkingLow, thinker, llm.ThinkingLow},
		{"reasoning keeps its level", thinker, llm.ThinkingLow, llm.ThinkingHigh, other, llm.ThinkingLow},
		{"reasoning keeps off", thinker, llm.ThinkingOff, llm.ThinkingHigh, other, llm.ThinkingOff},
		{"to plain is off", thinker, llm.ThinkingHigh, llm.ThinkingHigh, plain, llm.ThinkingOff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, _ := newRuntime(t)
			rt.mu.Lock()
			rt.model, rt.thinking = tt.from, tt.fromLevel
			rt.cfg.DefaultThinking = tt.defaultLvl
			rt.mu.Unlock()
			if err := rt.SetModel(tt.to); err != nil {
				t.Fatal(err)
			}
			if got := rt.thinkingLevel(); got != tt.want {
				t.Errorf("thinking level %q, want %q", got, tt.want)
			}
		})
	}
}

// listModels is a registry whose available models are a fixed list.
type listModels struct {
	fakeModels
	list []*llm.Model
}

func (l *listModels) Available() []*llm.Model { return l.list }

// CycleModel goes through the scope (with its thinking levels) in both
// directions, through every available model without a scope, and reports
// nothing to cycle to with one model.
func TestCycleModel(t *testing.T) {
	a := &llm.Model{ID: "a", Provider: "p", Reasoning: true}
	b := &llm.Model{ID: "b", Provider: "p", Reasoning: true}
	c := &llm.Model{ID: "c", Provider: "q"}
	all := &listModels{list: []*llm.Model{a, b, c}}
	scoped := []ScopedModel{{Model: a, Thinking: llm.ThinkingHigh}, {Model: c}}
	tests := []struct {
		name       string
		cycle      ModelCycle
		forward    bool
		want       string
		wantLevel  llm.ThinkingLevel
		wantScoped bool
		wantOK     bool
	}{
		{"scope forward", ModelCycle{Scoped: scoped, Models: all}, true, "c", llm.ThinkingOff, true, true},
		{"scope backward wraps", ModelCycle{Scoped: scoped, Models: all}, false, "c", llm.ThinkingOff, true, true},
		{"all forward", ModelCycle{Models: all}, true, "b", llm.ThinkingHigh, false, true},
		{"all backward wraps", ModelCycle{Models: all}, false, "c", llm.ThinkingOff, false, true},
		{"one model", ModelCycle{Models: &listModels{list: []*llm.Model{a}}}, true, "a", llm.ThinkingHigh, false, false},
		{"no registry", ModelCycle{}, true, "a", llm.ThinkingHigh, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, err := New(Config{Session: session.InMemory("/proj"), Models: all, Model: a, Thinking: llm.ThinkingHigh})
			if err != nil {
				t.Fatal(err)
			}
			m, level, isScoped, ok := CycleModel(rt, tt.cycle, tt.forward)
			if m.ID != tt.want || level != tt.wantLevel || isScoped != tt.wantScoped || ok != tt.wantOK {
				t.Errorf("got %s %s scoped=%v ok=%v, want %s %s scoped=%v ok=%v", m.ID, level, isScoped, ok, tt.want, tt.wantLevel, tt.wantScoped, tt.wantOK)
			}
		})
	}
}
