package agent

import (
	"testing"
	"time"

	"github.com/relay-agent/relay/internal/llm"
)

func delta(typ string, idx int, d string) Event {
	return Event{Type: MessageUpdate, AssistantEvent: &llm.AssistantEvent{Type: typ, ContentIndex: idx, Delta: d}}
}

func TestCoalescerMergesOnlySameBlock(t *testing.T) {
	var out []Event
	c := NewCoalescer(time.Hour, func(e Event) { out = append(out, e) })
	c.Push(delta(llm.EventTextDelta, 0, "Hel"))
	c.Push(delta(llm.EventTextDelta, 0, "lo"))
	c.Push(delta(llm.EventTextDelta, 1, "x"))
	c.Push(Event{Type: MessageEnd, Message: &llm.AssistantMessage{}})
	c.Push(delta(llm.EventThinkingDelta, 1, "t"))
	c.Flush()
	if len(out) != 4 {
		t.Fatalf("%d events", len(out))
	}
	if out[0].AssistantEvent.Delta != "Hello" || out[1].AssistantEvent.Delta != "x" || out[2].Type != MessageEnd || out[3].AssistantEvent.Delta != "t" {
		t.Errorf("unexpected %+v %+v %+v %+v", out[0].AssistantEvent, out[1].AssistantEvent, out[2], out[3].AssistantEvent)
	}
}

func TestCoalescerTimerFlushes(t *testing.T) {
	got := make(chan Event, 1)
	c := NewCoalescer(5*time.Millisecond, func(e Event) { got <- e })
	c.Push(delta(llm.EventTextDelta, 0, "a"))
	select {
	case e := <-got:
		if e.AssistantEvent.Delta != "a" {
			t.Errorf("delta %q", e.AssistantEvent.Delta)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pending delta never flushed")
	}
}

// Merging a delta into the pending one allocates nothing but the merged
// text's growth: 16-byte deltas of a 2 MB answer are 131,072 pushes.
func TestCoalescerMergeDoesNotAllocatePerDelta(t *testing.T) {
	c := NewCoalescer(time.Hour, func(Event) {})
	c.Push(delta(llm.EventTextDelta, 0, "first"))
	e := delta(llm.EventTextDelta, 0, "sixteen bytes...")
	allocs := testing.AllocsPerRun(2000, func() { c.Push(e) })
	if allocs > 0.1 {
		t.Errorf("%.2f allocations per merged delta", allocs)
	}
}
